// The Dominosa generator (docs/games/dominosa.md §5): unique puzzles of a requested level and size,
// by seed, reproducibly, without retrying whole layouts.
//
// One *attempt* builds a puzzle from its own seed, Rng::derive(seed, "attempt", i):
//   1. A random domino tiling of the (n+1) x (n+2) grid (the intended solution): a simple tiling
//      scrambled by 8 x cells random 2x2 flips, and the double-n set dealt to its tiles in random
//      order and orientation. Every later change keeps this tiling a solution: it only swaps the
//      values of two tiles or turns one tile around. (Level ambiguous: done here.)
//   2. Local easing to a trivial puzzle: the attempt runs the trivial deductions itself (linear,
//      no solver) and changes values only where they stall, keeping a change when the stalled
//      region does not grow, until nothing stalls. Sound deductions that place every cell prove
//      the puzzle unique, so this never retries the layout. (Level trivial: done after one
//      grade() to confirm.)
//   3. Hardening toward the level: candidate moves on the current puzzle (the base), each a swap
//      of two nearby tiles or a turn, drawn from its own seed. For a candidate, the trivial
//      deductions run again; every solution agrees with the intended one where they resolve
//      cells, so when the stalled region is small (<= 100 cells) uniqueness is decided exactly
//      by a search of that region alone, and a second solution found there is repaired locally:
//      the two solutions differ on alternating cycles; a turn or swap of an intended tile on one
//      cycle makes the second solution use some domino twice (the intended one stays valid), and
//      the check runs again (up to 3 times). A unique (or undecided) candidate is graded: grade
//      == level ends the attempt; a lower grade no lower than the base's becomes the new base;
//      anything else (ambiguous, too hard) is dropped.
// Budgets (moves of the easing, candidates of the hardening) depend only on n; when they run out
// the attempt fails and generate() goes on with attempt i+1. An attempt is a pure function of
// (n, level, seed, i): the same inputs give the same puzzle on every machine.
//
// generate() tries attempts 0, 1, 2, ... and returns the first success. The threaded driver
// (src/apps/dominosa_generate.h, outside games/ because of the layering rule) returns the same
// puzzle for any thread count: it either runs attempts in parallel and keeps the successful one
// with the smallest index, or evaluates the hardening candidates of one attempt a round at a time
// through an Executor (below) and keeps the first in index order.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "games/dominosa/puzzle.h"

namespace arbiter::dominosa {

struct GenerateOptions {
  int n = 6;                        // 1..kMaxN
  Level level = Level::basic;       // the level the puzzle must grade at (ambiguous: any layout)
  std::uint64_t seed = 1;           // attempt i is seeded by Rng::derive(seed, "attempt", i)
  std::int64_t max_attempts = 200;  // attempts 0..max_attempts-1, then give up (levels that do
                                    // not exist at small n, e.g. basic at n = 1, hard at n = 2)
};

// What an attempt did (for benchmarks and reports; the same for the same inputs).
struct GenerateStats {
  std::int64_t moves = 0;    // value changes tried (swaps and turns)
  std::int64_t grades = 0;   // grade(p) calls
  std::int64_t repairs = 0;  // second solutions broken by a change on their cycle
  std::int64_t nodes = 0;    // search nodes of the local uniqueness checks
};

struct Generated {
  Puzzle puzzle;
  Solution solution;      // the intended (for every level but ambiguous: the only) solution
  Level level;            // the requested level: grade(puzzle) equals it, except that an
                          // `ambiguous` layout is not checked (it may happen to be unique)
  std::uint64_t attempt;  // the index of the attempt that produced it
  GenerateStats stats;    // of that attempt
};

// An attempt polls its StopFn (puzzle.h) between steps and returns nullopt once it says stop.

// How an attempt may evaluate independent candidates at once. The generator runs no threads
// itself: `run(count, job)` must call job(0) ... job(count - 1) (count <= lanes), possibly
// concurrently, and return when all have returned; an empty `run` means one after another. The
// result never depends on it (see harden in generator.cpp): the threaded driver passes a thread
// pool here, everything else the default.
struct Executor {
  int lanes = 1;
  std::function<void(int count, const std::function<void(int)>& job)> run;
};

// Attempt `attempt` of `options` (its max_attempts is ignored): the puzzle, or nullopt when the
// attempt's budgets ran out (or `stop` said so). Deterministic: the same for every executor.
std::optional<Generated> generate_attempt(const GenerateOptions& options, std::uint64_t attempt,
                                          const StopFn& stop = {}, const Executor& executor = {});

// Attempts 0, 1, ... max_attempts-1 in order; the first success, or nullopt.
std::optional<Generated> generate(const GenerateOptions& options, const StopFn& stop = {},
                                  const Executor& executor = {});

}  // namespace arbiter::dominosa
