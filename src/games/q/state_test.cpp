#include "games/q/state.h"

#include <gtest/gtest.h>

#include "games/q/test_tiles.h"

#include "games/q/game.h"

namespace arbiter::q {
namespace {

using namespace test_tiles;

// A pinned table: seat 0 and seat 1, a red star on the map, a short pile.
State table_state(Tiles hand0, Tiles hand1, Tiles pile, Bonuses bonuses = {}) {
  Table t;
  t.map.place({0, 0}, kRedStar);
  t.players = {{0, std::move(hand0), std::nullopt}, {0, std::move(hand1), std::nullopt}};
  t.pile = std::move(pile);
  Config c;
  c.bonuses = bonuses;
  c.table = t;
  Rng rng(1);
  return State::start(c, rng);
}

TEST(State, AFreshDealGivesSixTilesEachAndOneOnTheMap) {
  Config c;
  c.players = 3;
  Rng rng(11);
  const State s = State::start(c, rng);
  EXPECT_EQ(s.turn_order(), (Seats{0, 1, 2}));
  EXPECT_EQ(s.to_move(), Seats{0});
  const Table t = s.table();
  EXPECT_EQ(t.map.size(), 1u);
  for (const auto& p : t.players) EXPECT_EQ(p.hand.size(), kHandSize);
  EXPECT_EQ(t.pile.size(), 1080u - 3 * kHandSize - 1);
}

TEST(State, TheSameSeedDealsTheSameGame) {
  Config c;
  Rng a(5), b(5), other(6);
  EXPECT_EQ(State::start(c, a), State::start(c, b));
  EXPECT_NE(State::start(c, a), State::start(c, other));
}

TEST(State, ViewShowsOwnHandAndOthersScoresInTurnOrderAfterMe) {
  Table t;
  t.map.place({0, 0}, kRedStar);
  t.players = {{5, {kRedSquare}, "a"}, {7, {kRedCircle}, "b"}, {9, {kBlueDiamond}, "c"}};
  t.pile = {kGreenClover, kGreenClover};
  Config c;
  c.table = t;
  Rng rng(1);
  const State s = State::start(c, rng);
  const View v1 = s.view(1);
  EXPECT_EQ(v1.hand, Tiles{kRedCircle});
  EXPECT_EQ(v1.score, 7);
  EXPECT_EQ(v1.others, (std::vector<std::int64_t>{9, 5}));
  EXPECT_EQ(v1.pile, 2u);
}

TEST(State, APlacementScoresDrawsAndRotates) {
  State s =
      table_state({kRedSquare, kBlueDiamond}, {kGreenClover}, {kRedCircle, kRedCircle, kRedCircle});
  const Action a = Placements{{{0, 1}, kRedSquare}};
  ASSERT_FALSE(s.check(0, a));
  s.apply(0, a);
  EXPECT_EQ(s.table().players.back().score, 3);  // 1 tile + the run of 2 (seat 0 is now last)
  ASSERT_TRUE(s.dealt(0));
  EXPECT_EQ(*s.dealt(0), Tiles{kRedCircle});
  EXPECT_FALSE(s.dealt(1));
  EXPECT_EQ(s.to_move(), Seats{1});
  s.acknowledge(0);
  EXPECT_FALSE(s.dealt(0));
  EXPECT_EQ(s.view(0).hand, (Tiles{kRedCircle, kBlueDiamond}));  // new tiles go in front
  EXPECT_EQ(s.view(0).pile, 2u);
}

TEST(State, PlacingTheLastTileEndsTheGameAtOnceWithTheFinishBonus) {
  State s = table_state({kRedSquare}, {kGreenClover}, {kRedCircle}, Bonuses{.q = 8, .finish = 4});
  s.apply(0, Placements{{{0, 1}, kRedSquare}});
  EXPECT_TRUE(s.to_move().empty());
  EXPECT_FALSE(s.dealt(0));
  const Standings st = s.standings();
  EXPECT_EQ(st.winners, Seats{0});
  EXPECT_EQ(st.losers, Seats{1});
  EXPECT_EQ(st.scores[0], 1 + 2 + 4);
}

TEST(State, ReplaceReturnsTheHandToTheBackAndDrawsFromTheFront) {
  State s =
      table_state({kBlueDiamond, kGreenClover}, {kRedCircle}, {kRedSquare, kRedCircle, kRedStar});
  ASSERT_FALSE(s.check(0, Replace{}));
  s.apply(0, Replace{});
  EXPECT_EQ(*s.dealt(0), (Tiles{kRedSquare, kRedCircle}));
  s.acknowledge(0);
  EXPECT_EQ(s.table().pile, (Tiles{kRedStar, kBlueDiamond, kGreenClover}));
}

TEST(State, ReplacingNeedsEnoughTilesOnThePile) {
  const State s = table_state({kBlueDiamond, kGreenClover}, {kRedCircle}, {kRedSquare});
  auto foul = s.check(0, Replace{});
  ASSERT_TRUE(foul);
  EXPECT_EQ(foul->code, "bad-ask-for-tiles");
}

TEST(State, OnlyTheActiveSeatMayAct) {
  const State s = table_state({kRedSquare}, {kRedCircle}, {});
  auto foul = s.check(1, Pass{});
  ASSERT_TRUE(foul);
  EXPECT_EQ(foul->code, "not-your-turn");
}

TEST(State, ARoundWithoutPlacementEndsTheGame) {
  State s = table_state({kBlueDiamond}, {kGreenClover}, {});
  s.apply(0, Pass{});
  EXPECT_EQ(s.to_move(), Seats{1});
  s.apply(1, Pass{});
  EXPECT_TRUE(s.to_move().empty());
  EXPECT_EQ(s.standings().winners, (Seats{0, 1}));  // a tie: both win
}

TEST(State, APlacementKeepsTheGameGoingForAnotherRound) {
  State s = table_state({kRedSquare, kBlueDiamond}, {kGreenClover}, {});
  s.apply(0, Placements{{{0, 1}, kRedSquare}});
  s.acknowledge(0);
  s.apply(1, Pass{});
  EXPECT_EQ(s.to_move(), Seats{0});
  s.apply(0, Pass{});
  s.apply(1, Pass{});
  EXPECT_TRUE(s.to_move().empty());
}

TEST(State, AnEjectedSeatsHandGoesToTheBackOfThePile) {
  State s = table_state({kRedSquare, kBlueDiamond}, {kGreenClover}, {kRedCircle});
  s.eject(0);
  EXPECT_EQ(s.turn_order(), Seats{1});
  EXPECT_EQ(s.to_move(), Seats{1});
  EXPECT_EQ(s.table().pile, (Tiles{kRedCircle, kRedSquare, kBlueDiamond}));
}

TEST(State, TilesDealtToASeatThatFailsNewTilesAreLost) {
  State s = table_state({kRedSquare, kBlueDiamond}, {kGreenClover}, {kRedCircle, kRedStar});
  s.apply(0, Placements{{{0, 1}, kRedSquare}});
  s.eject(0);  // new_tiles failed
  EXPECT_FALSE(s.dealt(0));
  EXPECT_EQ(s.table().pile, (Tiles{kRedStar, kBlueDiamond}));
  EXPECT_EQ(s.to_move(), Seats{1});
}

TEST(State, EjectingEveryoneEndsTheGameWithNoWinners) {
  State s = table_state({kRedSquare}, {kGreenClover}, {});
  s.eject(0);
  s.eject(1);
  EXPECT_TRUE(s.to_move().empty());
  EXPECT_TRUE(s.standings().winners.empty());
}

TEST(State, ScrambleHiddenKeepsTheViewersViewAndChangesOthers) {
  Config c;
  c.players = 3;
  Rng deal(3), scramble(4);
  const State s = State::start(c, deal);
  const State t = s.scramble_hidden(1, scramble);
  EXPECT_EQ(Q::encode(s.view(1)).dump(), Q::encode(t.view(1)).dump());
  EXPECT_NE(s, t);
}

TEST(QConfig, RoundTripsAndRejectsNonsense) {
  Config c;
  c.players = 3;
  c.bonuses = {.q = 6, .finish = 6};
  auto back = Q::decode_config(Q::encode(c));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, c);
  EXPECT_FALSE(Q::decode_config(Json{{"players", 5}}));
  EXPECT_FALSE(Q::decode_config(Json{{"players", 1}}));
  EXPECT_FALSE(Q::decode_config(Json{{"colour", "red"}}));
  EXPECT_FALSE(Q::decode_config(Json{{"bonuses", {{"q", -1}, {"finish", 2}}}}));
  EXPECT_FALSE(Q::decode_config(Json::array()));
  // Found by fuzz/targets/q_codec.cpp: an unknown key is quoted as JSON, so the error stays one
  // line whatever the key holds.
  auto odd = Q::decode_config(Json{{"cred\nplayers", 2}});
  ASSERT_FALSE(odd);
  EXPECT_EQ(odd.error().message, "Q config: unknown field \"cred\\nplayers\"");
}

}  // namespace
}  // namespace arbiter::q
