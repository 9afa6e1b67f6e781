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

const Map::Slot* Map::find(Coord c) const {
  if (slots_.empty()) return nullptr;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = CoordHash{}(c) & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (!s.used) return nullptr;
    if (s.coord == c) return &s;
  }
}

void Map::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (!s.used) continue;
    std::size_t i = CoordHash{}(s.coord) & mask;
    while (slots_[i].used) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

std::optional<Tile> Map::at(Coord c) const {
  const Slot* s = find(c);
  if (s == nullptr) return std::nullopt;
  return s->tile;
}

void Map::insert(Coord c, Tile t) {
  if (2 * (size_ + 1) > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = CoordHash{}(c) & mask;
  while (slots_[i].used) i = (i + 1) & mask;
  slots_[i] = Slot{c, t, true};
  ++size_;
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
  for (const Map::Slot& s : a.slots_)
    if (s.used) {
      const Map::Slot* other = b.find(s.coord);
      if (other == nullptr || other->tile != s.tile) return false;
    }
  return true;
}

std::vector<std::pair<Coord, Tile>> Map::cells() const {
  std::vector<std::pair<Coord, Tile>> out;
  out.reserve(size_);
  for (const Slot& s : slots_)
    if (s.used) out.emplace_back(s.coord, s.tile);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
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
