// The learning search: exact solution counting by conflict-driven clause learning over the
// placements (solver_learning.cpp describes the model and the search). It is the solver for
// hard instances such as random layouts; solve() (solver.h) stays the deduction engine that
// grading and the generator use.
//
// A search runs in slices of conflicts and can take clauses from other searches of the same
// puzzle between slices, so that a caller can run several differently seeded searches side by
// side and let them share what they learn, deterministically (apps/dominosa_count.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "games/dominosa/puzzle.h"

namespace arbiter::dominosa {

struct LearningResult {
  std::int64_t count = 0;           // solutions found, up to the limit
  std::vector<Solution> solutions;  // the first min(count, 2) found, in order
  bool complete = false;            // the count is final: all solutions, or the limit reached
  std::int64_t conflicts = 0;
  std::int64_t decisions = 0;
  std::int64_t learned_kept = 0;    // learned clauses alive (the database's worse half is cut
                                    // whenever it has grown by a tenth)
};

// A clause over the placements of one puzzle: literal 2*v says "placement v is used", 2*v+1
// "is not". Placements are numbered row by row, for each cell first the one to its right, then
// the one below it.
using SharedClause = std::vector<int>;

class LearningSearch {
 public:
  // A search counting the solutions of `p` (a checked puzzle: puzzle.h) up to `limit` (>= 1).
  // `seed` breaks the ties of the first branching order; searches with different seeds explore
  // differently. `share`: keep the clauses take_shared() hands out (off: none are kept).
  LearningSearch(const Puzzle& p, std::int64_t limit, std::uint64_t seed, bool share = false);
  ~LearningSearch();
  LearningSearch(LearningSearch&&) noexcept;
  LearningSearch& operator=(LearningSearch&&) noexcept;

  // Searches until the count is final, or `conflicts` more conflicts have happened, or `work`
  // more units of work have been done (< 0: no bound; a unit is a literal propagated, a clause
  // or placement looked at, a cell reached by the matching), or `stop` says stop (polled every
  // 64 conflicts and after each solution found; it may be called from several threads at once
  // when searches share one). The bounds are looked at after each conflict and each solution, so
  // a call that does not finish ends with at least one more conflict or solution: slices always
  // make progress. Returns result().complete. Deterministic: the same calls
  // in the same order give the same result, whatever the timing, as long as `stop` never fires.
  bool run(std::int64_t conflicts, const StopFn& stop = {}, std::int64_t work = -1);

  // The units of work done so far (see run()).
  std::int64_t work() const;

  const LearningResult& result() const;

  // Clauses this search learned since the last call that hold for every solution of the puzzle:
  // facts and short clauses of low glue (none unless `share`). Nothing learned after this search
  // has found a solution is kept, since what it learns after blocking one holds only for the
  // solutions not yet found.
  std::vector<SharedClause> take_shared();

  // Adds clauses that every solution of the puzzle satisfies (e.g. another search's
  // take_shared()); a clause naming a placement the puzzle does not have is ignored. The search
  // restarts from the top.
  void add_shared(const std::vector<SharedClause>& clauses);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// One search, run to the end or until `max_conflicts` (< 0: no bound) or `stop`.
LearningResult count_learning(const Puzzle& p, std::int64_t limit, std::uint64_t seed = 0,
                              std::int64_t max_conflicts = -1, const StopFn& stop = {});

}  // namespace arbiter::dominosa
