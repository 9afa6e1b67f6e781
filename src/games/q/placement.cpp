// Legality (docs/games/q.md §1.5) and scoring (§1.6) of a Q placement.
#include "games/q/placement.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace arbiter::q {
namespace {

std::size_t kind_index(Tile t) {
  return static_cast<std::size_t>(t.shape) * kColors + static_cast<std::size_t>(t.color);
}

std::string describe(Tile t) {
  return fmt::format("{}/{}", to_string(t.color), to_string(t.shape));
}

std::string describe(Coord c) {
  return fmt::format("({}, {})", c.row, c.column);
}

bool all_in_row(const Placements& ps) {
  return std::all_of(ps.begin(), ps.end(),
                     [&](const Placement& p) { return p.coord.row == ps.front().coord.row; });
}

bool all_in_column(const Placements& ps) {
  return std::all_of(ps.begin(), ps.end(),
                     [&](const Placement& p) { return p.coord.column == ps.front().coord.column; });
}

// A maximal contiguous run of occupied cells along one direction.
struct Run {
  Coord first;  // the end with the smaller coordinate; identifies the run within its line
  int length = 0;
  bool is_q = false;
};

// The maximal run through c (occupied in m) along (dr, dc), which is (0, 1) or (1, 0).
Run run_through(const Map& m, Coord c, int dr, int dc) {
  Coord lo = c;
  while (m.occupied({lo.row - dr, lo.column - dc})) lo = {lo.row - dr, lo.column - dc};
  Run run{lo, 0, false};
  // Count up to the run's end, remembering the first 6 tiles for the Q test: only a run of
  // exactly 6 can be a Q.
  std::array<Tile, 6> tiles{};
  for (Coord k = lo;; k = {k.row + dr, k.column + dc}) {
    std::optional<Tile> t = m.at(k);
    if (!t) break;
    if (run.length < 6) tiles[run.length] = *t;
    ++run.length;
  }
  if (run.length == 6) {
    unsigned shapes = 0, colors = 0;
    for (Tile t : tiles) {
      shapes |= 1u << static_cast<unsigned>(t.shape);
      colors |= 1u << static_cast<unsigned>(t.color);
    }
    run.is_q = shapes == 0x3fu || colors == 0x3fu;
  }
  return run;
}

std::int64_t run_points(const Run& run, const Bonuses& bonuses) {
  if (run.length < 2) return 0;
  return run.length + (run.is_q ? bonuses.q : 0);
}

}  // namespace

std::optional<Foul> violation(const Map& map, const Tiles& hand, const Placements& placements) {
  if (placements.empty()) return Foul{"empty-placement", "no tiles placed"};

  std::array<int, 36> owned{};
  for (Tile t : hand) ++owned[kind_index(t)];
  for (const Placement& p : placements) {
    if (--owned[kind_index(p.tile)] < 0)
      return Foul{"tile-not-owned",
                  fmt::format("places more {} tiles than the hand holds", describe(p.tile))};
  }

  if (!all_in_row(placements) && !all_in_column(placements))
    return Foul{"not-a-line", "the placed coordinates are neither in one row nor in one column"};

  // The map as it grows during the turn: `map` plus the placements checked so far (at most a
  // hand's worth, so a linear scan beats copying the map).
  std::size_t placed = 0;
  auto at = [&](Coord c) -> std::optional<Tile> {
    for (std::size_t i = 0; i < placed; ++i)
      if (placements[i].coord == c) return placements[i].tile;
    return map.at(c);
  };
  for (const Placement& p : placements) {
    const Coord c = p.coord;
    if (at(c)) return Foul{"occupied", fmt::format("{} is already occupied", describe(c))};
    if (!at({c.row - 1, c.column}) && !at({c.row + 1, c.column}) && !at({c.row, c.column - 1}) &&
        !at({c.row, c.column + 1}))
      return Foul{"non-adjacent-coordinate",
                  fmt::format("{} has no occupied neighbour", describe(c))};
    if (!fits_at(at, c, p.tile))
      return Foul{"no-fit",
                  fmt::format("tile {} at {} does not fit", describe(p.tile), describe(c))};
    ++placed;
  }
  return std::nullopt;
}

std::expected<Map, Foul> extend(const Map& map, const Tiles& hand, const Placements& placements) {
  if (auto foul = violation(map, hand, placements)) return std::unexpected(std::move(*foul));
  Map m = map;
  for (const Placement& p : placements) m.place(p.coord, p.tile);
  return m;
}

std::int64_t score(const Map& after, const Placements& placements, const Bonuses& bonuses,
                   bool finished) {
  auto pts = static_cast<std::int64_t>(placements.size());
  if (placements.empty()) return pts;

  // §1.6: the line is the common row when there is one (always so for a single tile).
  const bool along_row = all_in_row(placements);
  const int dr = along_row ? 0 : 1;
  const int dc = along_row ? 1 : 0;

  // Several placed tiles may lie in the same run of the line; count each run once. Placements
  // are few, so a linear scan of the runs seen so far is cheapest.
  std::vector<Coord> seen;
  seen.reserve(placements.size());
  for (const Placement& p : placements) {
    if (!after.occupied(p.coord)) continue;
    Run line = run_through(after, p.coord, dr, dc);
    if (std::find(seen.begin(), seen.end(), line.first) != seen.end()) continue;
    seen.push_back(line.first);
    pts += run_points(line, bonuses);
  }
  for (const Placement& p : placements) {
    if (!after.occupied(p.coord)) continue;
    pts += run_points(run_through(after, p.coord, dc, dr), bonuses);
  }
  if (finished) pts += bonuses.finish;
  return pts;
}

}  // namespace arbiter::q
