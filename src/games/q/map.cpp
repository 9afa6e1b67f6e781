// The Q map: cell storage, row-major listings, and the fit rule of docs/games/q.md §1.5.
#include "games/q/map.h"

#include <algorithm>
#include <array>

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
  // Pack both ints into 64 bits and run splitmix64's finalizer so that every input bit
  // reaches every output bit; maps are clustered around (0, 0).
  std::uint64_t x = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.row)) << 32) |
                    static_cast<std::uint32_t>(c.column);
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return static_cast<std::size_t>(x);
}

std::optional<Tile> Map::at(Coord c) const {
  auto it = cells_.find(c);
  if (it == cells_.end()) return std::nullopt;
  return it->second;
}

void Map::place(Coord c, Tile t) {
  cells_.emplace(c, t);
}

std::vector<std::pair<Coord, Tile>> Map::cells() const {
  std::vector<std::pair<Coord, Tile>> out(cells_.begin(), cells_.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

std::vector<Coord> Map::free_neighbours() const {
  std::vector<Coord> out;
  out.reserve(cells_.size() * 2 + 4);
  for (const auto& [c, t] : cells_)
    for (Coord d : kSteps)
      if (Coord n = c + d; !occupied(n)) out.push_back(n);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
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
  std::vector<Coord> out = free_neighbours();
  std::erase_if(out, [&](Coord c) { return !fits(c, t); });
  return out;
}

}  // namespace arbiter::q
