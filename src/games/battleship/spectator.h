// What a spectator of a running Battleship match may see of each game-log line
// (docs/viewer.md): every shot and what its shooter was told, never a fleet.
#pragma once

#include "core/json.h"

namespace arbiter::battleship {

// `line` as a spectator may see it before the match ends: setup calls without args or reply
// (the fleet); a take_turn call's args reduced to config, turn, you and outgoing (the seat's
// own shots and their announced results), its reply (the shot) kept. Any other line as it is.
// Never throws, whatever the line holds.
Json spectator_line(const Json& line);

}  // namespace arbiter::battleship
