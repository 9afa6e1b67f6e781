// Counting Dominosa solutions with several learning searches side by side (docs/games/dominosa.md
// §5, "Counting"). It lives in apps/ because rules code (src/games) runs no threads; the work is
// done by games/dominosa/solver_learning.h.
//
// A fixed number of searches, seeded 0, 1, ..., run in rounds: in each round every search does
// one slice of work (LearningSearch::run's units, so that the searches of a round take about the
// same time), then each takes the short clauses the others learned since the last exchange (in
// search order). The first round is search 0's alone, with a small slice, so that puzzles
// the propagation almost finishes cost one search. The answer comes from the earliest round in
// which a search finished, from the search that finished after the least work in that round
// (ties: the lowest number). A search stops as soon as it can no longer beat a finish already
// seen. Work is counted in deterministic units, so the count, the
// solutions printed, the answering search, its work and the round depend on the number of
// searches and never on the number of threads or the timing: threads only run the searches of
// a round at the same time (one thread lets them take turns in chunks). What does depend on the
// timing: the conflicts spent and the solutions found by searches that stopped early in the last
// round, and, when `stop` fires during the round that answers, which search answers (the count
// is exact either way).
#pragma once

#include <cstdint>
#include <functional>

#include "games/dominosa/solver_learning.h"

namespace arbiter::dominosa {

struct CountProgress {
  int rounds = 0;
  std::int64_t conflicts = 0;  // over all searches
  std::int64_t found = 0;      // solutions found by the search that has found most
};

struct CountOptions {
  std::int64_t limit = 2;             // count up to this many (>= 1)
  int searches = 2;                   // searches side by side (>= 1); the answer depends on it
  int threads = 1;                    // threads running them (<= 1: the calling thread)
  std::int64_t slice = 5'000'000;     // units of work per search per round (~0.05-0.1 s)
  std::int64_t max_conflicts = -1;    // give up (unknown) past this many over all searches,
                                      // checked after each round (< 0: never)
  StopFn stop;                        // give up (unknown) once it says stop; polled often, from
                                      // several threads at once
  std::function<void(const CountProgress&)> progress;  // after every round, on the caller's thread
};

struct CountOutcome {
  LearningResult result;   // the answering search's (complete = false: unknown)
  int answered_by = -1;    // that search, or -1 when the answer is unknown
  CountProgress effort;
};

CountOutcome count_solutions(const Puzzle& p, const CountOptions& options);

}  // namespace arbiter::dominosa
