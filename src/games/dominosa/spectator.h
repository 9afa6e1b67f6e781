// What a spectator of a running Dominosa race may see of each game-log line (docs/viewer.md):
// the puzzle, who submitted when and the verdicts, never a submitted solution.
#pragma once

#include "core/json.h"

namespace arbiter::dominosa {

// `line` as a spectator may see it before the race ends: a "message" line (what a seat sent)
// keeps only its method name. Any other line as it is (every seat is sent the same puzzle).
// Never throws, whatever the line holds.
Json spectator_line(const Json& line);

}  // namespace arbiter::dominosa
