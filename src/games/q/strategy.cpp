// The course's house strategies dag and ldasg: one step, and the full turn built from steps.
#include "games/q/strategy.h"

#include <algorithm>

namespace arbiter::q {
namespace {

// The candidate strategy s picks among `cands` (non-empty, row-major).
Coord choose(Strategy s, const Map& map, const std::vector<Coord>& cands) {
  if (s == Strategy::dag) return cands.front();
  // The first of the most-neighboured candidates is the row-major smallest of them.
  Coord best = cands.front();
  int most = map.occupied_neighbours(best);
  for (Coord c : cands) {
    if (int n = map.occupied_neighbours(c); n > most) {
      most = n;
      best = c;
    }
  }
  return best;
}

bool same_line(const Placements& ps) {
  const Coord first = ps.front().coord;
  return std::all_of(ps.begin(), ps.end(),
                     [&](const Placement& p) { return p.coord.row == first.row; }) ||
         std::all_of(ps.begin(), ps.end(),
                     [&](const Placement& p) { return p.coord.column == first.column; });
}

}  // namespace

std::string_view to_string(Strategy s) {
  return s == Strategy::dag ? "dag" : "ldasg";
}

std::optional<Strategy> strategy_from_string(std::string_view text) {
  if (text == "dag") return Strategy::dag;
  if (text == "ldasg") return Strategy::ldasg;
  return std::nullopt;
}

Step step(Strategy s, const Map& map, const Tiles& hand, std::uint64_t pile) {
  Tiles sorted = hand;
  std::sort(sorted.begin(), sorted.end());
  const std::vector<Coord>& spots = map.free_neighbours();
  std::vector<Coord> cands;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0 && sorted[i] == sorted[i - 1]) continue;  // same kind, same (empty) candidates
    cands.clear();
    for (Coord c : spots) {
      if (!map.fits(c, sorted[i])) continue;
      cands.push_back(c);
      if (s == Strategy::dag) break;  // dag takes the first candidate: no need for the rest
    }
    if (!cands.empty()) return Placement{choose(s, map, cands), sorted[i]};
  }
  if (hand.size() > pile) return Pass{};
  return Replace{};
}

Action turn(Strategy s, const View& view, const Escape& escape) {
  Map map = view.map;
  Tiles hand = view.hand;
  Placements so_far;
  for (;;) {
    Step next = step(s, map, hand, view.pile);
    const Placement* p = std::get_if<Placement>(&next);
    if (!p) {
      if (!so_far.empty()) return so_far;
      if (std::holds_alternative<Pass>(next)) return Pass{};
      return Replace{};
    }
    Placements extended = so_far;
    extended.push_back(*p);
    // §4.1 asks whether `extended` is legal against the turn's start state. `so_far` is legal
    // and `map`/`hand` are exactly the start state after it, so extend(view.map, view.hand,
    // extended) succeeds iff the line rule holds and the new tile is legal on `map`; ownership
    // holds because the tile comes from `hand`. Checking just that avoids re-extending the
    // start map on every step.
    const bool legal = same_line(extended) && !map.occupied(p->coord) &&
                       map.occupied_neighbours(p->coord) > 0 && map.fits(p->coord, p->tile);
    if (escape && escape(extended, legal)) return extended;
    if (!legal) {
      if (!so_far.empty()) return so_far;
      return Pass{};
    }
    map.place(p->coord, p->tile);
    hand.erase(std::find(hand.begin(), hand.end(), p->tile));
    so_far = std::move(extended);
  }
}

}  // namespace arbiter::q
