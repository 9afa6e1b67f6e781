#include "league/matchmaker.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "core/rng.h"

namespace arbiter::league {
namespace {

// n established entrants one point apart in rating, each seated within the last n matches
// before index 1000 (the rounds below start there).
std::vector<Contender> field(std::size_t n, std::int64_t played = 50) {
  std::vector<Contender> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back({i,
                   {10.0 + static_cast<double>(i), 1.5},
                   played,
                   1000 - static_cast<std::int64_t>(n) + static_cast<std::int64_t>(i)});
  return out;
}

TEST(Matchmaker, SameInputsSameRoundWhateverTheOrder) {
  auto a = field(30);
  RoundTerms terms{1000, 2, 4, 5, 10, 77};
  const auto first = match_round(a, terms);
  std::reverse(a.begin(), a.end());
  EXPECT_EQ(match_round(a, terms), first);
  terms.seed = 78;
  EXPECT_NE(match_round(a, terms), first);
}

TEST(Matchmaker, EachEntrantSitsOnceInARoundInGroupsOfTheRange) {
  const auto groups = match_round(field(30), {1000, 2, 4, 50, 10, 5});
  std::set<std::size_t> seen;
  std::size_t seated = 0;
  for (const auto& g : groups) {
    EXPECT_GE(g.size(), 2U);
    EXPECT_LE(g.size(), 4U);
    for (std::size_t e : g) EXPECT_TRUE(seen.insert(e).second) << e;
    seated += g.size();
  }
  EXPECT_GE(seated, 28U);  // asked for more groups than fit: nearly everyone is seated
  EXPECT_TRUE(match_round(field(1), {0, 2, 2, 3, 10, 1}).empty());
}

TEST(Matchmaker, ANewcomerPlaysInTheNextRound) {
  auto all = field(40);
  all.push_back({40, Skill{}, 0, -1});
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto groups = match_round(all, {1000, 2, 2, 1, 10, seed});
    ASSERT_EQ(groups.size(), 1U);
    EXPECT_TRUE(std::count(groups[0].begin(), groups[0].end(), 40U) == 1) << seed;
  }
}

TEST(Matchmaker, OpponentsAreCloseInRating) {
  // 100 entrants one point apart: a random opponent would be about 33 points away.
  double total = 0;
  int pairs = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed)
    for (const auto& g : match_round(field(100), {1000, 2, 2, 10, 10, seed})) {
      total += std::abs(static_cast<double>(g[0]) - static_cast<double>(g[1]));
      ++pairs;
    }
  EXPECT_LT(total / pairs, 6.0);
}

// Rounds played one after another, every match rated at once: every entrant gets close to an
// even share, and no one waits long, whatever its rating or uncertainty.
TEST(Matchmaker, SharesStayEvenAndNoOneWaitsLong) {
  constexpr std::size_t kN = 60;
  std::vector<Contender> all;
  Rng rng(9);
  for (std::size_t i = 0; i < kN; ++i)
    all.push_back({i, {static_cast<double>(rng.below(50)), 0.5 + (i % 7)}, 0, -1});
  std::int64_t next = 0;
  std::vector<std::int64_t> longest_wait(kN, 0);
  for (std::uint64_t round = 0; round < 3000; ++round) {
    for (const auto& g : match_round(all, {next, 2, 3, 4, 10, round})) {
      for (std::size_t e : g) {
        Contender& c = all[e];
        if (c.last_index >= 0) longest_wait[e] = std::max(longest_wait[e], next - c.last_index);
        c.played += static_cast<std::int64_t>(g.size());
        c.last_index = next;
      }
      next += static_cast<std::int64_t>(g.size());
    }
  }
  double mean = 0;
  for (const Contender& c : all) mean += static_cast<double>(c.played) / kN;
  for (const Contender& c : all) {
    EXPECT_GT(c.played, mean * 0.7) << c.entrant;
    EXPECT_LT(c.played, mean * 1.3) << c.entrant;
    // An even share comes about every kN matches.
    EXPECT_LT(longest_wait[c.entrant], 6 * static_cast<std::int64_t>(kN)) << c.entrant;
  }
}

}  // namespace
}  // namespace arbiter::league
