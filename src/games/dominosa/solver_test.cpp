// Tests for the Dominosa solver and grader (docs/games/dominosa.md §3, §5): counts against a brute
// force (exhaustively for n <= 2, sampled for n <= 5), known unique / ambiguous / unsolvable grids,
// limits, big grids, and the grading levels (sound, nested, consistent).
#include "games/dominosa/solver.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/rng.h"
#include "games/dominosa/test_puzzles.h"

namespace arbiter::dominosa {
namespace {

using test_puzzles::Brute;
using test_puzzles::Layout;
using test_puzzles::random_grid;
using test_puzzles::random_layout;

constexpr Level kLevels[] = {Level::trivial, Level::basic, Level::hard, Level::extreme,
                             Level::ambiguous};

// Everything the solver and grader promise about one puzzle whose true count is `truth`.
void check_count(const Puzzle& p, std::int64_t truth) {
  const SolveResult all = solve(p, 1'000'000);
  ASSERT_TRUE(all.complete);
  ASSERT_EQ(all.count, truth) << game_id(p);
  if (truth >= 1) {
    ASSERT_TRUE(all.first);
    EXPECT_EQ(solution_problem(p, *all.first), "") << game_id(p);
  } else {
    EXPECT_FALSE(all.first);
  }
  if (truth >= 2) {
    ASSERT_TRUE(all.second);
    EXPECT_EQ(solution_problem(p, *all.second), "");
    EXPECT_NE(*all.first, *all.second);
  }
  const SolveResult two = solve(p, 2);
  EXPECT_EQ(two.count, std::min<std::int64_t>(truth, 2));
  // Restarting after every node or two stresses the nogoods that keep the count exact.
  for (std::int64_t restart : {1, 2, 0}) {
    SolveLimits limits;
    limits.restart_nodes = restart;
    const SolveResult again = solve(p, 1'000'000, limits);
    EXPECT_EQ(again.count, truth) << "restart every " << restart << ": " << game_id(p);
    if (again.first) {
      EXPECT_EQ(solution_problem(p, *again.first), "");
    }
    if (again.second) {
      EXPECT_EQ(solution_problem(p, *again.second), "");
      EXPECT_NE(*again.first, *again.second);
    }
  }
  const SolveResult one = solve(p, 1);
  EXPECT_EQ(one.count, std::min<std::int64_t>(truth, 1));

  // Grading: levels nest, solving by deduction implies uniqueness, grade is the lowest level.
  bool solved_below = false;
  Level lowest = Level::ambiguous;
  for (Level level : kLevels) {
    const bool s = solves_with(p, level);
    if (solved_below) {
      EXPECT_TRUE(s) << "not monotone at " << to_string(level) << " " << game_id(p);
    }
    if (s) {
      EXPECT_EQ(truth, 1) << game_id(p);
      if (!solved_below && level != Level::ambiguous) lowest = level;
    }
    solved_below = solved_below || s;
  }
  const GradeDetail g = grade_detail(p);
  EXPECT_EQ(g.level, lowest) << game_id(p);
  EXPECT_EQ(grade(p), lowest);
  if (truth >= 1) {
    EXPECT_FALSE(g.contradiction) << "a deduction is unsound: " << game_id(p);
  }
  if (!g.contradiction) {
    for (int i = 1; i < 4; ++i) EXPECT_LE(g.unplaced[i], g.unplaced[i - 1]);
  }
}

TEST(DominosaSolver, ExhaustiveN1) {
  // All C(6,3) = 20 grids of three 0s and three 1s.
  int total = 0;
  for (int mask = 0; mask < 64; ++mask) {
    if (__builtin_popcount(mask) != 3) continue;
    Puzzle p;
    p.n = 1;
    for (int i = 0; i < 6; ++i) p.grid.push_back((mask >> i) & 1);
    check_count(p, Brute(p).count());
    ++total;
  }
  EXPECT_EQ(total, 20);
}

TEST(DominosaSolver, ExhaustiveN2) {
  // All 12!/(4!)^3 = 34650 grids of four 0s, 1s and 2s; counts and grades are cross-checked.
  std::vector<int> grid = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
  int total = 0, unsolvable = 0, unique = 0;
  do {
    const Puzzle p{2, grid};
    const std::int64_t truth = Brute(p).count();
    const SolveResult r = solve(p, 1000);
    ASSERT_EQ(r.count, truth) << game_id(p);
    if (r.first) {
      ASSERT_EQ(solution_problem(p, *r.first), "");
    }
    if (r.second) {
      ASSERT_EQ(solution_problem(p, *r.second), "");
    }
    const Level g = grade(p);
    if (truth != 1) {
      ASSERT_EQ(g, Level::ambiguous) << game_id(p);
    }
    if (g != Level::ambiguous) {
      ASSERT_TRUE(solves_with(p, g));
    }
    if (truth >= 1) {
      ASSERT_FALSE(grade_detail(p).contradiction) << game_id(p);
    }
    ++total;
    unsolvable += truth == 0;
    unique += truth == 1;
  } while (std::next_permutation(grid.begin(), grid.end()));
  EXPECT_EQ(total, 34650);
  EXPECT_GT(unsolvable, 0);
  EXPECT_GT(unique, 0);
}

TEST(DominosaSolver, RandomLayoutsAgainstBruteForce) {
  Rng rng(Rng::derive(11, "solver-test-layouts"));
  for (int n = 1; n <= 4; ++n) {
    for (int t = 0; t < 150; ++t) {
      const Layout l = random_layout(n, rng);
      const std::int64_t truth = Brute(l.puzzle).count();
      ASSERT_GE(truth, 1);
      check_count(l.puzzle, truth);
      if (truth == 1) {
        EXPECT_EQ(*solve(l.puzzle).first, l.intended);
      }
    }
  }
}

TEST(DominosaSolver, RandomGridsAgainstBruteForce) {
  Rng rng(Rng::derive(12, "solver-test-grids"));
  for (int n = 1; n <= 5; ++n) {
    for (int t = 0; t < (n == 5 ? 30 : 150); ++t) {
      const Puzzle p = random_grid(n, rng);
      check_count(p, Brute(p).count());
    }
  }
}

TEST(DominosaSolver, KnownGrids) {
  // 0 1 0 / 1 0 1: every tiling uses 0-1 twice.
  const Puzzle none{1, {0, 1, 0, 1, 0, 1}};
  EXPECT_EQ(solve(none, 10).count, 0);
  EXPECT_FALSE(solve(none).first);
  EXPECT_EQ(grade(none), Level::ambiguous);
  EXPECT_TRUE(grade_detail(none).contradiction);

  // 0 0 1 / 0 1 1: all three tilings are solutions.
  const Puzzle three{1, {0, 0, 1, 0, 1, 1}};
  const SolveResult r = solve(three, 10);
  EXPECT_EQ(r.count, 3);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(grade(three), Level::ambiguous);

  // 0 0 1 / 1 1 0: unique (LRT / LRB), forced at once.
  const Puzzle unique{1, {0, 0, 1, 1, 1, 0}};
  const SolveResult u = solve(unique, 10);
  EXPECT_EQ(u.count, 1);
  EXPECT_EQ(u.first, "LRTLRB");
  EXPECT_FALSE(u.second);
  EXPECT_EQ(grade(unique), Level::trivial);
}

TEST(DominosaSolver, KnownLevels) {
  // Unique n = 6 puzzles (made by the generator, kept here as game IDs) needing each level.
  struct Case {
    const char* id;
    const char* solution;
    Level level;
  };
  const Case cases[] = {
      {"6:11435501432022461532036605644413262110055566330422054136",
       "LRTLRTTTLRBLRBBBLRLRLRLRLRLRLRLRLRLRLRTTLRTTLRBBLRBBLRLR", Level::trivial},
      {"6:11435560432022141532036605644413262110055566330422054136",
       "LRTLRTTTLRBLRBBBLRLRLRLRLRLRLRLRLRLRLRTTLRTTLRBBLRBBLRLR", Level::basic},
      {"6:24135560341022141532036605644413262110055563560422034136",
       "LRTLRTTTLRBLRBBBLRLRLRLRLRLRLRLRLRLRLRTTLRTTLRBBLRBBLRLR", Level::hard},
      {"6:32055163320451041566116602542430544401302036355241623612",
       "LRLRTTTTTTLRBBBBBBTTTTLRLRBBBBTTLRLRLRBBTLRTLRTTBLRBLRBB", Level::extreme},
  };
  for (const Case& c : cases) {
    auto p = parse_game_id(c.id);
    ASSERT_TRUE(p) << c.id;
    const SolveResult r = solve(*p, 10);
    EXPECT_EQ(r.count, 1) << c.id;
    EXPECT_EQ(r.first, c.solution);
    EXPECT_EQ(grade(*p), c.level) << c.id;
    check_count(*p, 1);
  }
}

TEST(DominosaSolver, LimitStopsCounting) {
  const Puzzle three{1, {0, 0, 1, 0, 1, 1}};
  EXPECT_EQ(solve(three, 1).count, 1);
  const SolveResult two = solve(three, 2);
  EXPECT_EQ(two.count, 2);
  ASSERT_TRUE(two.first && two.second);
  EXPECT_NE(*two.first, *two.second);
  EXPECT_EQ(solve(three, 0).count, 1);  // a limit below 1 means 1

  // A big ambiguous grid: the count stops exactly at the limit.
  Rng rng(Rng::derive(13, "limit"));
  const Puzzle p = random_layout(30, rng).puzzle;
  for (std::int64_t limit : {1, 2, 7, 100}) {
    const SolveResult s = solve(p, limit);
    EXPECT_EQ(s.count, limit);
    EXPECT_TRUE(s.complete);
    EXPECT_EQ(solution_problem(p, *s.first), "");
  }
}

TEST(DominosaSolver, NodeLimitMarksIncomplete) {
  Rng rng(Rng::derive(14, "nodes"));
  const Puzzle p = random_layout(30, rng).puzzle;
  const SolveResult full = solve(p, 1000);
  ASSERT_GT(full.nodes, 5);
  SolveLimits five;
  five.max_nodes = 5;
  const SolveResult cut = solve(p, 1000, five);
  EXPECT_FALSE(cut.complete);
  EXPECT_LE(cut.nodes, 5);
  EXPECT_LT(cut.count, 1000);
}

TEST(DominosaSolver, RejectsMalformedInput) {
  EXPECT_EQ(solve(Puzzle{2, {0, 1}}).count, 0);              // wrong size
  EXPECT_EQ(solve(Puzzle{1, {0, 0, 1, 1, 1, 7}}).count, 0);  // value out of range
  EXPECT_EQ(solve(Puzzle{1, {0, 0, 0, 0, 1, 1}}).count, 0);  // wrong value counts
  EXPECT_EQ(grade(Puzzle{1, {0, 0, 0, 0, 1, 1}}), Level::ambiguous);
  EXPECT_FALSE(solves_with(Puzzle{0, {}}, Level::ambiguous));
}

TEST(DominosaSolver, TathamGameIds) {
  // 1:010101 has no solution; 1:001110 is solved by LRT / LRB.
  auto none = parse_game_id("1:010101");
  ASSERT_TRUE(none);
  EXPECT_EQ(solve(*none, 5).count, 0);
  auto unique = parse_game_id("1dt:001110");
  ASSERT_TRUE(unique);
  EXPECT_EQ(solve(*unique, 5).count, 1);
  EXPECT_EQ(solve(*unique).first, "LRTLRB");

  // A random n = 12 layout round-trips through a game ID with bracketed values and is solved.
  Rng rng(Rng::derive(15, "ids"));
  const Layout l = random_layout(12, rng);
  const std::string id = game_id(l.puzzle);
  EXPECT_NE(id.find("[12]"), std::string::npos);
  auto back = parse_game_id(id);
  ASSERT_TRUE(back);
  const SolveResult r = solve(*back, 2);
  ASSERT_GE(r.count, 1);
  EXPECT_EQ(solution_problem(l.puzzle, *r.first), "");
}

TEST(DominosaSolver, BigLayoutsWithinANodeBudget) {
  // Random layouts are hard instances (Dominosa is NP-complete; their solutions are the planted
  // one and a few local variants), so a big one is searched within a node budget: whatever is
  // reported must be right, and the budget must be honoured quickly.
  Rng rng(Rng::derive(16, "big"));
  for (int n : {60, 100}) {
    const Layout l = random_layout(n, rng);
    const auto start = std::chrono::steady_clock::now();
    SolveLimits budget;
    budget.max_nodes = 200;
    const SolveResult r = solve(l.puzzle, 2, budget);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LE(r.nodes, 200);
    if (r.first) {
      EXPECT_EQ(solution_problem(l.puzzle, *r.first), "");
    }
    if (r.second) {
      EXPECT_EQ(solution_problem(l.puzzle, *r.second), "");
    }
    if (r.complete) {
      EXPECT_GE(r.count, 1);
    }
    EXPECT_LT(seconds, 30.0) << "n=" << n;
  }
}

// A big layout that search handles well: rows of horizontal tiles carrying the set in order,
// each tile turned at random (many local alternatives, found quickly).
Puzzle sorted_layout(int n, Rng& rng) {
  Puzzle p;
  p.n = n;
  for (int a = 0; a <= n; ++a) {
    for (int b = a; b <= n; ++b) {
      const bool turn = rng.below(2) != 0;
      p.grid.push_back(turn ? b : a);
      p.grid.push_back(turn ? a : b);
    }
  }
  return p;
}

TEST(DominosaSolver, BigSortedLayoutsCount) {
  Rng rng(Rng::derive(20, "sorted"));
  for (int n : {60, 100}) {  // n even: the width n+2 is even, rows of horizontal tiles fit
    const Puzzle p = sorted_layout(n, rng);
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t limit : {2, 100}) {
      const SolveResult r = solve(p, limit);
      EXPECT_EQ(r.count, limit) << "n=" << n;
      EXPECT_TRUE(r.complete);
      ASSERT_TRUE(r.first && r.second);
      EXPECT_EQ(solution_problem(p, *r.first), "");
      EXPECT_EQ(solution_problem(p, *r.second), "");
      EXPECT_NE(*r.first, *r.second);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 20.0) << "n=" << n;
  }
}

TEST(DominosaSolver, RestartsCountAlike) {
  // Counting across restarts relies on the nogoods; any restart schedule gives the same count.
  Rng rng(Rng::derive(21, "restarts"));
  for (int t = 0; t < 12; ++t) {
    const int n = 6 + t % 5;
    const Puzzle p = t % 2 ? random_layout(n, rng).puzzle : sorted_layout(n + n % 2, rng);
    std::int64_t expected = -1;
    for (std::int64_t restart : {0, 1, 3, 64, 1024}) {
      SolveLimits limits;
      limits.restart_nodes = restart;
      const SolveResult r = solve(p, 5000, limits);
      ASSERT_TRUE(r.complete);
      if (expected < 0) expected = r.count;
      EXPECT_EQ(r.count, expected) << "restart every " << restart << ": " << game_id(p);
    }
  }
}

TEST(DominosaGrade, TrivialPuzzlesGradeTrivial) {
  Rng rng(Rng::derive(18, "grades"));
  int trivial = 0;
  int per_level[5] = {};
  for (int t = 0; t < 400; ++t) {
    const int n = 3 + static_cast<int>(rng.below(6));
    const Layout l = random_layout(n, rng);
    const Level g = grade(l.puzzle);
    ++per_level[static_cast<int>(g)];
    if (solves_with(l.puzzle, Level::trivial)) {
      EXPECT_EQ(g, Level::trivial);
      ++trivial;
    }
    // Nested levels (each from scratch); grade (levels in turn) is the lowest; solving by
    // deduction means unique, with the intended solution.
    bool below = false;
    Level lowest = Level::ambiguous;
    for (Level level : kLevels) {
      const bool s = solves_with(l.puzzle, level);
      if (below) {
        EXPECT_TRUE(s);
      }
      if (s && !below && level != Level::ambiguous) lowest = level;
      below = below || s;
    }
    EXPECT_EQ(g, lowest) << game_id(l.puzzle);
    if (g != Level::ambiguous) {
      const SolveResult r = solve(l.puzzle, 2);
      EXPECT_EQ(r.count, 1);
      EXPECT_EQ(*r.first, l.intended);
    }
  }
  EXPECT_GT(trivial, 0);
  EXPECT_GT(per_level[static_cast<int>(Level::basic)], 0);
}

TEST(DominosaGrade, UnplacedShrinksWithLevel) {
  Rng rng(Rng::derive(19, "unplaced"));
  for (int t = 0; t < 20; ++t) {
    const Layout l = random_layout(20, rng);
    const GradeDetail g = grade_detail(l.puzzle);
    EXPECT_FALSE(g.contradiction);
    for (int i = 1; i < 4; ++i) EXPECT_LE(g.unplaced[i], g.unplaced[i - 1]);
    if (g.level != Level::ambiguous) {
      EXPECT_EQ(g.unplaced[static_cast<int>(g.level)], 0);
    }
  }
}

}  // namespace
}  // namespace arbiter::dominosa
