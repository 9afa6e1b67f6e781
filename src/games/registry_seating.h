// Seating a roster, the same way for every game's registry entry: the seats' names, and the
// seats played from outside ("cmd:PROGRAM" child processes and "tcp" clients) opened as channels.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "games/registry.h"
#include "remote/channel.h"
#include "remote/child_process.h"

namespace arbiter {

// The roster's names, by seat: 1-20 letters or digits (they name stderr files), all distinct.
Expected<std::vector<std::string>> seat_names(const PlaySpec& spec);

// A "cmd:" or "tcp" seat once opened: its channel (and process), or why it could not start.
struct OpenedSeat {
  std::unique_ptr<Channel> channel;
  std::unique_ptr<ChildProcess> process;
  std::string failure;  // empty when it started
};

bool is_remote(const Seating& seat);

// Opens the remote seats of a roster: "cmd:" seats spawn their program, "tcp" seats are accepted
// in seat order (a client signs up by sending its name as a JSON string; other connections are
// dropped). Other seats stay empty. An Error only when tcp seats cannot be listened for.
Expected<std::vector<std::optional<OpenedSeat>>> open_remote_seats(const PlaySpec& spec,
                                                                   ChannelLimits limits = {});

}  // namespace arbiter
