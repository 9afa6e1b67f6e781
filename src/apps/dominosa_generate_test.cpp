// Tests for the threaded Dominosa generator: the same puzzle as the serial generator for any
// thread count and mode, and nothing once stopped.
#include "apps/dominosa_generate.h"

#include <atomic>
#include <cstdint>

#include <gtest/gtest.h>

namespace arbiter::dominosa {
namespace {

GenerateOptions options(int n, Level level, std::uint64_t seed) {
  GenerateOptions o;
  o.n = n;
  o.level = level;
  o.seed = seed;
  return o;
}

TEST(DominosaParallelGenerator, ResultDoesNotDependOnThreads) {
  struct Case {
    int n;
    Level level;
  };
  for (const Case& c : {Case{12, Level::trivial}, Case{3, Level::hard}, Case{5, Level::extreme},
                        Case{20, Level::basic}, Case{20, Level::hard}, Case{14, Level::extreme}}) {
    for (std::uint64_t seed : {1, 2}) {
      const auto o = options(c.n, c.level, seed);
      auto serial = generate(o);
      ASSERT_TRUE(serial.has_value());
      for (ParallelMode mode :
           {ParallelMode::automatic, ParallelMode::attempts, ParallelMode::candidates}) {
        for (int threads : {1, 2, 3}) {
          auto made = generate_parallel(o, threads, {}, mode);
          ASSERT_TRUE(made.has_value()) << threads;
          EXPECT_EQ(made->puzzle, serial->puzzle) << c.n << " " << threads;
          EXPECT_EQ(made->attempt, serial->attempt);
          EXPECT_EQ(made->solution, serial->solution);
        }
      }
    }
  }
}

TEST(DominosaParallelGenerator, StopGivesNothing) {
  for (ParallelMode mode : {ParallelMode::attempts, ParallelMode::candidates}) {
    std::atomic<int> polls{0};
    auto g = generate_parallel(
        options(30, Level::extreme, 1), 2, [&] { return ++polls > 3; }, mode);
    EXPECT_FALSE(g.has_value());
  }
}

}  // namespace
}  // namespace arbiter::dominosa
