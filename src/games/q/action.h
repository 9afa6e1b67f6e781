// What a Q player may answer to take-turn (docs/games/q.md §1.4): pass, replace all its tiles, or a
// non-empty sequence of placements.
#pragma once

#include <variant>

#include "games/q/placement.h"

namespace arbiter::q {

struct Pass {
  friend bool operator==(Pass, Pass) = default;
};
struct Replace {
  friend bool operator==(Replace, Replace) = default;
};

using Action = std::variant<Pass, Replace, Placements>;

}  // namespace arbiter::q
