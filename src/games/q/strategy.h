// The course's house strategies (docs/games/q.md §4.1), reproduced exactly because the harnesses'
// expected outputs depend on them.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <variant>

#include "games/q/action.h"
#include "games/q/view.h"

namespace arbiter::q {

enum class Strategy {
  dag,    // "dumb and greedy": the row-major smallest candidate of the smallest placeable tile
  ldasg,  // "less dumb and still greedy": among those, the most constrained (most neighbours)
};

std::string_view to_string(Strategy s);
std::optional<Strategy> strategy_from_string(std::string_view text);

using Step = std::variant<Pass, Replace, Placement>;

// One step (§4.1): sort the hand by tile<, take the first tile with a candidate and place it by
// the strategy's rule; with no candidate at all, pass if the hand holds more tiles than `pile`,
// else replace.
Step step(Strategy s, const Map& map, const Tiles& hand, std::uint64_t pile);

// Shown every extended sequence of a turn with whether it is legal against the turn's start
// state; returning true ends the turn with that sequence as the answer. A seam for tests (which
// check the incremental legality against extend()) and for scripted players.
using Escape = std::function<bool(const Placements& so_far, bool legal)>;

// A full turn (§4.1): iterate step() on a hypothetical state (tile placed, removed from the hand,
// pile count unchanged) until it says pass/replace or the next placement would make the whole
// sequence illegal; answer the placements so far, or the pass/replace if there are none.
Action turn(Strategy s, const View& view, const Escape& escape = {});

}  // namespace arbiter::q
