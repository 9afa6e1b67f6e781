// What a spectator of a running Speed Scrabble race may see of each game-log line
// (docs/viewer.md): the shape of every board and every tile arrival, never a letter.
#pragma once

#include "core/json.h"

namespace arbiter::speed_scrabble {

// `line` as a spectator may see it before the race ends: in setup, message and notice lines,
// every capital letter A-Z in the strings of the message's parameters (after the method name)
// becomes '?'. Any other line as it is. Never throws, whatever the line holds.
Json spectator_line(const Json& line);

}  // namespace arbiter::speed_scrabble
