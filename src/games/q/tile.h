// Q tiles (docs/games/q.md §1.1): 6 shapes x 6 colours, 30 copies of each kind. The declaration
// order of the enumerators IS the rules' order, and Tile's operator<=> is the rules' `tile<`
// (shape first, then colour); strategies depend on it.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace arbiter::q {

enum class Shape : std::uint8_t { star, eight_star, square, circle, clover, diamond };
enum class Color : std::uint8_t { red, green, blue, yellow, orange, purple };

inline constexpr int kShapes = 6;
inline constexpr int kColors = 6;
inline constexpr int kCopiesPerKind = 30;  // 1080 tiles in all

struct Tile {
  Shape shape = Shape::star;
  Color color = Color::red;
  friend auto operator<=>(const Tile&, const Tile&) = default;  // tile<: shape, then colour
};

using Tiles = std::vector<Tile>;

// Wire names: "star" "8star" "square" "circle" "clover" "diamond"; "red" ... "purple".
std::string_view to_string(Shape s);
std::string_view to_string(Color c);
std::optional<Shape> shape_from_string(std::string_view text);
std::optional<Color> color_from_string(std::string_view text);

// The 36 kinds in tile< order (star-red, star-green, ..., diamond-purple).
const std::array<Tile, 36>& all_kinds();

}  // namespace arbiter::q
