// Racer: an in-process player of a real-time game (Speed Scrabble, the Dominosa race). It runs
// on its own thread for the whole match and talks to the referee only through a Link carrying
// the game's wire messages, exactly what a remote player would exchange over a pipe, so house
// bots exercise the codec and the referee treats every seat alike. The referee owns the thread;
// a racer returns after the "win" message or when its link closes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/json.h"

namespace arbiter {

// How a house racer of the common kind plays: "solver" (at once), "slow" (waiting 1 s before
// every submission) or "slow=SECONDS" (0 to 60).
struct RacerSpec {
  Duration delay{};
  friend bool operator==(const RacerSpec&, const RacerSpec&) = default;
};
Expected<RacerSpec> parse_racer(std::string_view text);

class Link {
 public:
  virtual ~Link() = default;
  // The next message from the referee, waiting until `deadline`; nothing on timeout or once the
  // link is closed (closed() tells which).
  virtual std::optional<Json> receive(const Deadline& deadline) = 0;
  // A message to the referee; false when the link is closed.
  virtual bool send(const Json& message) = 0;
  virtual bool closed() const = 0;
};

class Racer {
 public:
  virtual ~Racer() = default;
  virtual std::string name() = 0;
  // Plays the whole match. Exceptions end the racer's part (the referee sees its link close).
  virtual void race(Link& link) = 0;
};

}  // namespace arbiter
