// The Dominosa solver (docs/games/dominosa.md §3, §5): exact and complete. Propagation from a work
// queue (the deductions of the levels), perfect-matching pruning and per-value Hall filtering,
// with search on top: solve, count solutions up to a limit, prove that there is none, and grade
// the level a puzzle needs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "games/dominosa/puzzle.h"

namespace arbiter::dominosa {

struct SolveLimits {
  std::int64_t max_nodes = -1;  // search nodes before giving up (-1: no limit)
  // Restarts follow the Luby sequence times this many nodes (0: never restart). The search is
  // complete and counts exactly either way (restarts keep the explored part as nogoods).
  std::int64_t restart_nodes = 1024;
};

struct SolveResult {
  std::int64_t count = 0;          // solutions found, up to the limit
  std::optional<Solution> first;   // the first solution found
  std::optional<Solution> second;  // a second one, when count >= 2 (the generator repairs)
  bool complete = true;            // false when max_nodes stopped the search early
  std::int64_t nodes = 0;          // search nodes used (placements tried or refuted)
};

// Counts solutions up to `limit` (1: find one; 2: decide uniqueness). Deterministic: the same
// puzzle and limits give the same result. Puzzles the deductions finish take no search nodes
// (generated puzzles at n = 100: a few ms); random layouts are hard instances whose search grows
// exponentially with n (seconds around n = 45-50), so callers bound them with max_nodes.
SolveResult solve(const Puzzle& p, std::int64_t limit = 1, const SolveLimits& limits = {});

// The level a puzzle needs: the lowest level whose deductions alone solve it, `ambiguous` when it
// has more than one solution (or none). Levels follow §3. Deductions that solve a puzzle
// prove it unique, so grading never searches: `ambiguous` also covers a unique puzzle that even
// the extreme deductions cannot finish (call solve(p, 2) to tell these apart).
Level grade(const Puzzle& p);

// What grading found: the level, and how many cells each level's deductions leave unplaced
// (trivial, basic, hard, extreme; 0 from the solving level on). The levels are applied in turn,
// each continuing from the previous one's fixpoint (the rules are monotone, so this equals
// starting afresh). `contradiction`: the deductions proved there is no solution.
struct GradeDetail {
  Level level = Level::ambiguous;
  std::array<int, 4> unplaced{};
  bool contradiction = false;
};
GradeDetail grade_detail(const Puzzle& p);

// Whether the deductions of `level` alone (no search) solve `p` completely. For `ambiguous` the
// deductions are the extreme ones plus the solver's perfect-matching pruning.
bool solves_with(const Puzzle& p, Level level);

}  // namespace arbiter::dominosa
