// Dominosa (docs/games/dominosa.md): the puzzle, its solutions, and every format of §2:
// Tatham-compatible game IDs and solution letters, a plain text grid, and JSON.
//
// For n >= 1 the grid has h = n+1 rows and w = n+2 columns; cell (r, c) is index r*w + c and
// holds a value 0..n; every value occurs exactly n+2 times (a consequence of the full double-n
// set, checked by the parsers). A solution pairs every cell with one orthogonal neighbour so that
// every domino {x, y}, 0 <= x <= y <= n, appears exactly once.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace arbiter::dominosa {

inline constexpr int kMaxN = 1000;  // parsers refuse larger puzzles (a grid of ~1M cells)

// Polled by long computations (generation, the learning search) between steps; once it returns
// true they stop early and say so. Only for cancellation (a time limit, a better result found
// by another thread): it makes the outcome depend on timing, so callers that need
// reproducibility only stop work they will discard or report as unknown.
using StopFn = std::function<bool()>;

struct Puzzle {
  int n = 0;
  std::vector<int> grid;  // h*w values, row-major
  int rows() const { return n + 1; }
  int cols() const { return n + 2; }
  int cells() const { return rows() * cols(); }
  int at(int r, int c) const { return grid[r * cols() + c]; }
  friend bool operator==(const Puzzle&, const Puzzle&) = default;
};

// The number of dominoes of a double-n set, and the index of domino {a, b} in 0..count-1.
inline int domino_count(int n) {
  return (n + 1) * (n + 2) / 2;
}
inline int domino_index(int a, int b, int n) {
  if (a > b) std::swap(a, b);
  return a * (n + 1) - a * (a - 1) / 2 + (b - a);
}

// A solution: one letter per cell, row-major: 'L' (the left half; partner to the right), 'R',
// 'T' (the top half; partner below), 'B'.
using Solution = std::string;

// Why `s` is not a solution of `p` (shape, a half without its partner, a domino used twice), or
// an empty string when it is.
std::string solution_problem(const Puzzle& p, std::string_view s);

// The difficulty levels of §3, easiest first.
enum class Level { trivial, basic, hard, extreme, ambiguous };
std::string_view to_string(Level level);
std::optional<Level> level_from_string(std::string_view text);

// Game IDs: "<n>:<desc>", "<n>d<c>:<desc>" (c in t b h e a, accepted and ignored).
Expected<Puzzle> parse_game_id(std::string_view text);
std::string game_id(const Puzzle& p);

// Text: h rows of w space-separated numbers (blank lines and surrounding space ignored).
Expected<Puzzle> parse_text(std::string_view text);
std::string to_text(const Puzzle& p);

// JSON: {"n": n, "grid": [[...], ...]} and {"solution": "LRTB..."}.
Expected<Puzzle> parse_json_puzzle(const Json& j);
Json to_json(const Puzzle& p);

// Any of the three, told apart by their first character ('{' JSON, a game ID has ':').
Expected<Puzzle> parse_puzzle(std::string_view text);

// Checks shared by all parsers: n in 1..kMaxN, h*w values each in 0..n, each n+2 times.
Expected<Puzzle> check_puzzle(Puzzle p);

}  // namespace arbiter::dominosa
