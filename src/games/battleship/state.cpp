// Battleship's rules: fleet legality, shots and their outcomes, turns, the end of the game.
#include "games/battleship/state.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace arbiter::battleship {
namespace {

std::string describe(Cell c) {
  return fmt::format("row {}, col {}", c.row, c.col);
}

std::string describe(const Ship& s) {
  return fmt::format("the length-{} ship at {} ({})", s.length, describe(s.at),
                     s.dir == Dir::h ? "h" : "v");
}

std::vector<int> longest_first(std::vector<int> ls) {
  std::sort(ls.begin(), ls.end(), std::greater<>());
  return ls;
}

std::string describe(const std::vector<int>& ls) {
  return fmt::format("[{}]", fmt::join(ls, ", "));
}

constexpr long kRejectionDraws = 20'000;  // ship draws before giving up on exact uniformity
constexpr long kSearchNodes = 2'000'000;  // placements the fallback search may try

// Which ship (by index) covers each cell of the grid, -1 for water.
class Board {
 public:
  explicit Board(const Config& c) : rows_(c.rows), cols_(c.cols), owner_(rows_ * cols_, -1) {}

  int owner(Cell c) const { return owner_[c.row * cols_ + c.col]; }
  void set(const Ship& s, int index) {
    for (Cell c : ship_cells(s)) owner_[c.row * cols_ + c.col] = index;
  }

  // A cell of `s` (on the grid) that is taken by another ship or, with `no_touch`, next to one;
  // the first such pair (cell of s, cell of the other ship).
  std::optional<std::pair<Cell, Cell>> clash(const Ship& s, int index, bool no_touch) const {
    for (Cell c : ship_cells(s)) {
      const int o = owner(c);
      if (o >= 0 && o != index) return std::pair{c, c};
      if (!no_touch) continue;
      for (int dr = -1; dr <= 1; ++dr) {
        for (int dc = -1; dc <= 1; ++dc) {
          const Cell n{c.row + dr, c.col + dc};
          if (n.row < 0 || n.row >= rows_ || n.col < 0 || n.col >= cols_) continue;
          const int on = owner(n);
          if (on >= 0 && on != index) return std::pair{c, n};
        }
      }
    }
    return std::nullopt;
  }

 private:
  int rows_;
  int cols_;
  std::vector<int> owner_;
};

bool inside(const Config& config, const Ship& s) {
  if (!on_grid(config, s.at)) return false;
  const Cell end = s.dir == Dir::h ? Cell{s.at.row, s.at.col + s.length - 1}
                                   : Cell{s.at.row + s.length - 1, s.at.col};
  return on_grid(config, end);
}

// Every placement of a ship of `length` inside the grid (length 1: one direction only).
std::vector<Ship> placements(const Config& config, int length) {
  std::vector<Ship> out;
  for (Dir d : {Dir::h, Dir::v}) {
    if (d == Dir::v && length == 1) break;
    for (int r = 0; r < config.rows; ++r)
      for (int c = 0; c < config.cols; ++c) {
        const Ship s{length, {r, c}, d};
        if (inside(config, s)) out.push_back(s);
      }
  }
  return out;
}

// Randomized depth-first search over placements, longest ships first; gives up after `budget`
// placements tried.
class FleetSearch {
 public:
  FleetSearch(const Config& config, Rng& rng) : config_(config), rng_(rng), board_(config) {
    order_.resize(config.ships.size());
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<int>(i);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](int a, int b) { return config.ships[a] > config.ships[b]; });
    fleet_.resize(config.ships.size());
  }

  std::optional<Fleet> run() {
    if (place(0)) return fleet_;
    return std::nullopt;
  }

 private:
  bool place(std::size_t k) {
    if (k == order_.size()) return true;
    const int index = order_[k];
    auto options = placements(config_, config_.ships[index]);
    rng_.shuffle(options.begin(), options.end());
    for (const Ship& s : options) {
      if (--budget_ < 0) return false;
      if (board_.clash(s, index, config_.no_touch)) continue;
      board_.set(s, index);
      fleet_[index] = s;
      if (place(k + 1)) return true;
      board_.set(s, -1);
    }
    return false;
  }

  const Config& config_;
  Rng& rng_;
  Board board_;
  std::vector<int> order_;
  Fleet fleet_;
  long budget_ = kSearchNodes;
};

}  // namespace

std::vector<Cell> ship_cells(const Ship& ship) {
  std::vector<Cell> out;
  out.reserve(std::max(ship.length, 0));
  for (int i = 0; i < ship.length; ++i)
    out.push_back(ship.dir == Dir::h ? Cell{ship.at.row, ship.at.col + i}
                                     : Cell{ship.at.row + i, ship.at.col});
  return out;
}

bool on_grid(const Config& config, Cell c) {
  return c.row >= 0 && c.row < config.rows && c.col >= 0 && c.col < config.cols;
}

std::optional<Foul> fleet_foul(const Config& config, const Fleet& fleet) {
  auto bad = [](std::string detail) { return Foul{"bad-fleet", std::move(detail)}; };
  if (fleet.size() != config.ships.size())
    return bad(fmt::format("{} ships placed, the fleet has {}", fleet.size(), config.ships.size()));
  std::vector<int> placed;
  for (const Ship& s : fleet) placed.push_back(s.length);
  placed = longest_first(std::move(placed));
  const std::vector<int> wanted = longest_first(config.ships);
  if (placed != wanted)
    return bad(fmt::format("ship lengths {} do not match the fleet {}", describe(placed),
                           describe(wanted)));
  for (const Ship& s : fleet)
    if (!inside(config, s))
      return bad(
          fmt::format("{} does not fit in the {}x{} grid", describe(s), config.rows, config.cols));
  Board board(config);
  for (std::size_t i = 0; i < fleet.size(); ++i) {
    const int index = static_cast<int>(i);
    if (auto clash = board.clash(fleet[i], index, config.no_touch)) {
      const Ship& other = fleet[board.owner(clash->second)];
      if (clash->first == clash->second)
        return bad(fmt::format("{} overlaps {} at {}", describe(fleet[i]), describe(other),
                               describe(clash->first)));
      return bad(fmt::format("{} touches {} ({} next to {}) and ships may not touch",
                             describe(fleet[i]), describe(other), describe(clash->first),
                             describe(clash->second)));
    }
    board.set(fleet[i], index);
  }
  return std::nullopt;
}

std::optional<Fleet> random_fleet(const Config& config, Rng& rng) {
  std::vector<std::vector<Ship>> options;
  for (int length : config.ships) {
    options.push_back(placements(config, length));
    if (options.back().empty()) return std::nullopt;
  }
  std::vector<int> order(config.ships.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return config.ships[a] > config.ships[b]; });
  // Rejection sampling, longest ships first so that a clash shows early: uniform over legal
  // fleets.
  Fleet fleet(config.ships.size());
  for (long draws = 0; draws < kRejectionDraws;) {
    Board board(config);
    bool ok = true;
    for (int i : order) {
      ++draws;
      const Ship s = options[i][rng.below(options[i].size())];
      if (board.clash(s, i, config.no_touch)) {
        ok = false;
        break;
      }
      board.set(s, i);
      fleet[i] = s;
    }
    if (ok) return fleet;
  }
  return FleetSearch(config, rng).run();
}

State State::start(const Config& config) {
  State s;
  s.config_ = config;
  return s;
}

Seats State::to_move() const {
  if (over_) return {};
  return {next_};
}

Seats State::turn_order() const {
  Seats seats;
  for (Seat p : {0, 1})
    if (in_[p]) seats.push_back(p);
  return seats;
}

View State::view(Seat p) const {
  View v;
  v.turn = turns_[0] + turns_[1];
  v.you = p;
  v.config = config_;
  v.fleet = fleets_[p];
  v.incoming = shots_[other(p)];
  v.outgoing = shots_[p];
  if (!config_.announce_sunk) {
    for (ShotResult& r : v.outgoing) {
      if (r.result == Outcome::sunk) r = {r.cell, Outcome::hit, 0};
    }
  }
  return v;
}

std::optional<Foul> State::check_setup(Seat p, const Fleet& fleet) const {
  if (!in_[p]) return Foul{"not-in-game", fmt::format("seat {} is out of the game", p)};
  if (placed_[p])
    return Foul{"already-set-up", fmt::format("seat {} has placed its fleet already", p)};
  return fleet_foul(config_, fleet);
}

void State::apply_setup(Seat p, const Fleet& fleet) {
  assert(!check_setup(p, fleet));
  fleets_[p] = fleet;
  placed_[p] = true;
}

bool State::fired_at(Seat p, Cell c) const {
  return std::any_of(shots_[p].begin(), shots_[p].end(),
                     [&](const ShotResult& r) { return r.cell == c; });
}

int State::ships_afloat(Seat p) const {
  int afloat = 0;
  for (const Ship& s : fleets_[p]) {
    const auto cells = ship_cells(s);
    afloat +=
        !std::all_of(cells.begin(), cells.end(), [&](Cell c) { return fired_at(other(p), c); });
  }
  return afloat;
}

int State::hits_landed(Seat p) const {
  return static_cast<int>(
      std::count_if(shots_[p].begin(), shots_[p].end(),
                    [](const ShotResult& r) { return r.result != Outcome::miss; }));
}

int State::shots_due(Seat p) const {
  if (!config_.salvo) return 1;
  const int unfired = config_.rows * config_.cols - static_cast<int>(shots_[p].size());
  return std::min(ships_afloat(p), unfired);
}

std::optional<Foul> State::check(Seat p, const Shots& shots) const {
  if (over_) return Foul{"not-your-turn", "the game is over"};
  if (p != next_) return Foul{"not-your-turn", fmt::format("it is seat {}'s turn", next_)};
  if (!placed_[0] || !placed_[1])
    return Foul{"not-set-up", "shots come after both fleets are placed"};
  const int due = shots_due(p);
  if (static_cast<int>(shots.size()) != due) {
    if (config_.salvo)
      return Foul{"wrong-shot-count", fmt::format("a salvo of {} shots; {} due ({} ships afloat)",
                                                  shots.size(), due, ships_afloat(p))};
    return Foul{"wrong-shot-count", fmt::format("{} shots; one shot per turn", shots.size())};
  }
  for (std::size_t i = 0; i < shots.size(); ++i) {
    const Cell c = shots[i];
    if (!on_grid(config_, c))
      return Foul{"off-grid", fmt::format("the shot at {} is outside the {}x{} grid", describe(c),
                                          config_.rows, config_.cols)};
    if (fired_at(p, c))
      return Foul{"repeat-shot", fmt::format("{} was fired at before", describe(c))};
    if (std::find(shots.begin(), shots.begin() + i, c) != shots.begin() + i)
      return Foul{"repeat-shot", fmt::format("{} is fired at twice in one salvo", describe(c))};
  }
  return std::nullopt;
}

ShotResult State::judge(Seat p, Cell c) const {
  for (const Ship& s : fleets_[other(p)]) {
    const auto cells = ship_cells(s);
    if (std::find(cells.begin(), cells.end(), c) == cells.end()) continue;
    const bool sinks =
        std::all_of(cells.begin(), cells.end(), [&](Cell x) { return x == c || fired_at(p, x); });
    if (sinks) return {c, Outcome::sunk, s.length};
    return {c, Outcome::hit, 0};
  }
  return {c, Outcome::miss, 0};
}

void State::apply(Seat p, const Shots& shots) {
  assert(!check(p, shots));
  for (Cell c : shots) shots_[p].push_back(judge(p, c));
  ++turns_[p];
  if (ships_afloat(other(p)) == 0 ||
      (turns_[0] >= config_.max_turns && turns_[1] >= config_.max_turns)) {
    over_ = true;
    return;
  }
  next_ = other(p);
}

void State::eject(Seat p) {
  in_[p] = false;
  over_ = true;
}

Standings State::standings() const {
  Standings st;
  st.scores = {hits_landed(0), hits_landed(1)};
  const Seats in = turn_order();
  if (in.size() == 1) st.winners = in;
  if (in.size() != 2) return st;
  // Both still in: a sunk fleet loses; otherwise (the turn limit) more hits win.
  for (Seat p : {0, 1}) {
    if (placed_[p] && ships_afloat(p) == 0) {
      st.winners = {other(p)};
      st.losers = {p};
      return st;
    }
  }
  if (st.scores[0] == st.scores[1]) {
    st.winners = {0, 1};
  } else {
    const Seat best = st.scores[0] > st.scores[1] ? 0 : 1;
    st.winners = {best};
    st.losers = {other(best)};
  }
  return st;
}

State State::scramble_hidden(Seat viewer, Rng& rng) const {
  State s = *this;
  const Seat o = other(viewer);
  if (!placed_[o]) return s;
  std::vector<bool> fired(config_.rows * config_.cols, false);
  for (const ShotResult& r : shots_[viewer]) fired[r.cell.row * config_.cols + r.cell.col] = true;
  auto untouched = [&](const Ship& ship) {
    const auto cells = ship_cells(ship);
    return std::none_of(cells.begin(), cells.end(),
                        [&](Cell c) { return fired[c.row * config_.cols + c.col]; });
  };
  const Fleet& fleet = fleets_[o];
  std::vector<int> movable;
  for (std::size_t i = 0; i < fleet.size(); ++i)
    if (untouched(fleet[i])) movable.push_back(static_cast<int>(i));
  if (movable.empty()) return s;
  for (int attempt = 0; attempt < 20; ++attempt) {
    Board board(config_);
    for (std::size_t i = 0; i < fleet.size(); ++i)
      if (std::find(movable.begin(), movable.end(), static_cast<int>(i)) == movable.end())
        board.set(fleet[i], static_cast<int>(i));
    Fleet moved = fleet;
    rng.shuffle(movable.begin(), movable.end());
    bool ok = true;
    for (int index : movable) {
      std::vector<Ship> options;
      for (const Ship& candidate : placements(config_, fleet[index].length))
        if (untouched(candidate) && !board.clash(candidate, index, config_.no_touch))
          options.push_back(candidate);
      if (options.empty()) {
        ok = false;
        break;
      }
      moved[index] = options[rng.below(options.size())];
      board.set(moved[index], index);
    }
    if (ok && moved != fleet) {
      s.fleets_[o] = std::move(moved);
      return s;
    }
  }
  return s;
}

}  // namespace arbiter::battleship
