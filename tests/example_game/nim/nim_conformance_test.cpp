// Nim through the whole conformance suite: the rules suite (conformance/rules_suite.h) and the
// transport suite (conformance/transport_suite.h: its registry entry, turn_based_entry<Nim>(),
// playing full matches in process, over stdio and over TCP, each replayed), plus Nim's own
// checks of its rules, codec and bots.
#include <gtest/gtest.h>

#include "conformance/rules_suite.h"
#include "conformance/transport_suite.h"
#include "game.h"

namespace arbiter {

template <>
std::vector<std::string> conformance::suite_bots<nim::Nim>() {
  return {"random", "optimal"};
}

namespace nim {
namespace {

// The suites' names (and gtest's names for them) are those of arbiter::conformance.
using namespace conformance;

INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, Conformance, Nim);
INSTANTIATE_TYPED_TEST_SUITE_P(TransportConformance, TransportConformance, Nim);

TEST(NimRules, TheLastToTakeWins) {
  Rng rng(1);
  auto s = Nim::start(Config{{2, 1}, 2}, rng);
  EXPECT_EQ(s.to_move(), Seats{0});
  s.apply(0, {0, 2});
  EXPECT_EQ(s.to_move(), Seats{1});
  EXPECT_EQ(s.check(0, {1, 1})->code, "not-your-turn");
  s.apply(1, {1, 1});
  EXPECT_TRUE(s.to_move().empty());
  EXPECT_EQ(s.standings().winners, Seats{1});
  EXPECT_EQ(s.standings().losers, Seats{0});
}

TEST(NimRules, IllegalMovesAreFoulsAndTheSeatLeftWins) {
  Rng rng(1);
  auto s = Nim::start(Config{{3, 1}, 2}, rng);
  EXPECT_EQ(s.check(0, {2, 1})->code, "no-such-heap");
  EXPECT_EQ(s.check(0, {0, 0})->code, "bad-take");
  EXPECT_EQ(s.check(0, {0, 3})->code, "bad-take");
  EXPECT_EQ(s.check(0, {1, 2})->code, "too-many");
  auto t = Nim::start(Config{{3, 1}, 3}, rng);
  EXPECT_EQ(t.check(0, {1, 2})->code, "too-many");
  EXPECT_FALSE(t.check(0, {0, 3}));
  s.eject(0);
  EXPECT_TRUE(s.to_move().empty());
  EXPECT_EQ(s.turn_order(), Seats{1});
  EXPECT_EQ(s.standings().winners, Seats{1});
}

TEST(NimCodec, RejectsWhatIsNotNim) {
  for (const char* junk : {"null", "[]", "{\"heap\": 0}", "{\"heap\": 0, \"take\": 1, \"x\": 1}",
                           "{\"heap\": \"0\", \"take\": 1}", "{\"heap\": 0.5, \"take\": 1}"}) {
    EXPECT_FALSE(Nim::decode_action(*parse_json(junk))) << junk;
  }
  for (const char* junk : {"[]", "{\"heaps\": []}", "{\"heaps\": [0, 0]}", "{\"heaps\": [-1]}",
                           "{\"max_take\": 0}", "{\"colour\": 1}"}) {
    EXPECT_FALSE(Nim::decode_config(*parse_json(junk))) << junk;
  }
  EXPECT_EQ(*Nim::decode_config(Json::object()), Config{});
  EXPECT_FALSE(Nim::decode_view(*parse_json("{\"heaps\": [1], \"max_take\": 1, \"you\": 2}")));
}

// The optimal bot wins every won position against any opponent: from heaps whose Grundy values
// XOR to nonzero, the mover wins.
TEST(NimBots, OptimalWinsWonPositions) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    Rng rng(seed);
    Config c{{1 + static_cast<int>(rng.below(9)), 1 + static_cast<int>(rng.below(9)),
              static_cast<int>(rng.below(9))},
             1 + static_cast<int>(rng.below(4))};
    int sum = 0;
    for (int h : c.heaps) sum ^= h % (c.max_take + 1);
    auto s = Nim::start(c, rng);
    while (!s.to_move().empty()) {
      const Seat p = s.to_move()[0];
      const Action a = p == 0 ? optimal_move(s.view(p), rng) : random_move(s.view(p), rng);
      ASSERT_FALSE(s.check(p, a));
      s.apply(p, a);
    }
    if (sum != 0) {
      EXPECT_EQ(s.standings().winners, Seats{0}) << "seed " << seed;
    }
  }
}

}  // namespace
}  // namespace nim
}  // namespace arbiter

int main(int argc, char** argv) { return arbiter::conformance::suite_main<arbiter::nim::Nim>(argc, argv); }
