// What a spectator of a running Q match may see of each game-log line (docs/viewer.md): the map,
// the scores, the pile's size and every placement made, never a hand or the pile's order.
#pragma once

#include "core/json.h"

namespace arbiter::q {

// `line` as a spectator may see it before the match ends: the "match" header without the
// config's "table" (its hands and pile); setup and new_tiles calls without args; a take_turn
// call's args without the seat's own tiles, its reply only when the verdict is ok (a refused
// placement could show tiles that never reached the map). Any other line as it is. Never
// throws, whatever the line holds.
Json spectator_line(const Json& line);

}  // namespace arbiter::q
