// A Q bot for arbiter: one JSON message per line on stdin, one answer per line on stdout.
// It places the first tile of its hand that fits next to the map, at the first such spot; with
// no fit it swaps its hand if the referee has tiles enough, else it passes.
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "json.hpp"

namespace {

struct Tile {
  std::string color, shape;
};
using Spot = std::pair<int, int>;

Tile tile_of(const Json& j) {
  return {j["color"].s, j["shape"].s};
}

// `t` between neighbours a and b (null: empty) along one line.
bool fits_line(const Tile* a, const Tile& t, const Tile* b) {
  if (a && b)
    return (a->shape == t.shape && b->shape == t.shape) ||
           (a->color == t.color && b->color == t.color);
  const Tile* other = a ? a : b;
  return !other || other->shape == t.shape || other->color == t.color;
}

std::string take_turn(const Json& pub) {
  std::map<Spot, Tile> board;
  for (const Json& row : pub["map"].items)
    for (std::size_t i = 1; i < row.items.size(); ++i)
      board[{row[0].integer(), row[i][0].integer()}] = tile_of(row[i][1]);
  const auto at = [&](int r, int c) -> const Tile* {
    auto it = board.find({r, c});
    return it == board.end() ? nullptr : &it->second;
  };
  std::set<Spot> spots;  // ordered by row, then column
  for (const auto& [p, tile] : board)
    for (auto [dr, dc] : {Spot{-1, 0}, Spot{1, 0}, Spot{0, -1}, Spot{0, 1}})
      if (!board.count({p.first + dr, p.second + dc})) spots.insert({p.first + dr, p.second + dc});
  const Json& hand = pub["players"][0]["tile*"];
  for (const Json& j : hand.items) {
    const Tile t = tile_of(j);
    for (auto [r, c] : spots)
      if (fits_line(at(r, c - 1), t, at(r, c + 1)) && fits_line(at(r - 1, c), t, at(r + 1, c)))
        return "[{\"coordinate\":{\"row\":" + std::to_string(r) +
               ",\"column\":" + std::to_string(c) + "},\"1tile\":{\"color\":" + quoted(t.color) +
               ",\"shape\":" + quoted(t.shape) + "}}]";
  }
  return pub["tile*"].integer() >= static_cast<int>(hand.items.size()) ? "\"replace\"" : "\"pass\"";
}

}  // namespace

int main() {
  for (std::string line; std::getline(std::cin, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const Json msg = Json::parse(line);
    const std::string& method = msg[0].s;
    if (method == "ejected") {  // the referee says why this bot is out; no answer
      const Json& why = msg[1][0];
      std::cerr << "ejected: " << why["verdict"].s << " during " << why["call"].s << ": "
                << why["detail"].s << std::endl;
      return 0;
    }
    std::cout << (method == "take-turn" ? take_turn(msg[1][0]) : "\"void\"") << std::endl;
    if (method == "win") return 0;
  }
}
