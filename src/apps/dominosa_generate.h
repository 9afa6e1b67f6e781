// The threaded Dominosa generator (spec dominosa.md §5 "Parallel"). It lives in apps/ because
// rules code (src/games) runs no threads; the attempts themselves are the pure functions of
// games/dominosa/generator.h.
//
// Threads take attempt indices 0, 1, 2, ... from a shared counter and run generate_attempt; the
// result is the successful attempt with the smallest index, so it equals generate(options) for
// every thread count and every timing. A thread stops taking indices once one at or above the
// best success so far comes up, and an attempt whose index is above a known success is abandoned
// (its result could not be chosen); the driver returns once every attempt below the best success
// has finished.
#pragma once

#include <optional>

#include "games/dominosa/generator.h"

namespace arbiter::dominosa {

// generate(options) with `threads` worker threads (<= 1: on the calling thread). `stop`, when
// given, is polled by every attempt (e.g. a deadline); stopping loses reproducibility only in
// that the result may be nullopt.
std::optional<Generated> generate_parallel(const GenerateOptions& options, int threads,
                                           const StopFn& stop = {});

}  // namespace arbiter::dominosa
