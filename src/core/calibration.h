// Calibration: how fast this machine runs a fixed CPU workload, against the reference machine
// (the 2-core machine docs/benchmarks.md was measured on), so that a tournament can give its
// limits in reference seconds ("1ref") and every worker holds its bots to the same amount of
// work: a worker whose factor is 1.5 (its CPU takes 1.5 s for the reference's 1 s) allows 1.5 s
// for "1ref". The workload is single-threaded integer work over a cache-sized table (sorting,
// hashing, branching), the mix a game bot's search is made of.
#pragma once

#include <cstdint>

#include "core/clock.h"

namespace arbiter {

struct Calibration {
  double factor = 1.0;  // this machine's CPU time for the workload / the reference's
  Duration workload{};  // the CPU time one run of the workload took here (the best run)
  int runs = 0;
};

// The CPU time the workload takes on the reference machine.
inline constexpr Duration kReferenceWorkload = std::chrono::milliseconds(250);

// Runs the workload `runs` times on this thread and keeps the fastest (the least disturbed by
// other work): about runs x 250 ms of CPU on the reference machine.
Calibration calibrate(int runs = 4);

// This process's factor: calibrate() once, on first use (about a second), then remembered.
// Thread-safe.
double this_machine_factor();

// One run of the workload; returns a value that depends on all of it (so none is optimised
// away).
std::uint64_t calibration_workload();

}  // namespace arbiter
