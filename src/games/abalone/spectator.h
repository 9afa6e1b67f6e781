// What a spectator of a running Concurrent Abalone match may see of each game-log line
// (docs/viewer.md): the whole world (both teams see it too), never a team's program.
#pragma once

#include "core/json.h"

namespace arbiter::abalone {

// `line` as a spectator may see it before the match ends: the header's teams without their
// "source". Any other line as it is. Never throws, whatever the line holds.
Json spectator_line(const Json& line);

}  // namespace arbiter::abalone
