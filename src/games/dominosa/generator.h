// The Dominosa generator (spec dominosa.md §5): unique puzzles of a requested level and size, by
// seed, reproducibly, without retrying whole layouts.
//
// One *attempt* builds a puzzle from its own seed, Rng::derive(seed, "attempt", i):
//   1. a random domino tiling of the (n+1) x (n+2) grid (the intended solution): a simple tiling
//      scrambled by many random 2x2 flips, and a random assignment of the double-n set to its
//      tiles. Every later change keeps this tiling a solution: it only swaps the values of two
//      tiles or turns one tile around.
//   2. (level ambiguous: done.) Local easing: the attempt runs the trivial deductions itself
//      (cheap, no solver) and changes values only where they stall, until the stalled region is
//      empty (trivial) or small.
//   3. Uniqueness repair: while solve(p, 2) finds a second solution, the attempt takes one
//      alternating cycle where the two solutions differ and changes values of the intended tiles
//      on it (turn a tile, swap it with another) so that the second solution breaks and the
//      intended one stays valid, then re-checks.
//   4. Steering: grade(p) is compared with the level; local value swaps that keep the puzzle
//      unique move the grade toward it (hardening walks accept a swap that keeps the grade at or
//      below the level and grows the stalled region of the trivial deductions; easing walks
//      shrink that region).
// Every step counts against budgets that depend only on n and the level (never on time); when
// they run out the attempt fails. An attempt is a pure function of (n, level, seed, i): the same
// inputs give the same puzzle on every machine.
//
// generate() tries attempts 0, 1, 2, ... and returns the first success. The threaded driver
// (src/apps/dominosa_generate.h, outside games/ because of the layering rule) returns the
// successful attempt with the smallest index, so its result equals generate()'s for any thread
// count.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "games/dominosa/puzzle.h"

namespace arbiter::dominosa {

struct GenerateOptions {
  int n = 6;                          // 1..kMaxN
  Level level = Level::basic;         // the level the puzzle must grade at
  std::uint64_t seed = 1;             // attempt i is seeded by Rng::derive(seed, "attempt", i)
  std::int64_t max_attempts = 200;    // attempts 0..max_attempts-1, then give up
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
  Solution solution;        // the intended (for every level but ambiguous: the only) solution
  Level level;              // grade(puzzle), equal to the requested level
  std::uint64_t attempt;    // the index of the attempt that produced it
  GenerateStats stats;      // of that attempt
};

// Polled between steps; when it returns true the attempt stops and returns nullopt. Only for
// cancellation (a time limit, a better attempt found by another thread): it makes the outcome
// depend on timing, so callers that need reproducibility only stop work they will discard.
using StopFn = std::function<bool()>;

// Attempt `attempt` of `options` (its max_attempts is ignored): the puzzle, or nullopt when the
// attempt's budgets ran out (or `stop` said so). Pure and deterministic; no threads.
std::optional<Generated> generate_attempt(const GenerateOptions& options, std::uint64_t attempt,
                                          const StopFn& stop = {});

// Attempts 0, 1, ... max_attempts-1 in order; the first success, or nullopt.
std::optional<Generated> generate(const GenerateOptions& options, const StopFn& stop = {});

}  // namespace arbiter::dominosa
