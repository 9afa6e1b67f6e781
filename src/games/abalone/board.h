// The Concurrent Abalone board (docs/games/abalone.md §1): hexes (r, d), the six directions,
// neighbours, and hex names in the rules' form (`A-4` ... `I4`) and the GUI's (`A~4`, §7).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace arbiter::abalone {

inline constexpr int kRadius = 4;
inline constexpr int kHexCount = 61;

// A hex position. Any pair of ints is representable; on_board says whether it is one of the 61.
struct Hex {
  int r = 0;  // row: A..I are -4..4, bottom to top
  int d = 0;  // diagonal: -4..4 from the lower left
  friend constexpr auto operator<=>(const Hex&, const Hex&) = default;
};

// §1: |r| <= 4, |d| <= 4, |r - d| <= 4. Takes 64-bit coordinates so that values straight from a
// bot (inspect(r, d)) need no range check first.
constexpr bool on_board(std::int64_t r, std::int64_t d) {
  // Range checks first, so that r - d cannot overflow.
  return r >= -kRadius && r <= kRadius && d >= -kRadius && d <= kRadius && r - d >= -kRadius &&
         r - d <= kRadius;
}
constexpr bool on_board(Hex h) {
  return on_board(h.r, h.d);
}

// A direction as the GUI numbers them (§1): 1 R (0,+1), 2 UR (+1,+1), 3 UL (+1,0), 4 L (0,-1),
// 5 DL (-1,-1), 6 DR (-1,0); 0 = none (a cleared commitment).
using Dir = int;
inline constexpr Dir kNoDir = 0;
inline constexpr int kDirCount = 6;

constexpr bool is_move_dir(std::int64_t dir) {
  return dir >= 1 && dir <= kDirCount;
}
// 0..6: what commit(dir) accepts.
constexpr bool is_commit_dir(std::int64_t dir) {
  return dir >= 0 && dir <= kDirCount;
}

// The (dr, dd) step of direction `dir`. REQUIRES: is_move_dir(dir).
constexpr Hex step(Dir dir) {
  constexpr std::array<Hex, kDirCount> steps{{{0, 1}, {1, 1}, {1, 0}, {0, -1}, {-1, -1}, {-1, 0}}};
  return steps[static_cast<std::size_t>(dir - 1)];
}

// 1 <-> 4, 2 <-> 5, 3 <-> 6. REQUIRES: is_move_dir(dir).
constexpr Dir opposite(Dir dir) {
  return (dir + 2) % kDirCount + 1;
}

// The hex one step from h in direction dir (possibly off the board). REQUIRES: is_move_dir(dir).
constexpr Hex neighbour(Hex h, Dir dir) {
  const Hex s = step(dir);
  return {h.r + s.r, h.d + s.d};
}

// The direction from a to its neighbour b, or kNoDir when b is not one of a's six neighbours
// (e.g. (r+1, d-1), which §1 says is not adjacent).
Dir direction_to(Hex a, Hex b);

// A dense index 0..80 for on-board hexes (a 9x9 square, of which 61 cells are used), for
// per-hex arrays. REQUIRES: on_board(h).
constexpr int cell_index(Hex h) {
  return (h.r + kRadius) * (2 * kRadius + 1) + (h.d + kRadius);
}
inline constexpr int kCellCount = (2 * kRadius + 1) * (2 * kRadius + 1);

// The 61 hexes in reading order of their names: row A (r = -4) to I, d ascending in each row.
// Every listing in this game (snapshots, GUI commands) uses this order.
const std::array<Hex, kHexCount>& all_hexes();

// `A-4`, `E0`, `I4`. REQUIRES: on_board(h).
std::string hex_name(Hex h);
// The GUI's form (§7): `~` for the minus sign, e.g. `B~2`. REQUIRES: on_board(h).
std::string gui_hex_name(Hex h);
// A row letter A..I (upper case only), an optional `-` or `~`, one digit; the hex must be on the
// board. Nothing else parses (no `+`, no spaces, no `-0`).
std::optional<Hex> parse_hex(std::string_view name);

}  // namespace arbiter::abalone
