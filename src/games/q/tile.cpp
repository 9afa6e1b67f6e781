// Q tiles: the wire names of shapes and colours and the list of the 36 kinds.
#include "games/q/tile.h"

namespace arbiter::q {
namespace {

// Indexed by the enumerator's value, so the order must follow the enum declarations.
constexpr std::array<std::string_view, kShapes> kShapeNames = {"star",   "8star",  "square",
                                                               "circle", "clover", "diamond"};
constexpr std::array<std::string_view, kColors> kColorNames = {"red",    "green",  "blue",
                                                               "yellow", "orange", "purple"};

constexpr std::array<Tile, 36> make_kinds() {
  std::array<Tile, 36> kinds{};
  std::size_t i = 0;
  for (int s = 0; s < kShapes; ++s)
    for (int c = 0; c < kColors; ++c)
      kinds[i++] = Tile{static_cast<Shape>(s), static_cast<Color>(c)};
  return kinds;
}

constexpr std::array<Tile, 36> kKinds = make_kinds();

}  // namespace

std::string_view to_string(Shape s) {
  return kShapeNames[static_cast<std::size_t>(s)];
}

std::string_view to_string(Color c) {
  return kColorNames[static_cast<std::size_t>(c)];
}

std::optional<Shape> shape_from_string(std::string_view text) {
  for (std::size_t i = 0; i < kShapeNames.size(); ++i)
    if (kShapeNames[i] == text) return static_cast<Shape>(i);
  return std::nullopt;
}

std::optional<Color> color_from_string(std::string_view text) {
  for (std::size_t i = 0; i < kColorNames.size(); ++i)
    if (kColorNames[i] == text) return static_cast<Color>(i);
  return std::nullopt;
}

const std::array<Tile, 36>& all_kinds() {
  return kKinds;
}

}  // namespace arbiter::q
