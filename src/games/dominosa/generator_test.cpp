// Tests for the Dominosa generator (docs/games/dominosa.md §5): unique puzzles at the requested
// level, reproducible from the seed, the same for any number of executor lanes (the threaded
// driver's own tests are in src/apps/dominosa_generate_test.cpp).
#include "games/dominosa/generator.h"

#include <atomic>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "games/dominosa/solver.h"

namespace arbiter::dominosa {
namespace {

// An independent exhaustive counter for small grids (no propagation): pairs the first free cell
// with its right or lower neighbour when that domino is unused. Stops at `limit`.
class BruteCounter {
 public:
  explicit BruteCounter(const Puzzle& p)
      : p_(p), mate_(p.cells(), -1), used_(domino_count(p.n), 0) {}
  int count(int limit) {
    limit_ = limit;
    found_ = 0;
    dfs(0);
    return found_;
  }

 private:
  void dfs(int from) {
    int c = from;
    while (c < p_.cells() && mate_[c] >= 0) ++c;
    if (c == p_.cells()) {
      ++found_;
      return;
    }
    const int w = p_.cols();
    for (int m : {c % w + 1 < w ? c + 1 : -1, c + w < p_.cells() ? c + w : -1}) {
      if (m < 0 || mate_[m] >= 0) continue;
      const int d = domino_index(p_.grid[c], p_.grid[m], p_.n);
      if (used_[d]) continue;
      used_[d] = 1;
      mate_[c] = m;
      mate_[m] = c;
      dfs(c + 1);
      used_[d] = 0;
      mate_[c] = mate_[m] = -1;
      if (found_ >= limit_) return;
    }
  }

  const Puzzle& p_;
  std::vector<int> mate_;
  std::vector<char> used_;
  int limit_ = 2, found_ = 0;
};

GenerateOptions options(int n, Level level, std::uint64_t seed) {
  GenerateOptions o;
  o.n = n;
  o.level = level;
  o.seed = seed;
  return o;
}

// The checks every generated puzzle passes.
void expect_good(const Generated& g, int n, Level level) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", level " + std::string(to_string(level)));
  ASSERT_TRUE(check_puzzle(g.puzzle).has_value());
  EXPECT_EQ(g.puzzle.n, n);
  EXPECT_EQ(solution_problem(g.puzzle, g.solution), "");
  EXPECT_EQ(g.level, level);
  if (level == Level::ambiguous) return;
  const SolveResult r = solve(g.puzzle, 2);
  EXPECT_EQ(r.count, 1);
  ASSERT_TRUE(r.first.has_value());
  EXPECT_EQ(*r.first, g.solution);
  EXPECT_EQ(grade(g.puzzle), level);
  EXPECT_TRUE(solves_with(g.puzzle, level));
  if (level != Level::trivial) {
    EXPECT_FALSE(solves_with(g.puzzle, static_cast<Level>(static_cast<int>(level) - 1)));
  }
  if (n <= 5) {
    EXPECT_EQ(BruteCounter(g.puzzle).count(2), 1);
  }
}

TEST(DominosaGenerator, AmbiguousIsAnyValidLayoutAtEverySize) {
  for (int n : {1, 2, 3, 4, 7, 12, 30, 100}) {
    auto g = generate(options(n, Level::ambiguous, 5));
    ASSERT_TRUE(g.has_value()) << n;
    expect_good(*g, n, Level::ambiguous);
    EXPECT_EQ(g->attempt, 0u);
  }
}

TEST(DominosaGenerator, TrivialPuzzlesAreUniqueAndTrivial) {
  for (int n : {1, 2, 3, 4, 5, 6, 10, 20}) {
    for (std::uint64_t seed : {1, 2, 3}) {
      auto g = generate(options(n, Level::trivial, seed));
      ASSERT_TRUE(g.has_value()) << n << " " << seed;
      expect_good(*g, n, Level::trivial);
    }
  }
}

TEST(DominosaGenerator, BasicPuzzlesAreUniqueAndBasic) {
  for (int n : {3, 4, 5, 6, 10, 15}) {
    for (std::uint64_t seed : {1, 2, 3}) {
      auto g = generate(options(n, Level::basic, seed));
      ASSERT_TRUE(g.has_value()) << n << " " << seed;
      expect_good(*g, n, Level::basic);
    }
  }
}

TEST(DominosaGenerator, HardPuzzlesAreUniqueAndHard) {
  for (int n : {5, 6, 8, 10}) {
    for (std::uint64_t seed : {1, 2}) {
      auto g = generate(options(n, Level::hard, seed));
      ASSERT_TRUE(g.has_value()) << n << " " << seed;
      expect_good(*g, n, Level::hard);
    }
  }
}

TEST(DominosaGenerator, ExtremePuzzlesAreUniqueAndExtreme) {
  for (int n : {6, 8, 10}) {
    auto g = generate(options(n, Level::extreme, 1));
    ASSERT_TRUE(g.has_value()) << n;
    expect_good(*g, n, Level::extreme);
  }
}

TEST(DominosaGenerator, LargeTrivialAndBasic) {
  auto t = generate(options(60, Level::trivial, 7));
  ASSERT_TRUE(t.has_value());
  expect_good(*t, 60, Level::trivial);
  auto b = generate(options(30, Level::basic, 1));
  ASSERT_TRUE(b.has_value());
  expect_good(*b, 30, Level::basic);
}

TEST(DominosaGenerator, SameSeedSamePuzzle) {
  for (Level level : {Level::trivial, Level::basic, Level::hard, Level::ambiguous}) {
    auto a = generate(options(8, level, 42));
    auto b = generate(options(8, level, 42));
    ASSERT_TRUE(a.has_value() && b.has_value());
    EXPECT_EQ(a->puzzle, b->puzzle);
    EXPECT_EQ(a->solution, b->solution);
    EXPECT_EQ(a->attempt, b->attempt);
    auto c = generate(options(8, level, 43));
    ASSERT_TRUE(c.has_value());
    EXPECT_NE(a->puzzle, c->puzzle);
  }
}

TEST(DominosaGenerator, GenerateReturnsTheFirstSuccessfulAttempt) {
  const auto o = options(3, Level::hard, 3);  // hard puzzles are rare at n = 3
  auto g = generate(o);
  ASSERT_TRUE(g.has_value());
  EXPECT_GT(g->attempt, 0u);
  for (std::uint64_t i = 0; i < g->attempt; ++i) EXPECT_FALSE(generate_attempt(o, i).has_value());
  auto again = generate_attempt(o, g->attempt);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->puzzle, g->puzzle);
}

TEST(DominosaGenerator, StopCancels) {
  auto g = generate(options(40, Level::trivial, 1), [] { return true; });
  EXPECT_FALSE(g.has_value());
}

// An executor that runs the jobs of a round backwards, on the calling thread: the result must not
// notice.
Executor backwards(int lanes) {
  Executor e;
  e.lanes = lanes;
  e.run = [](int count, const std::function<void(int)>& job) {
    for (int i = count - 1; i >= 0; --i) job(i);
  };
  return e;
}

TEST(DominosaGenerator, ExecutorLanesDoNotChangeTheResult) {
  for (Level level : {Level::basic, Level::hard, Level::extreme}) {
    for (std::uint64_t seed : {1, 2, 3}) {
      const auto o = options(level == Level::basic ? 25 : 9, level, seed);
      auto serial = generate(o);
      ASSERT_TRUE(serial.has_value());
      for (int lanes : {2, 3, 5}) {
        auto other = generate(o, {}, backwards(lanes));
        ASSERT_TRUE(other.has_value()) << lanes;
        EXPECT_EQ(other->puzzle, serial->puzzle) << lanes;
        EXPECT_EQ(other->attempt, serial->attempt);
        EXPECT_EQ(other->stats.grades, serial->stats.grades);
        EXPECT_EQ(other->stats.moves, serial->stats.moves);
      }
    }
  }
}

TEST(DominosaGenerator, BruteCounterAgreesWithTheSolverOnRandomLayouts) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    auto g = generate(options(1 + static_cast<int>(seed % 4), Level::ambiguous, seed));
    ASSERT_TRUE(g.has_value());
    const auto brute = BruteCounter(g->puzzle).count(3);
    EXPECT_EQ(solve(g->puzzle, 3).count, brute) << game_id(g->puzzle);
  }
}

}  // namespace
}  // namespace arbiter::dominosa
