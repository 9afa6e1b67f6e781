// What one Q seat may know (JPub, docs/games/q.md §3): the map, its own hand and score, the other
// players' scores in turn order after it, and how many tiles the referee has left. Never another
// player's tiles or the order of the pile.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "games/q/map.h"

namespace arbiter::q {

struct View {
  Map map;
  Tiles hand;
  std::int64_t score = 0;
  std::vector<std::int64_t> others;  // scores of the other seats still in, in turn order after me
  std::uint64_t pile = 0;            // how many tiles the referee has left
  friend bool operator==(const View&, const View&) = default;
};

// The referee's whole knowledge (JState, §3): players in turn order, the pile in draw
// order (front = next). Used to pin a game's initial state and by the course harnesses.
struct Seated {
  std::int64_t score = 0;
  Tiles hand;
  std::optional<std::string> name;
  friend bool operator==(const Seated&, const Seated&) = default;
};

struct Table {
  Map map;
  std::vector<Seated> players;
  Tiles pile;
  friend bool operator==(const Table&, const Table&) = default;
};

}  // namespace arbiter::q
