// Battleship's vocabulary (docs/games/battleship.md): the config, a fleet placement, shots and
// their outcomes, and what one seat may know.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/seat.h"

namespace arbiter::battleship {

struct Config {
  int rows = 10;                          // 5..26
  int cols = 10;                          // 5..26
  std::vector<int> ships{5, 4, 3, 3, 2};  // lengths; each 1..max(rows, cols)
  bool no_touch = false;                  // ships may not touch, not even diagonally
  bool announce_sunk = true;              // "sunk" (with the length) instead of a plain "hit"
  bool salvo = false;                     // one shot per own ship afloat, all in one turn
  int max_turns = 200;                    // per player; then more hits wins, equal hits draw
  friend bool operator==(const Config&, const Config&) = default;
};

struct Cell {
  int row = 0;
  int col = 0;
  friend auto operator<=>(const Cell&, const Cell&) = default;
};

enum class Dir { h, v };

struct Ship {
  int length = 0;
  Cell at;  // the top-left end
  Dir dir = Dir::h;
  friend bool operator==(const Ship&, const Ship&) = default;
};

// A seat's answer to setup: one ship per fleet length, in any order.
using Fleet = std::vector<Ship>;

// A seat's action: one shot, or a whole salvo.
using Shots = std::vector<Cell>;

enum class Outcome { miss, hit, sunk };

struct ShotResult {
  Cell cell;
  Outcome result = Outcome::miss;
  int length = 0;  // the sunk ship's length, with Outcome::sunk only
  friend bool operator==(const ShotResult&, const ShotResult&) = default;
};

// All one seat may know (§2): never the opponent's fleet.
struct View {
  int turn = 0;  // turns taken so far by both players
  Seat you = 0;
  Config config;
  Fleet fleet;                       // its own (empty before setup)
  std::vector<ShotResult> incoming;  // the opponent's shots at it
  std::vector<ShotResult> outgoing;  // its shots at the opponent
  friend bool operator==(const View&, const View&) = default;
};

}  // namespace arbiter::battleship
