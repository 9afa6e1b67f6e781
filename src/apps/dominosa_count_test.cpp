// Tests for count_solutions (dominosa_count.h): the answer, the solutions, the answering search
// and its work are the same for every thread count; searches share clauses without changing any count; limits give
// an unknown answer, never a wrong one.
#include "apps/dominosa_count.h"

#include <atomic>
#include <vector>

#include <gtest/gtest.h>

#include "core/rng.h"
#include "games/dominosa/generator.h"
#include "games/dominosa/test_puzzles.h"

namespace arbiter::dominosa {
namespace {

Puzzle layout(int n, std::uint64_t seed) {
  auto g = generate({.n = n, .level = Level::ambiguous, .seed = seed});
  EXPECT_TRUE(g);
  return g->puzzle;
}

TEST(DominosaCount, ThreadsNeverChangeTheAnswer) {
  // Small slices make many rounds, so finishes race within rounds and clauses cross often.
  for (const std::uint64_t seed : {1, 2, 3, 4, 5}) {
    const Puzzle p = layout(seed % 2 ? 35 : 40, seed);
    for (const int searches : {2, 3}) {
      for (const std::int64_t slice : {std::int64_t{100'000}, std::int64_t{2'000'000}}) {
        CountOptions one{.limit = 2, .searches = searches, .threads = 1, .slice = slice};
        const CountOutcome a = count_solutions(p, one);
        ASSERT_TRUE(a.result.complete);
        EXPECT_EQ(a.result.count, 2) << "seed " << seed;  // layouts this big are ambiguous
        for (const Solution& s : a.result.solutions) EXPECT_EQ(solution_problem(p, s), "");
        for (const int threads : {2, 3}) {
          CountOptions more = one;
          more.threads = threads;
          const CountOutcome b = count_solutions(p, more);
          const auto where = ::testing::Message() << "seed " << seed << ", " << searches
                                                  << " searches, slice " << slice << ", "
                                                  << threads << " threads";
          EXPECT_EQ(a.result.count, b.result.count) << where;
          EXPECT_EQ(a.result.solutions, b.result.solutions) << where;
          EXPECT_EQ(a.answered_by, b.answered_by) << where;
          EXPECT_EQ(a.effort.rounds, b.effort.rounds) << where;
          // The answering search did the same work (the others may have stopped elsewhere).
          EXPECT_EQ(a.result.conflicts, b.result.conflicts) << where;
        }
      }
    }
  }
}

TEST(DominosaCount, SharingKeepsCountsExact) {
  // Small puzzles, many rounds of tiny slices (each ends at a conflict): every count against
  // exhaustive search.
  Rng rng(Rng::derive(31, "count-sharing"));
  for (int t = 0; t < 60; ++t) {
    const int n = 3 + t % 5;
    const Puzzle p = t % 2 ? test_puzzles::random_layout(n, rng).puzzle
                           : test_puzzles::random_grid(n, rng);
    const std::int64_t truth = test_puzzles::Brute(p).count(200);
    const CountOutcome r =
        count_solutions(p, {.limit = 200, .searches = 3, .threads = 2, .slice = 200});
    ASSERT_TRUE(r.result.complete);
    EXPECT_EQ(r.result.count, truth) << game_id(p);
  }
}

TEST(DominosaCount, LimitsGiveUnknownNeverAWrongAnswer) {
  const Puzzle p = layout(45, 4);
  const CountOutcome full = count_solutions(p, {.limit = 2, .threads = 2});
  ASSERT_TRUE(full.result.complete);
  const CountOutcome capped =
      count_solutions(p, {.limit = 2, .threads = 2, .slice = 20'000, .max_conflicts = 100});
  EXPECT_FALSE(capped.result.complete);
  EXPECT_EQ(capped.answered_by, -1);
  EXPECT_LE(capped.result.count, full.result.count);
  EXPECT_GE(capped.effort.conflicts, 100);  // the budget is checked after each round
  EXPECT_LT(capped.effort.conflicts, full.effort.conflicts);
  std::atomic<int> polls = 0;
  const CountOutcome stopped = count_solutions(
      p, {.limit = 2, .threads = 2, .stop = [&] { return ++polls > 3; }});
  if (!stopped.result.complete) {
    EXPECT_LE(stopped.result.count, full.result.count);
    EXPECT_EQ(stopped.answered_by, -1);
  }
  EXPECT_GT(polls.load(), 0);
}

}  // namespace
}  // namespace arbiter::dominosa
