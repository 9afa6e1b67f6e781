// Tests for Q tiles: wire names and the tile< order.
#include "games/q/tile.h"

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

namespace arbiter::q {
namespace {

TEST(Tile, ShapeNamesRoundTripInSpecOrder) {
  const char* names[] = {"star", "8star", "square", "circle", "clover", "diamond"};
  for (int i = 0; i < kShapes; ++i) {
    auto s = static_cast<Shape>(i);
    EXPECT_EQ(to_string(s), names[i]);
    EXPECT_EQ(shape_from_string(names[i]), s);
  }
}

TEST(Tile, ColorNamesRoundTripInSpecOrder) {
  const char* names[] = {"red", "green", "blue", "yellow", "orange", "purple"};
  for (int i = 0; i < kColors; ++i) {
    auto c = static_cast<Color>(i);
    EXPECT_EQ(to_string(c), names[i]);
    EXPECT_EQ(color_from_string(names[i]), c);
  }
}

TEST(Tile, UnknownNamesAreRejected) {
  EXPECT_EQ(shape_from_string("hexagon"), std::nullopt);
  EXPECT_EQ(shape_from_string("Star"), std::nullopt);
  EXPECT_EQ(shape_from_string(""), std::nullopt);
  EXPECT_EQ(color_from_string("pink"), std::nullopt);
  EXPECT_EQ(color_from_string("RED"), std::nullopt);
  EXPECT_EQ(color_from_string("red "), std::nullopt);
}

TEST(Tile, OrderIsShapeFirstThenColor) {
  const Tile star_purple{Shape::star, Color::purple};
  const Tile eight_red{Shape::eight_star, Color::red};
  const Tile eight_green{Shape::eight_star, Color::green};
  EXPECT_LT(star_purple, eight_red);
  EXPECT_LT(eight_red, eight_green);
  EXPECT_EQ(eight_red, (Tile{Shape::eight_star, Color::red}));
  EXPECT_NE(eight_red, eight_green);
}

TEST(Tile, AllKindsAreTheThirtySixInTileOrder) {
  const auto& kinds = all_kinds();
  EXPECT_EQ(kinds.front(), (Tile{Shape::star, Color::red}));
  EXPECT_EQ(kinds[1], (Tile{Shape::star, Color::green}));
  EXPECT_EQ(kinds[6], (Tile{Shape::eight_star, Color::red}));
  EXPECT_EQ(kinds.back(), (Tile{Shape::diamond, Color::purple}));
  EXPECT_TRUE(std::is_sorted(kinds.begin(), kinds.end()));
  EXPECT_EQ(std::set<Tile>(kinds.begin(), kinds.end()).size(), 36u);
}

}  // namespace
}  // namespace arbiter::q
