// The referee's state of a Battleship game: the Rules and SetsUp implementation (core/rules.h)
// for docs/games/battleship.md §1-2, plus the fleet helpers the codec, the samplers and the
// bots share (the cells a ship covers, the legality of a fleet, random legal fleets).
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "core/foul.h"
#include "core/rng.h"
#include "core/seat.h"
#include "core/standings.h"
#include "games/battleship/types.h"

namespace arbiter::battleship {

inline constexpr int kMinGrid = 5;
inline constexpr int kMaxGrid = 26;
inline constexpr int kMaxTurnsLimit = 100'000;

// The cells `ship` covers, from its top-left end. REQUIRES: ship.length is small (the grid's).
std::vector<Cell> ship_cells(const Ship& ship);

bool on_grid(const Config& config, Cell cell);

// Why `fleet` is not a legal placement under `config` (code "bad-fleet"), or nothing: one ship
// per length of config.ships (as a multiset), each inside the grid, none overlapping and, with
// no_touch, none adjacent (diagonals included).
std::optional<Foul> fleet_foul(const Config& config, const Fleet& fleet);

// A legal fleet drawn uniformly from all legal placements (rejection sampling), or, for crowded
// configs where that rarely succeeds, from a randomized exhaustive search. Ships are listed in
// config.ships order. Returns nothing when no legal fleet was found (the config is too crowded).
std::optional<Fleet> random_fleet(const Config& config, Rng& rng);

class State {
 public:
  // A game waiting for both fleets. REQUIRES: config is valid (decode_config's checks).
  static State start(const Config& config);

  // Empty once the game is over; otherwise the seat whose turn it is (seat 0 first, then
  // alternating). Fleets are set up before any turn (the referee's setup round).
  Seats to_move() const;
  Seats turn_order() const;  // the seats still in, in seat order
  View view(Seat p) const;

  std::optional<Foul> check_setup(Seat p, const Fleet& fleet) const;
  void apply_setup(Seat p, const Fleet& fleet);

  std::optional<Foul> check(Seat p, const Shots& shots) const;
  void apply(Seat p, const Shots& shots);

  // p is out: the game is over and the other seat (if still in) wins.
  void eject(Seat p);
  Standings standings() const;

  // How many shots p must fire this turn: 1, or in salvo mode one per own ship afloat (but never
  // more than the cells p has not fired at yet).
  int shots_due(Seat p) const;
  int ships_afloat(Seat p) const;
  int hits_landed(Seat p) const;
  bool over() const { return over_; }
  const Config& config() const { return config_; }

  // For the conformance suite: a state that differs from this one only in what `viewer` cannot
  // see, the opponent's fleet: its ships that no shot has touched are moved to other legal spots
  // on cells the viewer never fired at (so every answer the viewer got stays the same). A copy
  // when nothing can move.
  State scramble_hidden(Seat viewer, Rng& rng) const;

  friend bool operator==(const State&, const State&) = default;

 private:
  static Seat other(Seat p) { return 1 - p; }
  bool fired_at(Seat p, Cell c) const;
  // The outcome of p's shot at c given p's earlier shots (the shot is not recorded).
  ShotResult judge(Seat p, Cell c) const;

  Config config_;
  std::array<Fleet, 2> fleets_;
  std::array<bool, 2> placed_{false, false};
  std::array<bool, 2> in_{true, true};
  // shots_[p]: p's shots at the other seat in order, with their full outcome (sunk + length even
  // when sinkings are not announced: the owner is told).
  std::array<std::vector<ShotResult>, 2> shots_;
  std::array<int, 2> turns_{0, 0};  // turns taken by each seat
  Seat next_ = 0;
  bool over_ = false;
};

}  // namespace arbiter::battleship
