// The organizer's console writes that are not a ladder's (ladder_api.h has those): a new
// tournament from a JSON body (docs/competition.md). The submission server asks who calls: an
// organizer only.
#pragma once

#include "core/json.h"
#include "server/api.h"
#include "tournament/store.h"

namespace arbiter::server {

class ConsoleApi {
 public:
  explicit ConsoleApi(tournament::Store& store) : store_(store) {}

  // A tournament from {"name", "game", "schedule": "round-robin" or "swiss", "rounds",
  // "seats", "entrants": [{"name", "bot"}]}: house bots of the game, or stored bots
  // ("bot:NAME" or "bot:NAME@V", pinned to the version they play). No program named in a web
  // form ever runs: cmd: and tcp: entrants are refused. Its matches are played where `arbiter
  // tournament resume ID` or `arbiter worker` runs. 201 {"id", "name", "matches"}; 400 with
  // the reason (nothing stored).
  ApiReply create_tournament(const Json& body);

 private:
  tournament::Store& store_;
};

}  // namespace arbiter::server
