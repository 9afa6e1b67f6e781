#include "games/q/bots.h"

#include <gtest/gtest.h>

#include "games/q/test_tiles.h"

#include "referee/turn_based.h"

namespace arbiter::q {
namespace {

using namespace std::chrono_literals;

using namespace test_tiles;

View simple_view(Tiles hand, std::uint64_t pile = 10, std::size_t others = 1) {
  View v;
  v.map.place({0, 0}, kRedStar);
  v.hand = std::move(hand);
  v.pile = pile;
  v.others.assign(others, 0);
  return v;
}

ActorSpec spec(const Json& j) {
  auto s = decode_actor_spec(j, Dialect::m9);
  EXPECT_TRUE(s) << s.error().message;
  return *s;
}

TEST(ActorSpec, DialectsAcceptWhatTheirMilestoneAllows) {
  EXPECT_TRUE(decode_actor_spec({"a", "dag"}, Dialect::m7));
  EXPECT_TRUE(decode_actor_spec({"a", "ldasg", "take-turn"}, Dialect::m7));
  EXPECT_FALSE(decode_actor_spec({"a", "dag", "a cheat", "no-fit"}, Dialect::m7));
  EXPECT_TRUE(decode_actor_spec({"a", "dag", "a cheat", "no-fit"}, Dialect::m8));
  EXPECT_FALSE(decode_actor_spec({"a", "dag", "win", 2}, Dialect::m8));
  EXPECT_TRUE(decode_actor_spec({"a", "dag", "win", 2}, Dialect::m9));
  EXPECT_FALSE(decode_actor_spec({"a", "dag", "win", 8}, Dialect::m9));
  EXPECT_FALSE(decode_actor_spec({"a", "smart"}, Dialect::m9));
  EXPECT_FALSE(decode_actor_spec({"a b", "dag"}, Dialect::m9));
  EXPECT_FALSE(decode_actor_spec({"abcdefghijklmnopqrstu", "dag"}, Dialect::m9));
  EXPECT_FALSE(decode_actor_spec({"a", "dag", "a cheat", "teleport"}, Dialect::m9));
  EXPECT_FALSE(decode_actors(Json::array({{"a", "dag"}, {"a", "ldasg"}}), Dialect::m9));
}

TEST(ActorSpec, EncodeRoundTrips) {
  for (const Json& j :
       {Json{"a", "dag"}, Json{"b", "ldasg", "setup"}, Json{"c", "dag", "new-tiles", 3},
        Json{"d", "ldasg", "a cheat", "not-a-line"}})
    EXPECT_EQ(encode_actor_spec(spec(j)), j);
}

TEST(Actor, AHousePlayerPlaysItsStrategysTurn) {
  auto p = make_actor(spec({"a", "dag"}));
  const View v = simple_view({kRedSquare});
  p->setup(v);
  EXPECT_EQ(p->take_turn(v), turn(Strategy::dag, v));
}

TEST(Actor, RaisesOnTheNamedMethod) {
  auto p = make_actor(spec({"a", "dag", "new-tiles"}));
  const View v = simple_view({kRedSquare});
  EXPECT_NO_THROW(p->setup(v));
  EXPECT_NO_THROW(p->take_turn(v));
  EXPECT_THROW(p->new_tiles({}), std::exception);
}

TEST(Actor, CheatNonAdjacentCoordinate) {
  auto p = make_actor(spec({"a", "dag", "a cheat", "non-adjacent-coordinate"}));
  EXPECT_EQ(p->take_turn(simple_view({kRedSquare}, 10, 2)),
            Action(Placements{{{4, 0}, {Shape::circle, Color::orange}}}));
}

TEST(Actor, CheatTileNotOwnedPlacesTheFirstKindItLacks) {
  auto p = make_actor(spec({"a", "dag", "a cheat", "tile-not-owned"}));
  const Action a = p->take_turn(simple_view({kRedStar}));
  const auto* ps = std::get_if<Placements>(&a);
  ASSERT_TRUE(ps);
  ASSERT_EQ(ps->size(), 1u);
  EXPECT_EQ((*ps)[0].tile, (Tile{Shape::star, Color::green}));
}

TEST(Actor, CheatBadAskForTilesOnlyWhenThePileIsShort) {
  auto p = make_actor(spec({"a", "dag", "a cheat", "bad-ask-for-tiles"}));
  EXPECT_EQ(p->take_turn(simple_view({kBlueDiamond, kBlueDiamond}, 1)), Action(Replace{}));
  const View enough = simple_view({kRedSquare}, 10);
  EXPECT_EQ(p->take_turn(enough), turn(Strategy::dag, enough));
}

TEST(Actor, CheatNoFitPlacesATileWhereItDoesNotFit) {
  auto p = make_actor(spec({"a", "dag", "a cheat", "no-fit"}));
  const View v = simple_view({kBlueDiamond});
  const Action a = p->take_turn(v);
  const auto* ps = std::get_if<Placements>(&a);
  ASSERT_TRUE(ps);
  ASSERT_EQ(ps->size(), 1u);
  EXPECT_FALSE(v.map.fits((*ps)[0].coord, (*ps)[0].tile));
  EXPECT_EQ(extend(v.map, v.hand, *ps).error().code, "no-fit");
}

TEST(Actor, CheatNotALineFindsASequenceOffTheLine) {
  auto p = make_actor(spec({"a", "dag", "a cheat", "not-a-line"}));
  const View v = simple_view({kRedSquare, kRedSquare});
  const Action a = p->take_turn(v);
  const auto* ps = std::get_if<Placements>(&a);
  ASSERT_TRUE(ps);
  EXPECT_EQ(extend(v.map, v.hand, *ps).error().code, "not-a-line");
}

TEST(Actor, ALoopingPlayerIsEjectedOnItsKthCall) {
  Config c;
  c.players = 2;
  RefereeOptions options;
  options.per_call = 100ms;
  const MatchResult r = play_turn_based<Q>(
      c, 9, {"a", "b"},
      {make_actor(spec({"a", "dag", "take-turn", 2})), make_actor(spec({"b", "ldasg"}))}, options);
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0].seat, 0);
  EXPECT_EQ(r.ejections[0].why, Why::timeout);
  EXPECT_EQ(r.ejections[0].call, "take_turn");
  EXPECT_EQ(r.winners, Seats{1});
}

TEST(Actor, SetupLoopsOnlyWhenCountIsOne) {
  Config c;
  RefereeOptions options;
  options.per_call = 100ms;
  const MatchResult r = play_turn_based<Q>(
      c, 9, {"a", "b"},
      {make_actor(spec({"a", "dag", "setup", 1})), make_actor(spec({"b", "dag", "setup", 2}))},
      options);
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0].seat, 0);
  EXPECT_EQ(r.ejections[0].call, "setup");
}

}  // namespace
}  // namespace arbiter::q
