// Tests for the Q map (docs/games/q.md §1.2): storage, row-major listings, neighbours and the
// fit rule of §1.5.
#include "games/q/map.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <set>
#include <unordered_set>

#include <gtest/gtest.h>

#include "core/rng.h"
#include "games/q/test_tiles.h"

namespace arbiter::q {
namespace {

using namespace test_tiles;

TEST(CoordHash, MixesBothComponents) {
  CoordHash h;
  EXPECT_NE(h({1, 0}), h({0, 1}));
  EXPECT_NE(h({1, 2}), h({2, 1}));
  EXPECT_NE(h({-1, 0}), h({0, -1}));
  std::unordered_set<std::size_t> hashes;
  std::unordered_set<std::size_t> low_bits;
  for (int r = -50; r < 50; ++r) {
    for (int c = -50; c < 50; ++c) {
      hashes.insert(h({r, c}));
      low_bits.insert(h({r, c}) & 0xffff);
    }
  }
  EXPECT_EQ(hashes.size(), 10000u);
  // Buckets use the low bits; a good mix spreads 10000 keys over most of 65536 values.
  EXPECT_GT(low_bits.size(), 8500u);
}

TEST(Map, PlaceAtOccupied) {
  Map m;
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.at({0, 0}), std::nullopt);
  m.place({0, 0}, kRedStar);
  m.place({-3, 7}, kBlueSquare);
  EXPECT_FALSE(m.empty());
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at({0, 0}), kRedStar);
  EXPECT_EQ(m.at({-3, 7}), kBlueSquare);
  EXPECT_TRUE(m.occupied({-3, 7}));
  EXPECT_FALSE(m.occupied({7, -3}));
}

TEST(Map, CellsAreRowMajor) {
  Map m;
  m.place({1, -1}, kRedStar);
  m.place({0, 2}, kBlueStar);
  m.place({0, -5}, kGreenStar);
  m.place({-2, 9}, kRedSquare);
  auto cells = m.cells();
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells[0].first, (Coord{-2, 9}));
  EXPECT_EQ(cells[1].first, (Coord{0, -5}));
  EXPECT_EQ(cells[2].first, (Coord{0, 2}));
  EXPECT_EQ(cells[3].first, (Coord{1, -1}));
  EXPECT_EQ(cells[3].second, kRedStar);
}

TEST(Map, FreeNeighboursOfOneTile) {
  Map m;
  m.place({0, 0}, kRedStar);
  EXPECT_EQ(m.free_neighbours(), (std::vector<Coord>{{-1, 0}, {0, -1}, {0, 1}, {1, 0}}));
}

TEST(Map, FreeNeighboursAreUniqueSortedAndFree) {
  Map m;
  m.place({0, 0}, kRedStar);
  m.place({0, 1}, kRedSquare);
  m.place({1, 1}, kBlueSquare);
  // (1, 0) neighbours two tiles but is listed once.
  EXPECT_EQ(m.free_neighbours(),
            (std::vector<Coord>{{-1, 0}, {-1, 1}, {0, -1}, {0, 2}, {1, 0}, {1, 2}, {2, 1}}));
  EXPECT_TRUE(Map{}.free_neighbours().empty());
}

TEST(Map, OccupiedNeighbours) {
  Map m;
  m.place({0, 0}, kRedStar);
  m.place({0, 2}, kRedStar);
  m.place({-1, 1}, kRedStar);
  m.place({1, 1}, kRedStar);
  m.place({1, 0}, kRedStar);  // diagonal to (0, 1): does not count
  EXPECT_EQ(m.occupied_neighbours({0, 1}), 4);
  EXPECT_EQ(m.occupied_neighbours({5, 5}), 0);
  EXPECT_EQ(m.occupied_neighbours({-1, 0}), 2);
}

TEST(Map, FitsWithoutNeighbours) {
  Map m;
  EXPECT_TRUE(m.fits({0, 0}, kRedStar));
  m.place({0, 0}, kBlueSquare);
  // Only immediate neighbours count: a diagonal or a tile two away constrains nothing.
  EXPECT_TRUE(m.fits({1, 1}, kRedStar));
  EXPECT_TRUE(m.fits({0, 2}, kRedStar));
}

TEST(Map, FitsOneNeighbourBySharedShapeOrColor) {
  Map m;
  m.place({0, 0}, kRedStar);
  EXPECT_TRUE(m.fits({0, 1}, kBlueStar));    // shape
  EXPECT_TRUE(m.fits({0, -1}, kRedSquare));  // colour
  EXPECT_TRUE(m.fits({1, 0}, kRedStar));     // duplicates are allowed
  EXPECT_FALSE(m.fits({-1, 0}, kBlueSquare));
  EXPECT_FALSE(m.fits({0, 1}, kYellowDiamond));
}

TEST(Map, FitsTwoNeighboursOnALineMustAgreeOnTheSameAttribute) {
  Map m;
  m.place({0, 0}, kRedStar);
  m.place({0, 2}, kBlueStar);
  EXPECT_TRUE(m.fits({0, 1}, kGreenStar));   // both share the shape
  EXPECT_FALSE(m.fits({0, 1}, kRedSquare));  // matches only the left one

  Map n;
  n.place({0, 0}, kRedStar);
  n.place({0, 2}, kRedSquare);
  EXPECT_TRUE(n.fits({0, 1}, kRedCircle));  // both share the colour
  EXPECT_FALSE(n.fits({0, 1}, kBlueStar));

  // Each neighbour matches t, but one by shape and the other by colour: not a fit.
  Map mixed;
  mixed.place({0, 0}, kRedSquare);
  mixed.place({0, 2}, kBlueStar);
  EXPECT_FALSE(mixed.fits({0, 1}, kRedStar));

  // The same rules in a column.
  Map col;
  col.place({-1, 0}, kRedSquare);
  col.place({1, 0}, kBlueStar);
  EXPECT_FALSE(col.fits({0, 0}, kRedStar));
  col = Map{};
  col.place({-1, 0}, kGreenStar);
  col.place({1, 0}, kBlueStar);
  EXPECT_TRUE(col.fits({0, 0}, kRedStar));
}

TEST(Map, FitsChecksRowAndColumnSeparately) {
  Map m;
  m.place({0, -1}, kRedSquare);  // row: matches by colour
  m.place({-1, 0}, kBlueStar);   // column: matches by shape
  EXPECT_TRUE(m.fits({0, 0}, kRedStar));
  m.place({1, 0}, kGreenCircle);  // column now blue/star above, green/circle below
  EXPECT_FALSE(m.fits({0, 0}, kRedStar));
}

TEST(Map, CandidatesAreFittingFreeNeighboursRowMajor) {
  Map m;
  m.place({0, 0}, kRedStar);
  m.place({0, 1}, kBlueSquare);
  // red/square matches red/star by colour and blue/square by shape, so every spot fits.
  EXPECT_EQ(m.candidates(kRedSquare),
            (std::vector<Coord>{{-1, 0}, {-1, 1}, {0, -1}, {0, 2}, {1, 0}, {1, 1}}));
  EXPECT_EQ(m.candidates(kBlueStar),
            (std::vector<Coord>{{-1, 0}, {-1, 1}, {0, -1}, {0, 2}, {1, 0}, {1, 1}}));
  EXPECT_EQ(m.candidates(kGreenStar), (std::vector<Coord>{{-1, 0}, {0, -1}, {1, 0}}));
  EXPECT_TRUE(m.candidates(kYellowDiamond).empty());
  EXPECT_TRUE(Map{}.candidates(kRedStar).empty());
}

TEST(Map, Equality) {
  Map a, b;
  a.place({0, 0}, kRedStar);
  a.place({0, 1}, kBlueStar);
  b.place({0, 1}, kBlueStar);
  b.place({0, 0}, kRedStar);
  EXPECT_EQ(a, b);
  b.place({1, 1}, kBlueStar);
  EXPECT_NE(a, b);
}

// The open-addressing table against std::map over many placements: the same cells, lookups,
// listings and equality, whatever the order of placement, through many growths.
// The free neighbours by their definition: every free 4-neighbour of a tile, row-major.
std::vector<Coord> frontier_of(const std::map<Coord, Tile>& cells) {
  std::set<Coord> free;
  for (const auto& [c, t] : cells)
    for (Coord n : {Coord{c.row - 1, c.column}, Coord{c.row + 1, c.column},
                    Coord{c.row, c.column - 1}, Coord{c.row, c.column + 1}})
      if (!cells.contains(n)) free.insert(n);
  return {free.begin(), free.end()};
}

TEST(Map, AgreesWithAnOrderedMapOverManyPlacements) {
  Rng rng(7);
  for (int round = 0; round < 30; ++round) {
    Map map;
    std::map<Coord, Tile> truth;
    // Dense clusters, boxes that grow past the grid's limit so tiles go far and come back in as
    // it grows, and sparse scatter.
    const int spread = std::array{8, 70, 2000}[round % 3];
    for (int k = 0; k < 600; ++k) {
      const Coord c{static_cast<std::int32_t>(rng.below(2 * spread)) - spread,
                    static_cast<std::int32_t>(rng.below(2 * spread)) - spread};
      const Tile t{static_cast<Shape>(rng.below(6)), static_cast<Color>(rng.below(6))};
      if (!map.occupied(c)) map.place(c, t);
      truth.emplace(c, t);
      ASSERT_EQ(map.size(), truth.size());
      if (k % 50 == 0) {
        ASSERT_EQ(map.free_neighbours(), frontier_of(truth)) << "after " << k;
      }
    }
    ASSERT_EQ(map.free_neighbours(), frontier_of(truth));
    const Map bulk(std::vector<std::pair<Coord, Tile>>(truth.rbegin(), truth.rend()));
    EXPECT_EQ(bulk, map);
    EXPECT_EQ(bulk.free_neighbours(), map.free_neighbours());
    for (int k = 0; k < 2000; ++k) {
      const Coord c{static_cast<std::int32_t>(rng.below(2 * spread + 4)) - spread - 2,
                    static_cast<std::int32_t>(rng.below(2 * spread + 4)) - spread - 2};
      const auto it = truth.find(c);
      ASSERT_EQ(map.occupied(c), it != truth.end());
      ASSERT_EQ(map.at(c), it == truth.end() ? std::nullopt : std::optional<Tile>(it->second));
    }
    const std::vector<std::pair<Coord, Tile>> listed(truth.begin(), truth.end());
    EXPECT_EQ(map.cells(), listed);
    Map backwards;
    for (auto it = truth.rbegin(); it != truth.rend(); ++it) backwards.place(it->first, it->second);
    EXPECT_EQ(map, backwards);
    EXPECT_EQ(map.free_neighbours(), backwards.free_neighbours());
    Map one_less;
    for (auto it = std::next(truth.begin()); it != truth.end(); ++it) one_less.place(it->first, it->second);
    EXPECT_FALSE(map == one_less);
    one_less.place(truth.begin()->first,
                   Tile{truth.begin()->second.shape == Shape::star ? Shape::clover : Shape::star,
                        truth.begin()->second.color});
    EXPECT_FALSE(map == one_less) << "same cells, one tile differs";
  }
}

}  // namespace
}  // namespace arbiter::q
