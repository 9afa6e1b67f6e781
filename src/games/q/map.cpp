// The Q map: cell storage, row-major listings, and the fit rule of docs/games/q.md §1.5.
#include "games/q/map.h"

#include <algorithm>
#include <array>

#include "core/rng.h"

namespace arbiter::q {
namespace {

constexpr std::array<Coord, 4> kSteps = {Coord{-1, 0}, Coord{0, -1}, Coord{0, 1}, Coord{1, 0}};

Coord operator+(Coord a, Coord b) {
  return {a.row + b.row, a.column + b.column};
}

}  // namespace

bool fits_line(const std::optional<Tile>& a, Tile t, const std::optional<Tile>& b) {
  if (a && b)
    return (a->shape == t.shape && b->shape == t.shape) ||
           (a->color == t.color && b->color == t.color);
  const std::optional<Tile>& x = a ? a : b;
  return !x || x->shape == t.shape || x->color == t.color;
}

std::size_t CoordHash::operator()(Coord c) const noexcept {
  // Both ints packed into 64 bits and mixed, so that every input bit reaches every output bit;
  // maps are clustered around (0, 0).
  return static_cast<std::size_t>(
      mix64((static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.row)) << 32) |
            static_cast<std::uint32_t>(c.column)));
}

std::optional<Tile> Map::far_at(Coord c) const {
  if (far_size_ == 0) return std::nullopt;
  const std::size_t mask = far_.size() - 1;
  for (std::size_t i = CoordHash{}(c) & mask;; i = (i + 1) & mask) {
    const Slot& s = far_[i];
    if (!s.used) return std::nullopt;
    if (s.coord == c) return s.tile;
  }
}

void Map::grow_far() {
  std::vector<Slot> old = std::move(far_);
  far_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
  const std::size_t mask = far_.size() - 1;
  for (const Slot& s : old) {
    if (!s.used) continue;
    std::size_t i = CoordHash{}(s.coord) & mask;
    while (far_[i].used) i = (i + 1) & mask;
    far_[i] = s;
  }
}

void Map::insert_far(Coord c, Tile t) {
  if (2 * (far_size_ + 1) > far_.size()) grow_far();
  const std::size_t mask = far_.size() - 1;
  std::size_t i = CoordHash{}(c) & mask;
  while (far_[i].used) i = (i + 1) & mask;
  far_[i] = Slot{c, t, true};
  ++far_size_;
}

namespace {

std::uint8_t cell_of(Tile t) {
  return static_cast<std::uint8_t>(1 + static_cast<int>(t.shape) * kColors +
                                   static_cast<int>(t.color));
}

}  // namespace

bool Map::cover(Coord c) {
  const std::int64_t row = c.row, column = c.column;
  std::int64_t top = top_, left = left_;
  std::int64_t bottom = top_ + static_cast<std::int64_t>(rows_);  // one past
  std::int64_t right = left_ + static_cast<std::int64_t>(columns_);
  if (rows_ == 0) {
    top = row - 8, bottom = row + 8, left = column - 8, right = column + 8;
  } else {
    if (row >= top && row < bottom && column >= left && column < right) return true;
    // Grow by at least half the box on each side that must move, so that a game growing in one
    // direction copies the grid O(log n) times.
    const std::int64_t tall = bottom - top, wide = right - left;
    if (row < top) top = std::min(row, top - tall / 2);
    if (row >= bottom) bottom = std::max(row + 1, bottom + tall / 2);
    if (column < left) left = std::min(column, left - wide / 2);
    if (column >= right) right = std::max(column + 1, right + wide / 2);
  }
  auto small_enough = [](std::int64_t t, std::int64_t b, std::int64_t l, std::int64_t r) {
    const auto rows = static_cast<std::uint64_t>(b - t), columns = static_cast<std::uint64_t>(r - l);
    return rows <= kMaxGridCells && columns <= kMaxGridCells && rows * columns <= kMaxGridCells;
  };
  if (!small_enough(top, bottom, left, right)) {
    // The box just big enough, then. If even that is too big, c is far, and stays far: the box
    // only grows, so a box that covered c later would be at least this one.
    top = std::min<std::int64_t>(top_, row);
    bottom = std::max<std::int64_t>(top_ + static_cast<std::int64_t>(rows_), row + 1);
    left = std::min<std::int64_t>(left_, column);
    right = std::max<std::int64_t>(left_ + static_cast<std::int64_t>(columns_), column + 1);
    if (!small_enough(top, bottom, left, right)) return false;
  }
  const auto rows = static_cast<std::uint64_t>(bottom - top);
  const auto columns = static_cast<std::uint64_t>(right - left);
  std::vector<std::uint8_t> grid(rows * columns, 0);
  for (std::uint64_t r = 0; r < rows_; ++r) {
    const auto to_row = static_cast<std::uint64_t>(top_ + static_cast<std::int64_t>(r) - top);
    const auto to = to_row * columns + static_cast<std::uint64_t>(left_ - left);
    std::copy_n(grid_.begin() + static_cast<std::ptrdiff_t>(r * columns_),
                static_cast<std::ptrdiff_t>(columns_),
                grid.begin() + static_cast<std::ptrdiff_t>(to));
  }
  top_ = top, left_ = left, rows_ = rows, columns_ = columns;
  grid_ = std::move(grid);
  return true;
}

void Map::insert(Coord c, Tile t) {
  ++size_;
  if (!cover(c)) {
    insert_far(c, t);
    return;
  }
  const auto r = static_cast<std::uint64_t>(c.row - top_);
  const auto k = static_cast<std::uint64_t>(c.column - left_);
  grid_[r * columns_ + k] = cell_of(t);
}

template <class F>
void Map::for_each(F&& f) const {
  visit_grid(f);
  for (const Slot& s : far_)
    if (s.used) f(s.coord, s.tile);
}

Map::Map(const std::vector<std::pair<Coord, Tile>>& cells) {
  for (const auto& [c, t] : cells) insert(c, t);
  for (const auto& [c, t] : cells)
    for (Coord d : kSteps)
      if (Coord n = c + d; !occupied(n)) frontier_.push_back(n);
  std::sort(frontier_.begin(), frontier_.end());
  frontier_.erase(std::unique(frontier_.begin(), frontier_.end()), frontier_.end());
}

void Map::place(Coord c, Tile t) {
  if (occupied(c)) return;  // REQUIRES says it is not; the first tile stays, as before
  insert(c, t);
  // c is no longer free; its free neighbours now touch a tile. Nothing else changes.
  if (auto it = std::lower_bound(frontier_.begin(), frontier_.end(), c);
      it != frontier_.end() && *it == c)
    frontier_.erase(it);
  for (Coord d : kSteps) {
    const Coord n = c + d;
    if (occupied(n)) continue;
    if (auto it = std::lower_bound(frontier_.begin(), frontier_.end(), n);
        it == frontier_.end() || *it != n)
      frontier_.insert(it, n);
  }
}

bool operator==(const Map& a, const Map& b) {
  if (a.size_ != b.size_) return false;
  bool same = true;
  a.for_each([&](Coord c, Tile t) { same = same && b.at(c) == t; });
  return same;
}

std::vector<std::pair<Coord, Tile>> Map::cells() const {
  std::vector<std::pair<Coord, Tile>> out;
  out.reserve(size_);
  for_each([&](Coord c, Tile t) { out.emplace_back(c, t); });
  // The grid is scanned row-major already; far tiles can go anywhere.
  if (far_size_ > 0)
    std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return out;
}

int Map::occupied_neighbours(Coord c) const {
  int n = 0;
  for (Coord d : kSteps) n += occupied(c + d) ? 1 : 0;
  return n;
}

bool Map::fits(Coord c, Tile t) const {
  return fits_at([this](Coord k) { return at(k); }, c, t);
}

std::vector<Coord> Map::candidates(Tile t) const {
  std::vector<Coord> out = frontier_;
  std::erase_if(out, [&](Coord c) { return !fits(c, t); });
  return out;
}

}  // namespace arbiter::q
