// The Q map (docs/games/q.md §1.2, §1.5): an unbounded grid of tiles addressed by (row, column),
// row growing downward, column to the right. Coord's operator<=> is the rules' row-major order.
#pragma once

#include <compare>
#include <cstdint>
#include <cstring>
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
  std::optional<Tile> at(Coord c) const {
    const std::uint64_t r = static_cast<std::uint64_t>(static_cast<std::int64_t>(c.row) - top_);
    const std::uint64_t k = static_cast<std::uint64_t>(static_cast<std::int64_t>(c.column) - left_);
    if (r < rows_ && k < columns_) return tile_of(grid_[r * columns_ + k]);
    return far_at(c);
  }
  bool occupied(Coord c) const { return at(c).has_value(); }

  // REQUIRES: !occupied(c). Does not check the rules (see extend() in placement.h). Costs a
  // lookup per neighbour plus, to keep free_neighbours() current, at most a move of that list.
  void place(Coord c, Tile t);

  // All (coordinate, tile) pairs in row-major order.
  std::vector<std::pair<Coord, Tile>> cells() const;
  // Calls f(coord, tile) for every tile in row-major order, without making a list when no tile
  // is far from the others (see below).
  template <class F>
  void visit_in_order(F&& f) const {
    if (far_size_ > 0) {
      for (const auto& [c, t] : cells()) f(c, t);
      return;
    }
    visit_grid(f);
  }

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
  // Tiles live in a dense row-major grid over a box around them (one byte a cell: 0 empty, else
  // 1 + the tile's kind), so a lookup is a bounds check and a load. The box grows by half its
  // size when a tile lands outside it (or just enough, near the limit), as long as it stays
  // within kMaxGridCells cells; a tile farther out (only a pinned or hostile table puts one
  // there) goes to an open-addressing table of far tiles, which lookups outside the box consult.
  // A far tile is never inside the box: covering it would take a box past the limit.
  static constexpr std::uint64_t kMaxGridCells = std::uint64_t{1} << 14;
  struct Slot {
    Coord coord;
    Tile tile;
    bool used = false;
  };
  static std::optional<Tile> tile_of(std::uint8_t cell) {
    if (cell == 0) return std::nullopt;
    return Tile{static_cast<Shape>((cell - 1) / kColors), static_cast<Color>((cell - 1) % kColors)};
  }
  std::optional<Tile> far_at(Coord c) const;
  // Makes the box hold c if it can stay under kMaxGridCells; whether it holds c.
  bool cover(Coord c);
  void insert(Coord c, Tile t);  // into the grid or the far table, without the frontier
  void insert_far(Coord c, Tile t);
  void grow_far();
  // The grid's tiles in row-major order (far tiles not included).
  template <class F>
  void visit_grid(F& f) const {
    for (std::uint64_t r = 0; r < rows_; ++r) {
      const std::uint8_t* row = grid_.data() + r * columns_;
      for (std::uint64_t k = 0; k < columns_; ++k) {
        // Most of the box is empty: skip it eight cells at a time.
        if (k + 8 <= columns_) {
          std::uint64_t eight;
          std::memcpy(&eight, row + k, sizeof eight);
          if (eight == 0) {
            k += 7;
            continue;
          }
        }
        if (row[k] != 0)
          f(Coord{static_cast<std::int32_t>(top_ + static_cast<std::int64_t>(r)),
                  static_cast<std::int32_t>(left_ + static_cast<std::int64_t>(k))},
            *tile_of(row[k]));
      }
    }
  }
  // Every tile, grid first, then the far ones in no particular order.
  template <class F>
  void for_each(F&& f) const;

  std::int64_t top_ = 0;  // the box: rows [top_, top_ + rows_), columns [left_, left_ + columns_)
  std::int64_t left_ = 0;
  std::uint64_t rows_ = 0;
  std::uint64_t columns_ = 0;
  std::vector<std::uint8_t> grid_;
  std::vector<Slot> far_;  // power-of-two size, at most half full; empty when there are none
  std::size_t far_size_ = 0;
  std::size_t size_ = 0;
  std::vector<Coord> frontier_;  // free_neighbours(), sorted
};

}  // namespace arbiter::q
