// Tests for Dominosa's puzzle model and formats (docs/games/dominosa.md §1-2).
#include "games/dominosa/puzzle.h"

#include <set>

#include <gtest/gtest.h>

#include "core/rng.h"

namespace arbiter::dominosa {
namespace {

// 0 0 1
// 1 1 0   solved by LR T / LR B: 0-0 across, 1-1 across, 1-0 down.
const Puzzle kSmall{1, {0, 0, 1, 1, 1, 0}};

// A random valid layout: the dominoes in rows of horizontal pairs (n+2 is ... any parity works
// row by row only when n+2 is even; otherwise pair vertically in the last column), shuffled.
Puzzle random_puzzle(int n, Rng& rng) {
  std::vector<std::pair<int, int>> set;
  for (int a = 0; a <= n; ++a)
    for (int b = a; b <= n; ++b) set.emplace_back(a, b);
  rng.shuffle(set.begin(), set.end());
  Puzzle p;
  p.n = n;
  p.grid.assign(p.cells(), -1);
  std::size_t next = 0;
  const int w = p.cols(), h = p.rows();
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c) {
      if (p.grid[r * w + c] >= 0) continue;
      auto [a, b] = set[next++];
      if (rng.below(2)) std::swap(a, b);
      if (c + 1 < w && p.grid[r * w + c + 1] < 0) {
        p.grid[r * w + c] = a;
        p.grid[r * w + c + 1] = b;
      } else {
        p.grid[r * w + c] = a;
        p.grid[(r + 1) * w + c] = b;
      }
    }
  return p;
}

TEST(Dominoes, IndicesCoverTheSetOnce) {
  for (int n : {1, 2, 6, 30}) {
    std::set<int> seen;
    for (int a = 0; a <= n; ++a)
      for (int b = a; b <= n; ++b) {
        const int i = domino_index(a, b, n);
        EXPECT_EQ(i, domino_index(b, a, n));
        EXPECT_GE(i, 0);
        EXPECT_LT(i, domino_count(n));
        seen.insert(i);
      }
    EXPECT_EQ(static_cast<int>(seen.size()), domino_count(n));
  }
}

TEST(Solution, ChecksPairsAndDominoes) {
  EXPECT_EQ(solution_problem(kSmall, "LRTLRB"), "");
  EXPECT_NE(solution_problem(kSmall, "LRT"), "");
  EXPECT_NE(solution_problem(kSmall, "LRTLRX"), "");
  EXPECT_NE(solution_problem(kSmall, "RLTLRB"), "");  // points off the grid
  EXPECT_NE(solution_problem(kSmall, "LLTLRB").find("partner"), std::string::npos);
  // 0-1 twice: 0 down to 1, 0 down... grid 0 0 1 / 1 1 0 with T T T / B B B uses 0-1, 0-1, 0-1.
  EXPECT_NE(solution_problem(kSmall, "TTTBBB").find("twice"), std::string::npos);
}

TEST(GameId, RoundTripsAndReadsTathamsForms) {
  EXPECT_EQ(game_id(kSmall), "1:001110");
  auto p = parse_game_id("1:001110");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(*p, kSmall);
  EXPECT_EQ(*parse_game_id("1db:001110"), kSmall);      // difficulty accepted and ignored
  EXPECT_EQ(*parse_game_id("  1:[0]01110\n"), kSmall);  // a bracketed single digit
  Rng rng(3);
  const Puzzle big = random_puzzle(12, rng);
  const std::string id = game_id(big);
  EXPECT_NE(id.find("[12]"), std::string::npos);  // values >= 10 are bracketed
  EXPECT_EQ(*parse_game_id(id), big);
}

TEST(GameId, ClearErrors) {
  for (const char* bad :
       {"", "001110", "x:001110", "1:00111", "1:0011100", "1:001112", "1:00111a", "1:0011[0",
        "1:0011[]0", "1dq:001110", "1:000111x", "0:00", "1:000000", "99999999:0"}) {
    auto p = parse_game_id(bad);
    EXPECT_FALSE(p) << bad;
  }
  EXPECT_NE(parse_game_id("1:000000").error().message.find("occurs"), std::string::npos);
  // Found by fuzz/targets/dominosa_codec.cpp: what was given is quoted as JSON, so the error is
  // one line whatever bytes it holds.
  for (const std::string& bad : {std::string("[\"v,\n\xa8:00"), std::string("1d\n:0011"),
                                std::string("1:00[1\n2]")}) {
    auto p = parse_game_id(bad);
    ASSERT_FALSE(p) << bad;
    EXPECT_EQ(p.error().message.find('\n'), std::string::npos) << p.error().message;
  }
}

TEST(Text, RoundTripsAndChecks) {
  EXPECT_EQ(to_text(kSmall), "0 0 1\n1 1 0\n");
  EXPECT_EQ(*parse_text("0 0 1\n1 1 0\n"), kSmall);
  EXPECT_EQ(*parse_text("\n  0 0 1  \r\n\n1 1 0"), kSmall);
  Rng rng(5);
  const Puzzle big = random_puzzle(15, rng);
  EXPECT_EQ(*parse_text(to_text(big)), big);
  EXPECT_FALSE(parse_text("0 0 1\n1 1\n"));
  EXPECT_FALSE(parse_text("0 0 x\n1 1 0\n"));
  EXPECT_FALSE(parse_text(""));
  EXPECT_FALSE(parse_text("0 0 0\n1 1 1 \n2 2 2\n"));
}

TEST(Json, RoundTripsAndChecks) {
  EXPECT_EQ(to_json(kSmall), Json::parse(R"({"n": 1, "grid": [[0, 0, 1], [1, 1, 0]]})"));
  EXPECT_EQ(*parse_json_puzzle(to_json(kSmall)), kSmall);
  for (const char* bad :
       {R"({"n": 1})", R"({"n": 1, "grid": [[0, 0, 1]]})",
        R"({"n": 1, "grid": [[0, 0, 1], [1, 1]]})", R"({"n": 1, "grid": [[0, 0, 1], [1, 1, 2]]})",
        R"({"n": "1", "grid": []})", R"({"n": 1, "grid": [[0, 0, 1], [1, 1, 0]], "x": 1})",
        R"([1])"})
    EXPECT_FALSE(parse_json_puzzle(Json::parse(bad))) << bad;
}

TEST(AnyFormat, IsToldApartByItsFirstCharacter) {
  EXPECT_EQ(*parse_puzzle("1:001110"), kSmall);
  EXPECT_EQ(*parse_puzzle("0 0 1\n1 1 0"), kSmall);
  EXPECT_EQ(*parse_puzzle(R"( {"n": 1, "grid": [[0, 0, 1], [1, 1, 0]]})"), kSmall);
  EXPECT_FALSE(parse_puzzle("   "));
  EXPECT_FALSE(parse_puzzle("{broken"));
}

TEST(Levels, NamesRoundTrip) {
  for (Level l : {Level::trivial, Level::basic, Level::hard, Level::extreme, Level::ambiguous})
    EXPECT_EQ(level_from_string(to_string(l)), l);
  EXPECT_FALSE(level_from_string("easy"));
}

}  // namespace
}  // namespace arbiter::dominosa
