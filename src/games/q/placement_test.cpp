// Tests for docs/games/q.md §1.5 legality (extend) and §1.6 scoring of Q placements.
#include "games/q/placement.h"

#include <gtest/gtest.h>

#include "games/q/test_tiles.h"

namespace arbiter::q {
namespace {

Tile tile(Color c, Shape s) {
  return Tile{s, c};
}

using namespace test_tiles;

Map one(Coord c, Tile t) {
  Map m;
  m.place(c, t);
  return m;
}

std::string code_of(const std::expected<Map, Foul>& r) {
  return r ? "legal" : r.error().code;
}

// --- extend ---------------------------------------------------------------------------------

TEST(Extend, PlacesTilesInOrder) {
  const Map start = one({0, 0}, kRedStar);
  auto r = extend(start, {kBlueStar, kGreenStar, kRedSquare},
                  {{{0, 1}, kBlueStar}, {{0, 2}, kGreenStar}});
  ASSERT_TRUE(r) << r.error().detail;
  Map want = start;
  want.place({0, 1}, kBlueStar);
  want.place({0, 2}, kGreenStar);
  EXPECT_EQ(*r, want);
  EXPECT_EQ(start.size(), 1u);  // the input map is untouched
}

TEST(Extend, EmptyPlacement) {
  auto r = extend(one({0, 0}, kRedStar), {kRedStar}, {});
  EXPECT_EQ(code_of(r), "empty-placement");
}

TEST(Extend, TileNotOwned) {
  const Map m = one({0, 0}, kRedStar);
  auto r = extend(m, {kBlueStar}, {{{0, 1}, kGreenStar}});
  ASSERT_EQ(code_of(r), "tile-not-owned");
  EXPECT_NE(r.error().detail.find("green/star"), std::string::npos) << r.error().detail;
  // Ownership is a multiset test: one copy in hand covers one placement only.
  EXPECT_EQ(code_of(extend(m, {kBlueStar, kRedSquare}, {{{0, 1}, kBlueStar}, {{0, 2}, kBlueStar}})),
            "tile-not-owned");
  EXPECT_EQ(code_of(extend(m, {kBlueStar, kBlueStar}, {{{0, 1}, kBlueStar}, {{0, 2}, kBlueStar}})),
            "legal");
  EXPECT_EQ(code_of(extend(m, {}, {{{0, 1}, kBlueStar}})), "tile-not-owned");
}

TEST(Extend, NotALine) {
  const Map m = one({0, 0}, kRedStar);
  auto r = extend(m, {kBlueStar, kGreenStar}, {{{0, 1}, kBlueStar}, {{1, 0}, kGreenStar}});
  EXPECT_EQ(code_of(r), "not-a-line");
  // One row or one column, contiguous or not, is a line.
  Map gap;
  gap.place({0, 0}, kRedStar);
  gap.place({0, 2}, kRedStar);
  EXPECT_EQ(
      code_of(extend(gap, {kBlueStar, kGreenStar}, {{{1, 0}, kBlueStar}, {{1, 2}, kGreenStar}})),
      "legal");
  EXPECT_EQ(
      code_of(extend(m, {kBlueStar, kGreenStar}, {{{1, 0}, kBlueStar}, {{2, 0}, kGreenStar}})),
      "legal");
}

TEST(Extend, Occupied) {
  const Map m = one({0, 0}, kRedStar);
  auto r = extend(m, {kRedStar}, {{{0, 0}, kRedStar}});
  ASSERT_EQ(code_of(r), "occupied");
  EXPECT_NE(r.error().detail.find("(0, 0)"), std::string::npos) << r.error().detail;
  // Also by an earlier placement of the same turn.
  EXPECT_EQ(code_of(extend(m, {kRedStar, kBlueStar}, {{{0, 1}, kRedStar}, {{0, 1}, kBlueStar}})),
            "occupied");
}

TEST(Extend, NonAdjacentCoordinate) {
  const Map m = one({0, 0}, kRedStar);
  EXPECT_EQ(code_of(extend(m, {kRedStar}, {{{1, 1}, kRedStar}})), "non-adjacent-coordinate");
  EXPECT_EQ(code_of(extend(Map{}, {kRedStar}, {{{0, 0}, kRedStar}})), "non-adjacent-coordinate");
  // Adjacency is judged on the map as it grows: (0, 2) touches the tile placed at (0, 1)...
  EXPECT_EQ(code_of(extend(m, {kRedStar, kRedSquare}, {{{0, 1}, kRedStar}, {{0, 2}, kRedSquare}})),
            "legal");
  // ...but not in the opposite order.
  EXPECT_EQ(code_of(extend(m, {kRedStar, kRedSquare}, {{{0, 2}, kRedSquare}, {{0, 1}, kRedStar}})),
            "non-adjacent-coordinate");
}

TEST(Extend, NoFit) {
  const Map m = one({0, 0}, kRedStar);
  auto r = extend(m, {kYellowDiamond}, {{{0, 1}, kYellowDiamond}});
  ASSERT_EQ(code_of(r), "no-fit");
  EXPECT_EQ(r.error().detail, "tile yellow/diamond at (0, 1) does not fit");
  // The fit is judged against earlier tiles of the same placement: red/square fits red/star,
  // blue/star fits red/star, but blue/star then sits next to red/square.
  EXPECT_EQ(
      code_of(extend(m, {kRedSquare, kBlueStar}, {{{0, 1}, kRedSquare}, {{0, 2}, kBlueStar}})),
      "no-fit");
}

TEST(Extend, ReportsTheFirstRuleBrokenInSpecOrder) {
  const Map m = one({0, 0}, kRedStar);
  // Not owned and not a line: ownership is checked first.
  EXPECT_EQ(code_of(extend(m, {kBlueStar}, {{{0, 1}, kBlueStar}, {{1, 0}, kGreenStar}})),
            "tile-not-owned");
  // Not a line and occupied: the line rule comes first.
  EXPECT_EQ(
      code_of(extend(m, {kBlueStar, kGreenStar}, {{{0, 0}, kBlueStar}, {{1, 1}, kGreenStar}})),
      "not-a-line");
  // Occupied and no fit on the same cell: occupied.
  EXPECT_EQ(code_of(extend(m, {kYellowDiamond}, {{{0, 0}, kYellowDiamond}})), "occupied");
  // Placements are checked one by one in order: a no-fit before a later non-adjacent one...
  EXPECT_EQ(code_of(extend(m, {kYellowDiamond, kRedStar},
                           {{{0, 1}, kYellowDiamond}, {{0, 9}, kRedStar}})),
            "no-fit");
  // ...and a non-adjacent one before a later no-fit.
  EXPECT_EQ(code_of(extend(m, {kYellowDiamond, kRedStar},
                           {{{0, 9}, kRedStar}, {{0, 1}, kYellowDiamond}})),
            "non-adjacent-coordinate");
}

// --- score ----------------------------------------------------------------------------------

const Bonuses kCourse{.q = 6, .finish = 0};

TEST(Score, IlyasWitnessColumnOfSevenIsNotAQ) {
  // A column of 7 tiles, rows 0-6, the last one just placed: 1 + 7 = 8, no Q bonus.
  Map m;
  const Color colors[] = {Color::red,    Color::green,  Color::blue, Color::yellow,
                          Color::orange, Color::purple, Color::red};
  for (int r = 0; r < 7; ++r) m.place({r, 0}, tile(colors[r], Shape::star));
  EXPECT_EQ(score(m, {{{6, 0}, tile(Color::red, Shape::star)}}, kCourse, false), 8);
}

TEST(Score, StaffTestTwoTilesInAColumnEachJoiningARow) {
  // priime0__swdev/5/grade/staff-tests/0: 2 tiles + column run 2 + two row runs of 2 = 8.
  Map m;
  m.place({0, -1}, tile(Color::green, Shape::clover));
  m.place({0, 0}, tile(Color::red, Shape::clover));
  m.place({1, -1}, tile(Color::green, Shape::diamond));
  m.place({1, 0}, tile(Color::red, Shape::diamond));
  m.place({2, 0}, tile(Color::red, Shape::circle));
  m.place({2, 1}, tile(Color::blue, Shape::circle));
  m.place({3, 0}, tile(Color::red, Shape::square));
  m.place({3, 1}, tile(Color::blue, Shape::square));
  m.place({3, 2}, tile(Color::purple, Shape::square));
  const Placements p = {{{0, -1}, tile(Color::green, Shape::clover)},
                        {{1, -1}, tile(Color::green, Shape::diamond)}};
  EXPECT_EQ(score(m, p, kCourse, false), 8);
}

TEST(Score, LoneTileScoresOnePoint) {
  Map m = one({0, 0}, kRedStar);
  // Only the tile itself counts; a run of 1 scores nothing.
  EXPECT_EQ(score(m, {{{0, 0}, kRedStar}}, kCourse, false), 1);
}

TEST(Score, SingleTileScoresItsRowAndItsColumn) {
  Map m;
  m.place({0, 0}, kRedStar);
  m.place({0, 1}, kRedSquare);
  m.place({-1, 2}, kBlueSquare);
  m.place({0, 2}, kRedCircle);  // placed: row run of 3, column run of 2
  EXPECT_EQ(score(m, {{{0, 2}, kRedCircle}}, kCourse, false), 1 + 3 + 2);
}

TEST(Score, RunWithSeveralPlacedTilesCountsOnce) {
  Map m;
  m.place({0, 0}, kRedStar);
  m.place({0, 1}, kRedSquare);
  m.place({0, 2}, kRedCircle);
  // Two placed tiles in one row run of 3: 2 + 3, no perpendicular runs.
  EXPECT_EQ(score(m, {{{0, 1}, kRedSquare}, {{0, 2}, kRedCircle}}, kCourse, false), 5);
}

TEST(Score, SeparateRunsInTheLineCountSeparately) {
  Map m;
  m.place({0, 0}, kRedStar);
  m.place({0, 1}, kRedSquare);  // placed
  m.place({0, 3}, kRedStar);
  m.place({0, 4}, kRedCircle);  // placed
  EXPECT_EQ(score(m, {{{0, 1}, kRedSquare}, {{0, 4}, kRedCircle}}, kCourse, false), 2 + 2 + 2);
}

TEST(Score, ColumnPlacementUsesTheColumnAsTheLine) {
  Map m;
  m.place({0, 0}, kRedStar);
  m.place({1, 0}, kRedSquare);  // placed
  m.place({2, 0}, kRedCircle);  // placed
  m.place({2, 1}, kBlueStar);
  // 2 tiles + column run of 3 + row run of 2 through (2, 0).
  EXPECT_EQ(score(m, {{{1, 0}, kRedSquare}, {{2, 0}, kRedCircle}}, kCourse, false), 2 + 3 + 2);
}

TEST(Score, QBonusForSixColoursOrSixShapes) {
  Map colours;
  for (int c = 0; c < kColors; ++c) colours.place({0, c}, Tile{Shape::star, static_cast<Color>(c)});
  const Placements last = {{{0, 5}, Tile{Shape::star, Color::purple}}};
  EXPECT_EQ(score(colours, last, kCourse, false), 1 + 6 + 6);
  EXPECT_EQ(score(colours, last, Bonuses{.q = 8, .finish = 4}, false), 1 + 6 + 8);

  Map shapes;
  for (int s = 0; s < kShapes; ++s) shapes.place({s, 0}, Tile{static_cast<Shape>(s), Color::red});
  EXPECT_EQ(score(shapes, {{{0, 0}, Tile{Shape::star, Color::red}}}, kCourse, false), 1 + 6 + 6);
}

TEST(Score, SixLongRunWithARepeatIsNotAQ) {
  Map m;
  const Color colors[] = {Color::red,    Color::green,  Color::blue,
                          Color::yellow, Color::orange, Color::red};
  for (int c = 0; c < 6; ++c) m.place({0, c}, tile(colors[c], Shape::star));
  EXPECT_EQ(score(m, {{{0, 5}, tile(Color::red, Shape::star)}}, kCourse, false), 1 + 6);
}

TEST(Score, PerpendicularQ) {
  Map m;
  for (int c = 0; c < kColors; ++c) m.place({c, 0}, Tile{Shape::star, static_cast<Color>(c)});
  m.place({5, 1}, Tile{Shape::star, Color::red});
  m.place({5, 2}, Tile{Shape::star, Color::green});
  // Placed: (5, 0) purple/star and (5, 1), (5, 2) in row 5. Row run 3, column run at (5, 0) is a Q.
  const Placements p = {{{5, 0}, Tile{Shape::star, Color::purple}},
                        {{5, 1}, Tile{Shape::star, Color::red}},
                        {{5, 2}, Tile{Shape::star, Color::green}}};
  EXPECT_EQ(score(m, p, kCourse, false), 3 + 3 + 6 + 6);
}

TEST(Score, FinishBonus) {
  Map m = one({0, 0}, kRedStar);
  m.place({0, 1}, kGreenStar);
  const Placements p = {{{0, 1}, kGreenStar}};
  EXPECT_EQ(score(m, p, Bonuses{.q = 8, .finish = 4}, true), 1 + 2 + 4);
  EXPECT_EQ(score(m, p, Bonuses{.q = 8, .finish = 4}, false), 1 + 2);
}

}  // namespace
}  // namespace arbiter::q
