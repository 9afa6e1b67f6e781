// Hex names and the hex listing of the Concurrent Abalone board (docs/games/abalone.md §1).
#include "games/abalone/board.h"

#include <fmt/format.h>

namespace arbiter::abalone {

Dir direction_to(Hex a, Hex b) {
  for (Dir dir = 1; dir <= kDirCount; ++dir)
    if (neighbour(a, dir) == b) return dir;
  return kNoDir;
}

const std::array<Hex, kHexCount>& all_hexes() {
  static const std::array<Hex, kHexCount> hexes = [] {
    std::array<Hex, kHexCount> out{};
    std::size_t n = 0;
    for (int r = -kRadius; r <= kRadius; ++r)
      for (int d = -kRadius; d <= kRadius; ++d)
        if (on_board(r, d)) out[n++] = {r, d};
    return out;
  }();
  return hexes;
}

namespace {

std::string name_with(Hex h, char minus) {
  const char row = static_cast<char>('A' + h.r + kRadius);
  if (h.d < 0) return fmt::format("{}{}{}", row, minus, -h.d);
  return fmt::format("{}{}", row, h.d);
}

}  // namespace

std::string hex_name(Hex h) {
  return name_with(h, '-');
}
std::string gui_hex_name(Hex h) {
  return name_with(h, '~');
}

std::optional<Hex> parse_hex(std::string_view name) {
  if (name.size() < 2 || name.size() > 3) return std::nullopt;
  if (name[0] < 'A' || name[0] > 'I') return std::nullopt;
  const int r = name[0] - 'A' - kRadius;
  int sign = 1;
  std::size_t at = 1;
  if (name.size() == 3) {
    if (name[1] != '-' && name[1] != '~') return std::nullopt;
    sign = -1;
    at = 2;
  }
  const char digit = name[at];
  if (digit < '0' || digit > '9') return std::nullopt;
  if (sign < 0 && digit == '0') return std::nullopt;
  const Hex h{r, sign * (digit - '0')};
  if (!on_board(h)) return std::nullopt;
  return h;
}

}  // namespace arbiter::abalone
