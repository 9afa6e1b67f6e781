// The conformance suite of turn-based games (core/rules.h), as a type-parameterized gtest suite
// that any game's test instantiates with one line:
//   INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, Conformance, my::MyGame);
// Seeded random playouts (with careless and hostile actions, ejections included) reach a terminal
// state with sane standings; the codec round-trips every view, setup answer, action and hand
// seen, and the config; a seat's view is byte-identical across states that differ only in what
// that seat cannot see; the same seed plays the same game.
//
// What a game G provides for it, beside being a Game:
//   G::kMinSeats, G::kMaxSeats         the seat counts playouts draw from
//   G::default_config(seats)           a config for that many seats
//   G::sample_action(view, rng)        an action a careless or hostile player might send
//   G::sample_setup(view, rng)         the same for the setup answer (SetsUp games only)
//   state.scramble_hidden(p, rng)      the state with what seat p cannot see redrawn
//   G::kPerfectInformation = true      (optional) nothing is hidden: scramble_hidden returns the
//                                      state as it is, and the suite checks that it does
#pragma once

#include <algorithm>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/rules.h"

namespace arbiter::conformance {

template <class G>
constexpr bool kPerfectInformation = [] {
  if constexpr (requires { G::kPerfectInformation; })
    return static_cast<bool>(G::kPerfectInformation);
  else
    return false;
}();

template <class G>
class Conformance : public ::testing::Test {};
TYPED_TEST_SUITE_P(Conformance);

constexpr int kPlayouts = 60;
constexpr int kMaxSteps = 20000;

template <class G>
struct Playout {
  typename G::State state;
  int steps = 0;
  int hidden_checks = 0;
  int hidden_changes = 0;
};

template <Game G>
void expect_round_trip(const typename G::View& view) {
  const Json encoded = G::encode(view);
  auto decoded = G::decode_view(encoded);
  EXPECT_TRUE(decoded) << decoded.error().message;
  if (decoded) {
    EXPECT_TRUE(*decoded == view) << "view does not round-trip: " << encoded.dump();
  }
}

// The referee's setup round for games with a setup answer: every seat in turn order answers, a
// foul ejects it (and play goes on, as in the referee).
template <Game G>
void set_up(typename G::State& s, Rng& rng) {
  if constexpr (SetsUp<G>) {
    for (Seat seat : s.turn_order()) {
      const auto view = s.view(seat);
      expect_round_trip<G>(view);
      const auto choice = G::sample_setup(view, rng);
      auto back = G::decode_setup(G::encode(choice));
      EXPECT_TRUE(back && *back == choice)
          << "setup answer does not round-trip: " << G::encode(choice).dump();
      if (auto foul = s.check_setup(seat, choice)) {
        EXPECT_FALSE(foul->code.empty());
        s.eject(seat);
        continue;
      }
      s.apply_setup(seat, choice);
    }
  }
}

template <Game G>
Playout<G> playout(std::uint64_t seed, bool check_hidden) {
  Rng rng(seed);
  const int seats = G::kMinSeats + static_cast<int>(rng.below(G::kMaxSeats - G::kMinSeats + 1));
  Playout<G> out{G::start(G::default_config(seats), rng)};
  auto& s = out.state;
  set_up<G>(s, rng);
  for (; out.steps < kMaxSteps; ++out.steps) {
    const Seats movers = s.to_move();
    if (movers.empty()) break;
    const Seat seat = movers[rng.below(movers.size())];
    const auto view = s.view(seat);
    expect_round_trip<G>(view);

    if (check_hidden && out.steps % 7 == 0) {
      for (Seat p : s.turn_order()) {
        const auto scrambled = s.scramble_hidden(p, rng);
        ++out.hidden_checks;
        out.hidden_changes += !(scrambled == s);
        EXPECT_EQ(G::encode(s.view(p)).dump(), G::encode(scrambled.view(p)).dump())
            << "seat " << p << " sees a difference in what it cannot know";
      }
    }

    const auto action = G::sample_action(view, rng);
    auto back = G::decode_action(G::encode(action));
    EXPECT_TRUE(back && *back == action)
        << "action does not round-trip: " << G::encode(action).dump();
    if (auto foul = s.check(seat, action)) {
      EXPECT_FALSE(foul->code.empty());
      s.eject(seat);
      continue;
    }
    s.apply(seat, action);
    if constexpr (HandCodec<G>) {
      if (auto dealt = s.dealt(seat)) {
        auto hand = G::decode_hand(G::encode(*dealt));
        EXPECT_TRUE(hand && *hand == *dealt);
        if (rng.below(50) == 0)
          s.eject(seat);  // a player whose new_tiles call failed
        else
          s.acknowledge(seat);
      }
    }
  }
  return out;
}

TYPED_TEST_P(Conformance, RandomPlayoutsReachTheEndWithSaneStandings) {
  using G = TypeParam;
  for (std::uint64_t seed = 1; seed <= kPlayouts; ++seed) {
    auto out = playout<G>(seed, /*check_hidden=*/false);
    ASSERT_LT(out.steps, kMaxSteps) << "seed " << seed << " did not finish";
    ASSERT_TRUE(out.state.to_move().empty());
    const Standings st = out.state.standings();
    std::set<Seat> ranked(st.winners.begin(), st.winners.end());
    for (Seat p : st.losers) EXPECT_TRUE(ranked.insert(p).second) << "seat both won and lost";
    const Seats still_in = out.state.turn_order();
    EXPECT_EQ(ranked, std::set<Seat>(still_in.begin(), still_in.end()));
    if (!still_in.empty()) {
      EXPECT_FALSE(st.winners.empty()) << "seed " << seed;
    }
  }
}

TYPED_TEST_P(Conformance, ViewsHideWhatASeatCannotKnow) {
  using G = TypeParam;
  int checks = 0, changes = 0;
  for (std::uint64_t seed = 100; seed < 100 + kPlayouts / 3; ++seed) {
    auto out = playout<G>(seed, /*check_hidden=*/true);
    checks += out.hidden_checks;
    changes += out.hidden_changes;
  }
  EXPECT_GT(checks, 50);
  if constexpr (kPerfectInformation<G>) {
    EXPECT_EQ(changes, 0) << "a game without hidden information has nothing to scramble";
  } else {
    EXPECT_GT(changes, checks / 2) << "scramble_hidden rarely changes anything: the test is weak";
  }
}

TYPED_TEST_P(Conformance, TheSameSeedPlaysTheSameGame) {
  using G = TypeParam;
  for (std::uint64_t seed : {3u, 17u, 99u}) {
    auto a = playout<G>(seed, false);
    auto b = playout<G>(seed, false);
    EXPECT_TRUE(a.state == b.state);
    EXPECT_EQ(a.steps, b.steps);
  }
}

TYPED_TEST_P(Conformance, TheConfigRoundTrips) {
  using G = TypeParam;
  for (int seats = G::kMinSeats; seats <= G::kMaxSeats; ++seats) {
    const auto config = G::default_config(seats);
    auto back = G::decode_config(G::encode(config));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_TRUE(*back == config);
  }
}

REGISTER_TYPED_TEST_SUITE_P(Conformance, RandomPlayoutsReachTheEndWithSaneStandings,
                            ViewsHideWhatASeatCannotKnow, TheSameSeedPlaysTheSameGame,
                            TheConfigRoundTrips);

}  // namespace arbiter::conformance
