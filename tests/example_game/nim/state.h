// Nim's types and rules (README.md): heaps of objects, two players take turns removing 1 to
// max_take objects from one heap, and whoever takes the last object wins. Everything is in plain
// sight, so a seat's view is the whole position. Pure: no I/O, no clock, no randomness.
#pragma once

#include <optional>
#include <vector>

#include "core/foul.h"
#include "core/rng.h"
#include "core/seat.h"
#include "core/standings.h"

namespace arbiter::nim {

inline constexpr int kMaxHeaps = 16;
inline constexpr int kMaxHeap = 1000;

struct Config {
  std::vector<int> heaps = {5, 7, 9};  // the objects in each heap at the start
  int max_take = 3;                    // a move takes 1..max_take objects from one heap
  friend bool operator==(const Config&, const Config&) = default;
};

// A move: `take` objects from heap number `heap` (0-based).
struct Action {
  int heap = 0;
  int take = 1;
  friend bool operator==(const Action&, const Action&) = default;
};

// All a seat may know, which in Nim is everything: the heaps, the limit, and which seat it is.
struct View {
  std::vector<int> heaps;
  int max_take = 1;
  Seat you = 0;
  friend bool operator==(const View&, const View&) = default;
};

class State {
 public:
  static State start(const Config& config);

  Seats to_move() const;     // the seat whose turn it is; empty once the game is over
  Seats turn_order() const;  // the seats still in, 0 before 1
  View view(Seat p) const;
  std::optional<Foul> check(Seat p, const Action& a) const;
  void apply(Seat p, const Action& a);  // REQUIRES: p in to_move() and !check(p, a)
  void eject(Seat p);
  Standings standings() const;  // REQUIRES: to_move().empty()

  // No hidden information: there is nothing a seat cannot see, so this is the state itself.
  State scramble_hidden(Seat viewer, Rng& rng) const;

  const std::vector<int>& heaps() const { return heaps_; }
  friend bool operator==(const State&, const State&) = default;

 private:
  bool over() const;
  int in_count() const { return static_cast<int>(in_[0]) + static_cast<int>(in_[1]); }

  Config config_;
  std::vector<int> heaps_;
  Seat turn_ = 0;
  std::optional<Seat> last_mover_;  // who took the last objects so far
  bool in_[2] = {true, true};
};

}  // namespace arbiter::nim
