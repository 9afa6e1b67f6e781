// Legality and scoring of a Q placement, exactly as docs/games/q.md §1.5 and §1.6 state them.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <vector>

#include "core/foul.h"
#include "games/q/map.h"

namespace arbiter::q {

struct Placement {
  Coord coord;
  Tile tile;
  friend bool operator==(const Placement&, const Placement&) = default;
};

using Placements = std::vector<Placement>;

struct Bonuses {
  std::int64_t q = 8;       // for each scored run that is a Q (6 long, all shapes or all colours)
  std::int64_t finish = 4;  // for placing every tile one holds
  friend bool operator==(const Bonuses&, const Bonuses&) = default;
};

// Foul codes a placement can earn (documented in docs/protocol.md):
//   "empty-placement", "tile-not-owned", "not-a-line", "occupied", "non-adjacent-coordinate",
//   "no-fit".
// §1.5 legal(map, hand, P): the first rule P breaks, or nothing. Does not copy the map.
std::optional<Foul> violation(const Map& map, const Tiles& hand, const Placements& placements);

// §1.5 legal(map, hand, P): the map after placing P in order, or the first rule P breaks.
std::expected<Map, Foul> extend(const Map& map, const Tiles& hand, const Placements& placements);

// §1.6 score of P on `after` (the map once P is placed): 1 per tile, each maximal run of >= 2 in
// P's line containing a placed tile once, each perpendicular run of >= 2 through a placed tile,
// bonuses.q per such run that is a Q, and bonuses.finish if `finished`.
// REQUIRES: P non-empty and legal, `after` == *extend(before, hand, P).
std::int64_t score(const Map& after, const Placements& placements, const Bonuses& bonuses,
                   bool finished);

}  // namespace arbiter::q
