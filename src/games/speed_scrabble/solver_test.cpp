// The house solver: every board it returns is valid for exactly its tiles (checked by the
// validator, board_problem), it finds boards for nearly every seeded hand, it extends boards as
// tiles arrive, it gives up quickly on impossible hands, and it is deterministic.
#include "games/speed_scrabble/solver.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/rng.h"
#include "games/speed_scrabble/state.h"

namespace arbiter::speed_scrabble {
namespace {

const Dictionary& scowl() {
  static const Dictionary d = [] {
    auto dict = Dictionary::scowl(70);
    if (!dict) throw std::runtime_error(dict.error().message);
    return std::move(*dict);
  }();
  return d;
}

const std::shared_ptr<const SolverIndex>& scowl_index() {
  static const auto ix = make_solver_index(scowl());
  return ix;
}

// The first `k` tiles of the Bananagrams bag shuffled with `seed`.
Tiles hand(std::uint64_t seed, int k) {
  std::string bag = bag_letters("bananagrams");
  Rng rng(Rng::derive(seed, "solver-test-hand"));
  rng.shuffle(bag.begin(), bag.end());
  return bag.substr(0, static_cast<std::size_t>(k));
}

std::string show(const Board& b) {
  std::string out;
  for (const auto& row : b) out += "\n  " + row;
  return out;
}

// --- a tiny dictionary: the shapes are forced

TEST(SolverTiny, OneWordUsesEveryTile) {
  const Dictionary dict = Dictionary::of({"cat", "at"});
  Solver solver(dict);
  const auto b = solver.solve("TAC");
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, (Board{"CAT"}));
}

TEST(SolverTiny, TwoWordsCross) {
  const Dictionary dict = Dictionary::of({"cat", "top"});
  Solver solver(dict);
  const auto b = solver.solve("POTAC");
  ASSERT_TRUE(b);
  EXPECT_EQ(board_problem(*b, "POTAC", dict), "") << show(*b);
  EXPECT_EQ(b->size() * (*b)[0].size(), 9u) << show(*b);  // 3 x 3, crossing at the T
}

TEST(SolverTiny, SideBySideWordsMakeOnlyWords) {
  // AABB: every run must be one of these four; the solver may lay words side by side only where
  // the cross runs are words too.
  const Dictionary dict = Dictionary::of({"ab", "ba"});
  Solver solver(dict);
  const auto b = solver.solve("AABB");
  ASSERT_TRUE(b);
  EXPECT_EQ(board_problem(*b, "AABB", dict), "") << show(*b);
}

TEST(SolverTiny, ChainOfHooks) {
  const Dictionary dict = Dictionary::of({"at", "to", "ox", "xi", "in", "no"});
  Solver solver(dict);
  for (const std::string tiles : {"ATOXIN", "NIXOTA", "TOXIN", "OXINAT"}) {
    const auto b = solver.solve(tiles);
    ASSERT_TRUE(b) << tiles;
    EXPECT_EQ(board_problem(*b, tiles, dict), "") << tiles << show(*b);
  }
}

TEST(SolverTiny, NothingWhenNoBoardExists) {
  const Dictionary dict = Dictionary::of({"cat", "dog"});
  Solver solver(dict);
  EXPECT_FALSE(solver.solve("CATDOG"));  // no shared letter to cross at
  EXPECT_FALSE(solver.solve("CATS"));
  EXPECT_FALSE(solver.solve("QQQQ"));
}

TEST(SolverTiny, RejectsWhatIsNoHand) {
  const Dictionary dict = Dictionary::of({"cat", "at"});
  Solver solver(dict);
  EXPECT_FALSE(solver.solve(""));
  EXPECT_FALSE(solver.solve("A"));    // a lone letter is not a board
  EXPECT_FALSE(solver.solve("cat"));  // tiles are upper-case letters
  EXPECT_FALSE(solver.solve("CA T"));
  EXPECT_EQ(solver.last_stats().nodes, 0);
}

TEST(SolverTiny, ExtendsByLengtheningAWord) {
  const Dictionary dict = Dictionary::of({"cat", "cats", "scat"});
  Solver solver(dict);
  const auto b = solver.extend({"CAT"}, "CATS");
  ASSERT_TRUE(b);
  EXPECT_EQ(board_problem(*b, "CATS", dict), "") << show(*b);
  EXPECT_TRUE(solver.last_stats().extended);
}

TEST(SolverTiny, ExtendsByHookingAWordOn) {
  const Dictionary dict = Dictionary::of({"cat", "top", "pi"});
  Solver solver(dict);
  const Board previous{"CAT", "..O", "..P"};
  const auto b = solver.extend(previous, "CATOPI");
  ASSERT_TRUE(b);
  EXPECT_EQ(board_problem(*b, "CATOPI", dict), "") << show(*b);
  EXPECT_TRUE(solver.last_stats().extended);
  // Everything of the previous board is still there, in place.
  for (std::size_t r = 0; r < previous.size(); ++r)
    for (std::size_t c = 0; c < previous[r].size(); ++c)
      if (previous[r][c] != '.') {
        EXPECT_EQ((*b)[r][c], previous[r][c]) << show(*b);
      }
}

TEST(SolverTiny, ExtendRebuildsWhenThePreviousBoardCannotGrow) {
  // CAT cannot take an O (no word crosses or contains it), COAT is the only board.
  const Dictionary dict = Dictionary::of({"cat", "coat"});
  Solver solver(dict);
  const auto b = solver.extend({"CAT"}, "CATO");
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, (Board{"COAT"}));
  EXPECT_FALSE(solver.last_stats().extended);
}

TEST(SolverTiny, ExtendIgnoresABadPreviousBoard) {
  const Dictionary dict = Dictionary::of({"cat", "top"});
  Solver solver(dict);
  for (const Board& previous : {Board{"CTA"}, Board{"CAT", "...", "TOP"}, Board{"DOG"},
                                Board{"CAT", "..O"}, Board{}, Board{"CA", "T"}}) {
    const auto b = solver.extend(previous, "CATOP");
    ASSERT_TRUE(b);
    EXPECT_EQ(board_problem(*b, "CATOP", dict), "") << show(*b);
    EXPECT_FALSE(solver.last_stats().extended);
  }
}

TEST(SolverTiny, ExtendWithNoNewTileKeepsTheBoard) {
  const Dictionary dict = Dictionary::of({"cat", "top"});
  Solver solver(dict);
  const Board previous{"CAT", "..O", "..P"};
  EXPECT_EQ(solver.extend(previous, "CATOP"), previous);
}

// --- scowl-70 and the Bananagrams bag

TEST(SolverScowl, SolvesNearlyEverySeededFifteenTileHand) {
  Solver solver(scowl_index());
  int solved = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const Tiles tiles = hand(seed, 15);
    const auto b = solver.solve(tiles);
    if (!b) continue;
    ++solved;
    EXPECT_EQ(board_problem(*b, tiles, scowl()), "") << tiles << show(*b);
  }
  EXPECT_GE(solved, 190) << "of 200";
}

TEST(SolverScowl, SolvesTwentyOneTileHands) {
  Solver solver(scowl_index());
  int solved = 0;
  for (std::uint64_t seed = 1000; seed < 1040; ++seed) {
    const Tiles tiles = hand(seed, 21);
    const auto b = solver.solve(tiles);
    if (!b) continue;
    ++solved;
    EXPECT_EQ(board_problem(*b, tiles, scowl()), "") << tiles << show(*b);
    EXPECT_LE(b->size(), static_cast<std::size_t>(kMaxSide));
  }
  EXPECT_GE(solved, 38) << "of 40";
}

TEST(SolverScowl, ExtendsAsTilesArriveFromSevenToTwentyOne) {
  Solver solver(scowl_index());
  int full = 0, steps = 0, grown = 0, ripped = 0;
  for (std::uint64_t seed = 2000; seed < 2020; ++seed) {
    const Tiles all = hand(seed, 21);
    std::optional<Board> board = solver.solve(all.substr(0, 7));
    for (int k = 8; k <= 21; ++k) {
      const Tiles tiles = all.substr(0, static_cast<std::size_t>(k));
      auto next = board ? solver.extend(*board, tiles) : solver.solve(tiles);
      if (!next) continue;  // kept for the next tile, as a racer does
      EXPECT_EQ(board_problem(*next, tiles, scowl()), "") << tiles << show(*next);
      ++steps;
      if (solver.last_stats().extended) ++grown;
      if (solver.last_stats().ripped) ++ripped;
      if (k == 21) ++full;
      board = std::move(next);
    }
  }
  EXPECT_GE(full, 19) << "of 20";
  EXPECT_GE(grown, steps * 3 / 4) << "of " << steps << " boards grown from the previous one";
  EXPECT_GT(ripped, 0);
}

TEST(SolverScowl, GivesUpQuicklyOnImpossibleHands) {
  Solver solver(scowl_index());
  // No word has these letters (checked before any search).
  for (const char* tiles : {"QQQQ", "XX", "JTLGNRDMFSYKMTD", "ZZZZZZZZZ"}) {
    EXPECT_FALSE(solver.solve(tiles)) << tiles;
    EXPECT_EQ(solver.last_stats().nodes, 0) << tiles;
  }
  // A hand with no board found in 3 million nodes: the budget bounds the search.
  EXPECT_FALSE(solver.solve("TTENCQNUPWIGLQJ", {.max_nodes = 500}));
  EXPECT_LE(solver.last_stats().nodes, 501);
  EXPECT_GT(solver.last_stats().nodes, 0);
}

TEST(SolverScowl, IsDeterministic) {
  Solver a(scowl_index()), b(scowl_index());
  Solver c(scowl_index());
  (void)c.solve(hand(99, 21));  // a solver's earlier calls change nothing
  for (std::uint64_t seed = 300; seed < 320; ++seed) {
    const Tiles tiles = hand(seed, 15);
    const auto first = a.solve(tiles);
    EXPECT_EQ(a.solve(tiles), first) << tiles;
    EXPECT_EQ(b.solve(tiles), first) << tiles;
    EXPECT_EQ(c.solve(tiles), first) << tiles;
    if (first) {
      const Tiles more = hand(seed, 16);
      EXPECT_EQ(a.extend(*first, more), c.extend(*first, more)) << more;
    }
  }
}

TEST(SolverScowl, SolverFromADictionaryMatchesOneFromAnIndex) {
  const Dictionary small = Dictionary::of({"quiz", "zit", "it", "ti", "qi", "quit", "suit"});
  Solver from_dict(small);
  Solver from_index(make_solver_index(small));
  const auto b = from_dict.solve("QUIZIT");
  ASSERT_TRUE(b);
  EXPECT_EQ(board_problem(*b, "QUIZIT", small), "") << show(*b);
  EXPECT_EQ(from_index.solve("QUIZIT"), b);
}

}  // namespace
}  // namespace arbiter::speed_scrabble
