// The Q map (docs/games/q.md §1.2, §1.5): an unbounded grid of tiles addressed by (row, column),
// row growing downward, column to the right. Coord's operator<=> is the rules' row-major order.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "games/q/tile.h"

namespace arbiter::q {

struct Coord {
  std::int32_t row = 0;
  std::int32_t column = 0;
  friend auto operator<=>(const Coord&, const Coord&) = default;  // row-major
};

struct CoordHash {
  std::size_t operator()(Coord c) const noexcept;
};

// §1.5 fitLine: t between its two neighbours a and b along one line (either may be missing).
bool fits_line(const std::optional<Tile>& a, Tile t, const std::optional<Tile>& b);

// §1.5 fits over any cell lookup `at` (Coord -> std::optional<Tile>), so that a legality check
// can look at a map plus tentative placements without copying the map.
template <class Lookup>
bool fits_at(const Lookup& at, Coord c, Tile t) {
  return fits_line(at(Coord{c.row, c.column - 1}), t, at(Coord{c.row, c.column + 1})) &&
         fits_line(at(Coord{c.row - 1, c.column}), t, at(Coord{c.row + 1, c.column}));
}

class Map {
 public:
  Map() = default;
  // A map of the given cells at once, in O(n log n). REQUIRES: the coordinates are distinct.
  explicit Map(const std::vector<std::pair<Coord, Tile>>& cells);

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::optional<Tile> at(Coord c) const;
  bool occupied(Coord c) const { return find(c) != nullptr; }

  // REQUIRES: !occupied(c). Does not check the rules (see extend() in placement.h). Costs a
  // lookup per neighbour plus, to keep free_neighbours() current, at most a move of that list.
  void place(Coord c, Tile t);

  // All (coordinate, tile) pairs in row-major order.
  std::vector<std::pair<Coord, Tile>> cells() const;

  // The free 4-neighbours of occupied cells, in row-major order: kept up to date by place(), so
  // asking costs nothing.
  const std::vector<Coord>& free_neighbours() const { return frontier_; }

  // How many of c's 4 neighbours are occupied (0-4).
  int occupied_neighbours(Coord c) const;

  // §1.5 fits: t may stand at c given c's immediate neighbours along its row and its column.
  // REQUIRES: !occupied(c). Does not require a neighbour (that is the adjacency rule).
  bool fits(Coord c, Tile t) const;

  // The candidates of t (§1.5): free neighbours where t fits, row-major.
  std::vector<Coord> candidates(Tile t) const;

  // The same cells with the same tiles.
  friend bool operator==(const Map& a, const Map& b);

 private:
  // An open-addressing table (linear probing, power-of-two size, at most half full; cells are
  // never removed): a lookup is a hash and a short scan of one array, a copy is one allocation.
  struct Slot {
    Coord coord;
    Tile tile;
    bool used = false;
  };
  const Slot* find(Coord c) const;
  void grow();
  void insert(Coord c, Tile t);  // into the table only

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  std::vector<Coord> frontier_;  // free_neighbours(), sorted
};

}  // namespace arbiter::q
