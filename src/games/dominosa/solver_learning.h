// Private to the Dominosa solver: the learning search (conflict-driven clause learning over the
// placements), which solve() uses to count. solver_learning.cpp describes the model.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "games/dominosa/puzzle.h"

namespace arbiter::dominosa {

struct LearningLimits {
  std::int64_t max_conflicts = -1;           // give up after this many conflicts (-1: never)
  const std::atomic<bool>* stop = nullptr;   // give up once this turns true (checked often)
  std::uint64_t seed = 0;                    // breaks the first ties of the branching order
};

struct LearningResult {
  std::int64_t count = 0;               // solutions found, up to the limit
  std::vector<Solution> solutions;      // the first min(count, 2) found, in order
  bool complete = true;                 // false when a limit stopped the search
  std::int64_t conflicts = 0;
  std::int64_t decisions = 0;
  std::int64_t learned_kept = 0;        // learned clauses alive at the end (memory stays bounded)
};

// Counts the solutions of `p` up to `limit` (>= 1) exactly. Deterministic for a given puzzle,
// limit and seed: no clock or thread decides anything except the stop flag, which only ends the
// search (complete = false).
LearningResult count_learning(const Puzzle& p, std::int64_t limit, const LearningLimits& limits);

}  // namespace arbiter::dominosa
