// The referee's state of a Q game: the Rules implementation (core/rules.h) for docs/games/q.md §1.
// Turn order is a rotating list with the active seat at its head (docs/games/q.md §7); the pile is
// an ordered sequence drawn from the front and returned to at the back.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/foul.h"
#include "core/rng.h"
#include "core/seat.h"
#include "core/standings.h"
#include "games/q/action.h"
#include "games/q/view.h"

namespace arbiter::q {

inline constexpr int kMinPlayers = 2;
inline constexpr int kMaxPlayers = 4;
inline constexpr std::size_t kHandSize = 6;

struct Config {
  int players = 2;             // seats of a freshly dealt game (ignored when `table` is given)
  Bonuses bonuses;             // Q 8 / finish 4 unless set (the course's M8+ values)
  std::optional<Table> table;  // pins the initial state (the harnesses' JState)
  friend bool operator==(const Config&, const Config&) = default;
};

class State {
 public:
  // A fresh game: the 1080 tiles shuffled by `rng`, kHandSize tiles dealt to each seat in order,
  // then the next tile placed at (0, 0). Or, with config.table, exactly that table; seat i is
  // the table's i-th player, in turn order.
  static State start(const Config& config, Rng& rng);

  Seats to_move() const;
  Seats turn_order() const { return {order_.begin(), order_.end()}; }
  View view(Seat p) const;
  std::optional<Foul> check(Seat p, const Action& a) const;
  void apply(Seat p, const Action& a);
  void eject(Seat p);
  Standings standings() const;
  std::optional<Tiles> dealt(Seat p) const;
  void acknowledge(Seat p);

  // The referee's whole knowledge, in the shape of JState (§3) (turn order, pile front first).
  Table table() const;
  std::size_t seats() const { return hands_.size(); }

  // For the conformance suite: a state that differs from this one only in what `viewer` cannot
  // see (the other seats' tiles, swapped among them and with the pile, and the pile's order).
  State scramble_hidden(Seat viewer, Rng& rng) const;

  friend bool operator==(const State&, const State&) = default;

 private:
  void end_turn(Seat p);
  void end_round();
  bool in_game(Seat p) const;

  Map map_;
  std::vector<Tiles> hands_;          // by seat
  std::vector<std::int64_t> scores_;  // by seat
  std::deque<Tile> pile_;
  std::deque<Seat> order_;         // seats still in, active first
  std::vector<Seat> round_to_go_;  // seats yet to move this round, in order
  bool placed_in_round_ = false;   // set by each legal placement (§1.8)
  bool over_ = false;
  Bonuses bonuses_;
  std::optional<std::pair<Seat, Tiles>> dealt_;
};

}  // namespace arbiter::q
