// Tests for the learning search (solver_learning.h): exact counts against plain exhaustive search
// on small random layouts and grids (n <= 8) over many seeds and against the deduction engine up
// to n = 25, solutions valid and distinct,
// determinism, slices and stops that never change an answer, and shared clauses that every
// solution satisfies.
#include "games/dominosa/solver_learning.h"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "core/rng.h"
#include "games/dominosa/solver.h"
#include "games/dominosa/test_puzzles.h"

namespace arbiter::dominosa {
namespace {

using test_puzzles::Brute;
using test_puzzles::random_grid;
using test_puzzles::random_layout;

// Everything count_learning promises about `p`, whose exhaustive count up to `limit` is `truth`.
void expect_learned_count(const Puzzle& p, std::int64_t limit, std::int64_t truth,
                          std::uint64_t seed) {
  const LearningResult r = count_learning(p, limit, seed);
  ASSERT_TRUE(r.complete);
  ASSERT_EQ(r.count, truth) << "limit " << limit << ", seed " << seed << ": " << game_id(p);
  ASSERT_EQ(r.solutions.size(), static_cast<std::size_t>(std::min<std::int64_t>(truth, 2)));
  for (const Solution& s : r.solutions) EXPECT_EQ(solution_problem(p, s), "") << game_id(p);
  if (r.solutions.size() == 2) {
    EXPECT_NE(r.solutions[0], r.solutions[1]);
  }
}

TEST(DominosaLearning, RandomLayoutsCountLikeExhaustiveSearch) {
  Rng rng(Rng::derive(21, "learning-layouts"));
  for (int n = 1; n <= 8; ++n) {
    for (int t = 0; t < (n <= 5 ? 200 : 80); ++t) {
      const Puzzle p = random_layout(n, rng).puzzle;
      const std::int64_t limit = n <= 4 ? 1'000'000 : 50;  // every solution, or a cap
      const std::int64_t truth = Brute(p).count(limit);
      ASSERT_GE(truth, 1);
      expect_learned_count(p, limit, truth, static_cast<std::uint64_t>(t));
      expect_learned_count(p, 2, std::min<std::int64_t>(truth, 2), 0);
    }
  }
}

TEST(DominosaLearning, RandomGridsCountLikeExhaustiveSearch) {
  // Grids with the right value counts and no layout behind them: mostly no solution at all.
  Rng rng(Rng::derive(22, "learning-grids"));
  int none = 0;
  for (int n = 1; n <= 8; ++n) {
    for (int t = 0; t < (n <= 5 ? 200 : 60); ++t) {
      const Puzzle p = random_grid(n, rng);
      const std::int64_t truth = Brute(p).count(1000);
      none += truth == 0;
      expect_learned_count(p, 1000, truth, static_cast<std::uint64_t>(t));
    }
  }
  EXPECT_GT(none, 100);
}

TEST(DominosaLearning, AgreesWithTheDeductionEngineBeyondExhaustiveSearch) {
  // Sizes where plain exhaustive search is too slow: the two exact solvers must agree.
  Rng rng(Rng::derive(26, "learning-vs-engine"));
  for (int t = 0; t < 40; ++t) {
    const int n = 10 + t % 16;
    const Puzzle p = t % 4 == 3 ? random_grid(n, rng) : random_layout(n, rng).puzzle;
    const SolveResult engine = solve(p, 20);
    ASSERT_TRUE(engine.complete);
    const LearningResult learned = count_learning(p, 20, static_cast<std::uint64_t>(t));
    ASSERT_TRUE(learned.complete);
    EXPECT_EQ(learned.count, engine.count) << game_id(p);
    for (const Solution& s : learned.solutions) EXPECT_EQ(solution_problem(p, s), "");
  }
}

TEST(DominosaLearning, SameInputSameAnswerAndEffort) {
  Rng rng(Rng::derive(23, "learning-determinism"));
  const Puzzle p = random_layout(30, rng).puzzle;
  const LearningResult a = count_learning(p, 2, 5), b = count_learning(p, 2, 5);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.solutions, b.solutions);
  EXPECT_EQ(a.conflicts, b.conflicts);
  EXPECT_EQ(a.decisions, b.decisions);
}

TEST(DominosaLearning, SlicesAndStopsNeverChangeTheAnswer) {
  Rng rng(Rng::derive(24, "learning-slices"));
  for (int t = 0; t < 6; ++t) {
    const Puzzle p = random_layout(25, rng).puzzle;
    const LearningResult whole = count_learning(p, 3, 1);
    ASSERT_TRUE(whole.complete);
    LearningSearch sliced(p, 3, 1);
    int slices = 0;
    while (!sliced.run(7)) ++slices;
    EXPECT_EQ(sliced.result().count, whole.count);
    EXPECT_EQ(sliced.result().solutions, whole.solutions);
    EXPECT_EQ(sliced.result().conflicts, whole.conflicts);
    LearningSearch by_work(p, 3, 1);
    while (!by_work.run(-1, {}, 5000)) {
    }
    EXPECT_EQ(by_work.result().solutions, whole.solutions);
    EXPECT_EQ(by_work.result().conflicts, whole.conflicts);
    LearningSearch at_once(p, 3, 1);
    at_once.run(-1);
    EXPECT_EQ(by_work.work(), at_once.work());
    if (whole.conflicts > 7) {
      EXPECT_GT(slices, 0);
    }
    // Stopped at once, or given no conflicts to spend: never complete, never a wrong count.
    const LearningResult stopped = count_learning(p, 3, 1, -1, [] { return true; });
    if (!stopped.complete) {
      EXPECT_LE(stopped.count, whole.count);
    }
    const LearningResult capped = count_learning(p, 3, 1, 1);
    if (!capped.complete) {
      EXPECT_LE(capped.count, whole.count);
    }
  }
}

TEST(DominosaLearning, SharedClausesHoldForEverySolution) {
  Rng rng(Rng::derive(25, "learning-shared"));
  int checked = 0;
  for (int t = 0; t < 40; ++t) {
    const Puzzle p = random_layout(7, rng).puzzle;
    std::vector<Solution> all;
    if (Brute(p).count(5000, &all) >= 5000) continue;  // too many to check them all
    // Which placement each solution uses, by the numbering of solver_learning.h.
    const int w = p.cols();
    const auto used = [&](const Solution& s, int v) {
      int k = 0;
      for (int a = 0; a < p.cells(); ++a)
        for (const int b : {a % w + 1 < w ? a + 1 : -1, a + w < p.cells() ? a + w : -1}) {
          if (b < 0) continue;
          if (k++ == v) return (b == a + 1 && s[a] == 'L') || (b == a + w && s[a] == 'T');
        }
      return false;
    };
    LearningSearch search(p, 1'000'000, static_cast<std::uint64_t>(t), true);
    for (bool done = false; !done;) {
      done = search.run(3);
      for (const SharedClause& c : search.take_shared()) {
        for (const Solution& s : all) {
          const bool satisfied = std::any_of(c.begin(), c.end(), [&](int l) {
            return used(s, l / 2) == (l % 2 == 0);
          });
          ASSERT_TRUE(satisfied) << "a shared clause excludes a solution of " << game_id(p);
        }
        ++checked;
      }
    }
    EXPECT_EQ(search.result().count, static_cast<std::int64_t>(all.size()));
  }
  EXPECT_GT(checked, 0);
  // Without `share`, nothing is kept to hand out.
  LearningSearch quiet(random_layout(7, rng).puzzle, 1'000'000, 0);
  quiet.run(-1);
  EXPECT_TRUE(quiet.take_shared().empty());
}

}  // namespace
}  // namespace arbiter::dominosa
