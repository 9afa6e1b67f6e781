// Tests for the dag and ldasg strategies: one step and the iterated turn.
#include "games/q/strategy.h"

#include <random>

#include <gtest/gtest.h>

#include "games/q/test_tiles.h"

#include "games/q/placement.h"

namespace arbiter::q {
namespace {

using namespace test_tiles;

Map origin(Tile t) {
  Map m;
  m.place({0, 0}, t);
  return m;
}

View view_of(Map m, Tiles hand, std::uint64_t pile) {
  View v;
  v.map = std::move(m);
  v.hand = std::move(hand);
  v.pile = pile;
  return v;
}

TEST(Strategy, Names) {
  EXPECT_EQ(to_string(Strategy::dag), "dag");
  EXPECT_EQ(to_string(Strategy::ldasg), "ldasg");
  EXPECT_EQ(strategy_from_string("dag"), Strategy::dag);
  EXPECT_EQ(strategy_from_string("ldasg"), Strategy::ldasg);
  EXPECT_EQ(strategy_from_string("DAG"), std::nullopt);
  EXPECT_EQ(strategy_from_string("greedy"), std::nullopt);
}

TEST(Step, TakesTheSmallestTileInTileOrder) {
  // Hand order does not matter: green/star is the smallest by shape first.
  Step s = step(Strategy::dag, origin(kRedStar), {kYellowDiamond, kBlueSquare, kGreenStar}, 10);
  EXPECT_EQ(s, Step(Placement{{-1, 0}, kGreenStar}));
}

TEST(Step, SkipsTilesWithoutCandidates) {
  // blue/8star sorts before red/circle but matches red/star in neither shape nor colour.
  Step s = step(Strategy::dag, origin(kRedStar), {kRedCircle, kBlueEightStar}, 10);
  EXPECT_EQ(s, Step(Placement{{-1, 0}, kRedCircle}));
}

TEST(Step, DagTakesTheRowMajorFirstAndLdasgTheMostNeighboured) {
  Map m;
  m.place({0, 0}, kRedStar);
  m.place({1, 1}, kRedSquare);
  // red/circle fits everywhere; (0, 1) and (1, 0) touch both tiles.
  EXPECT_EQ(step(Strategy::dag, m, {kRedCircle}, 10), Step(Placement{{-1, 0}, kRedCircle}));
  EXPECT_EQ(step(Strategy::ldasg, m, {kRedCircle}, 10), Step(Placement{{0, 1}, kRedCircle}));
}

TEST(Step, LdasgFallsBackToRowMajorAmongEquals) {
  EXPECT_EQ(step(Strategy::ldasg, origin(kRedStar), {kRedCircle}, 10),
            Step(Placement{{-1, 0}, kRedCircle}));
}

TEST(Step, PassesOrReplacesWithoutCandidates) {
  const Map m = origin(kRedStar);
  EXPECT_EQ(step(Strategy::dag, m, {kYellowDiamond}, 0), Step(Pass{}));
  EXPECT_EQ(step(Strategy::dag, m, {kYellowDiamond, kBlueEightStar}, 1), Step(Pass{}));
  // Replace needs as many tiles in the pile as in the hand.
  EXPECT_EQ(step(Strategy::dag, m, {kYellowDiamond, kBlueEightStar}, 2), Step(Replace{}));
  EXPECT_EQ(step(Strategy::ldasg, m, {kYellowDiamond}, 7), Step(Replace{}));
  EXPECT_EQ(step(Strategy::dag, Map{}, {kRedStar}, 0), Step(Pass{}));
}

TEST(Turn, PlacesWhileTheSequenceStaysLegal) {
  // red/square goes above red/star, then red/circle above it, in the same column.
  Action a = turn(Strategy::dag, view_of(origin(kRedStar), {kRedCircle, kRedSquare}, 10));
  EXPECT_EQ(a, Action(Placements{{{-1, 0}, kRedSquare}, {{-2, 0}, kRedCircle}}));
}

TEST(Turn, StopsBeforeLeavingTheLine) {
  // green/star goes to (-1, 0); then red/circle fits only next to red/star, at (0, -1), which
  // is in neither row -1 nor column 0.
  const View v = view_of(origin(kRedStar), {kRedCircle, kGreenStar}, 10);
  EXPECT_EQ(turn(Strategy::dag, v), Action(Placements{{{-1, 0}, kGreenStar}}));
}

TEST(Turn, EscapeSeesEverySequenceWithItsLegality) {
  const View v = view_of(origin(kRedStar), {kRedCircle, kGreenStar}, 10);
  std::vector<std::pair<Placements, bool>> seen;
  Action a = turn(Strategy::dag, v, [&](const Placements& ps, bool legal) {
    seen.emplace_back(ps, legal);
    return !legal;  // like the not-a-line cheat: answer the first illegal sequence
  });
  const Placements illegal = {{{-1, 0}, kGreenStar}, {{0, -1}, kRedCircle}};
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], (std::pair<Placements, bool>{{{{-1, 0}, kGreenStar}}, true}));
  EXPECT_EQ(seen[1], (std::pair<Placements, bool>{illegal, false}));
  EXPECT_EQ(a, Action(illegal));
}

TEST(Turn, PassesOrReplacesWhenNothingFits) {
  EXPECT_EQ(turn(Strategy::dag, view_of(origin(kRedStar), {kYellowDiamond}, 0)), Action(Pass{}));
  EXPECT_EQ(turn(Strategy::ldasg, view_of(origin(kRedStar), {kYellowDiamond}, 3)),
            Action(Replace{}));
}

TEST(Turn, DoesNotAlterTheView) {
  const View v = view_of(origin(kRedStar), {kRedCircle, kRedSquare}, 10);
  const View copy = v;
  (void)turn(Strategy::ldasg, v);
  EXPECT_EQ(v, copy);
}

// The turn checks legality incrementally; it must agree with extend() against the start state
// on every sequence it considers, and its answer must be legal.
TEST(Turn, LegalityAgreesWithExtendOnRandomPositions) {
  std::mt19937 rng(4500);
  auto random_tile = [&] {
    return all_kinds()[std::uniform_int_distribution<std::size_t>(0, 35)(rng)];
  };
  int checked = 0;
  for (int game = 0; game < 200; ++game) {
    Map m = origin(random_tile());
    // Grow a random map by single legal placements.
    const int size = std::uniform_int_distribution<int>(0, 30)(rng);
    for (int i = 0; i < size; ++i) {
      Tile t = random_tile();
      auto spots = m.candidates(t);
      if (spots.empty()) continue;
      m.place(spots[std::uniform_int_distribution<std::size_t>(0, spots.size() - 1)(rng)], t);
    }
    Tiles hand;
    for (int i = 0; i < 6; ++i) hand.push_back(random_tile());
    for (Strategy s : {Strategy::dag, Strategy::ldasg}) {
      const View v = view_of(m, hand, 5);
      Action a = turn(s, v, [&](const Placements& ps, bool legal) {
        EXPECT_EQ(legal, extend(v.map, v.hand, ps).has_value());
        ++checked;
        return false;
      });
      if (auto* ps = std::get_if<Placements>(&a)) {
        EXPECT_TRUE(extend(v.map, v.hand, *ps).has_value());
      }
    }
  }
  EXPECT_GT(checked, 500);
}

}  // namespace
}  // namespace arbiter::q
