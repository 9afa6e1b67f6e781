// The Dominosa solver (spec dominosa.md §3, §5): exact and complete. Propagation from a work
// queue (the deductions of the levels), perfect-matching pruning and per-value Hall filtering,
// with search on top: solve, count solutions up to a limit, prove that there is none, and grade
// the level a puzzle needs.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "games/dominosa/puzzle.h"

namespace arbiter::dominosa {

struct SolveLimits {
  std::int64_t max_nodes = -1;  // search nodes before giving up (-1: no limit)
};

struct SolveResult {
  std::int64_t count = 0;          // solutions found, up to the limit
  std::optional<Solution> first;   // the first solution found
  std::optional<Solution> second;  // a second one, when count >= 2 (the generator repairs)
  bool complete = true;            // false when max_nodes stopped the search early
  std::int64_t nodes = 0;          // search nodes used
};

// Counts solutions up to `limit` (1: find one; 2: decide uniqueness).
SolveResult solve(const Puzzle& p, std::int64_t limit = 1, const SolveLimits& limits = {});

// The level a puzzle needs: the lowest level whose deductions alone solve it, `ambiguous` when it
// has more than one solution (or none). Levels follow spec §3.
Level grade(const Puzzle& p);

// Whether the deductions of `level` alone (no search) solve `p` completely.
bool solves_with(const Puzzle& p, Level level);

}  // namespace arbiter::dominosa
