// The threaded Dominosa generator (docs/games/dominosa.md §5, "Parallel"). It lives in apps/
// because rules code (src/games) runs no threads; the work is done by the pure functions of
// games/dominosa/generator.h, and the result equals generate(options) for every thread count and
// every timing. Two ways to use the threads:
//
// - attempts: threads take attempt indices 0, 1, 2, ... from a shared counter and run
//   generate_attempt; the result is the successful attempt with the smallest index. A thread
//   stops taking indices once one at or above the best success so far comes up, an attempt above
//   a known success is abandoned (it could not be chosen), and the driver returns once every
//   attempt below the best success has finished. Pays when attempts often fail (small n, where
//   they are cheap).
// - candidates: attempts in order, each evaluating its hardening candidates a round of `threads`
//   at a time on a small thread pool (Executor). Pays when single attempts are long (large n),
//   since those rarely fail.
// `automatic` takes attempts below n = 20 and candidates from there on.
#pragma once

#include <optional>

#include "games/dominosa/generator.h"

namespace arbiter::dominosa {

enum class ParallelMode { automatic, attempts, candidates };

// generate(options) with `threads` worker threads (<= 1: on the calling thread). `stop`, when
// given, is polled by every attempt (e.g. a deadline), possibly from several threads at once;
// once it has said stop the result is nullopt.
std::optional<Generated> generate_parallel(const GenerateOptions& options, int threads,
                                           const StopFn& stop = {},
                                           ParallelMode mode = ParallelMode::automatic);

}  // namespace arbiter::dominosa
