// Private to the Battleship house bots: grid geometry on cell indices, what the outgoing shots
// tell (Knowledge), a hidden fleet under fire (Target), and the entry points of the shooter
// families, shared by bots.cpp, placement.cpp, hunt_shooters.cpp, density_shooter.cpp,
// posterior_shooter.cpp and eval.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/rng.h"
#include "games/battleship/types.h"

namespace arbiter::battleship {

// ---------------------------------------------------------------------------------------------
// Grid geometry on cell indices (row * cols + col)

// A straight run of `length` cells from `start` in steps of `step` (1 across, cols down).
struct Segment {
  int start = 0;
  int step = 1;
  int length = 0;
};

struct Grid {
  int rows = 0;
  int cols = 0;

  explicit Grid(const Config& c) : rows(c.rows), cols(c.cols) {}
  int size() const { return rows * cols; }
  bool inside(int r, int c) const { return r >= 0 && r < rows && c >= 0 && c < cols; }
  int index(Cell c) const { return c.row * cols + c.col; }
  Cell cell(int i) const { return {i / cols, i % cols}; }

  // Every in-grid segment of `length`: across first, then down (length 1: across only).
  std::vector<Segment> segments(int length) const {
    std::vector<Segment> out;
    if (length <= 0) return out;
    if (length <= cols)
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c + length <= cols; ++c) out.push_back({r * cols + c, 1, length});
    if (length > 1 && length <= rows)
      for (int r = 0; r + length <= rows; ++r)
        for (int c = 0; c < cols; ++c) out.push_back({r * cols + c, cols, length});
    return out;
  }

  Ship ship(const Segment& s) const {
    return {s.length, cell(s.start), s.step == 1 || s.length == 1 ? Dir::h : Dir::v};
  }

  // Calls f(j) for every in-grid cell j among the 8 around i.
  template <class F>
  void around(int i, F&& f) const {
    const int r = i / cols, c = i % cols;
    for (int dr = -1; dr <= 1; ++dr)
      for (int dc = -1; dc <= 1; ++dc)
        if ((dr || dc) && inside(r + dr, c + dc)) f((r + dr) * cols + c + dc);
  }

  // Calls f(j) for every in-grid orthogonal neighbour j of i.
  template <class F>
  void beside(int i, F&& f) const {
    const int r = i / cols, c = i % cols;
    if (r > 0) f(i - cols);
    if (r + 1 < rows) f(i + cols);
    if (c > 0) f(i - 1);
    if (c + 1 < cols) f(i + 1);
  }
};

template <class F>
void for_cells(const Segment& s, F&& f) {
  for (int k = 0; k < s.length; ++k) f(s.start + k * s.step);
}

// Throws std::invalid_argument for a config the bots cannot play: a side outside 1..26, or a ship
// shorter than 1 or longer than the grid's longer side.
void check_config(const Config& c);

// ---------------------------------------------------------------------------------------------
// What the outgoing shots tell

enum : std::uint8_t { kUnknown = 0, kMiss = 1, kHit = 2 };

// A ship announced sunk: the segments it may be (length `length`, through `cell`, all hits fired
// no later than the sinking shot), narrowed down against the other sunk ships.
struct SunkShip {
  int cell = 0;
  int length = 0;
  int when = 0;
  std::vector<Segment> options;
  bool fixed = false;  // options.size() == 1
};

struct Knowledge {
  std::vector<std::uint8_t> state;    // kUnknown, kMiss, kHit per cell
  std::vector<int> when;              // index of the shot at the cell in view.outgoing, or -1
  std::vector<SunkShip> sunk;         // in the order announced
  std::vector<int> afloat;            // lengths of the opponent's ships not announced sunk
  std::vector<std::uint8_t> settled;  // hits that certainly belong to a sunk ship
  std::vector<std::uint8_t> banned;   // no_touch: unknown cells next to a settled cell
};

// What the outgoing shots of `view` tell (bots.cpp).
Knowledge read_view(const View& view, const Grid& grid);

// The first `count` distinct cells of `ranked` (bots.cpp).
Shots pick(const Grid& grid, const std::vector<int>& ranked, int count);

// ---------------------------------------------------------------------------------------------
// A hidden fleet under fire (bots.cpp): the answers of §1 to a lone shooter, for the eval and
// for placements that try fleets out.
class Target {
 public:
  Target(const Config& config, const Fleet& fleet);
  // Throws std::logic_error for a shot off the grid or at a cell fired at before.
  ShotResult fire(const Cell& c);
  bool sunk() const { return afloat_ == 0; }
  int afloat() const { return afloat_; }
  int hits() const { return hits_; }

 private:
  int index(const Cell& c) const { return c.row * config_.cols + c.col; }

  Config config_;
  std::vector<int> owner_;  // per cell: the ship on it, or -1
  std::vector<std::uint8_t> fired_;
  std::vector<int> left_;     // per ship: cells not hit
  std::vector<int> lengths_;  // per ship
  int afloat_ = 0;
  int hits_ = 0;
};

// ---------------------------------------------------------------------------------------------
// The shooters (bots.h says how each aims): `count` distinct cells never fired at

// hunt_shooters.cpp
Shots shoot_random(const Grid& grid, const Knowledge& k, int count, Rng& rng);
Shots shoot_hunt(const Grid& grid, const Knowledge& k, int count, Rng& rng);
Shots shoot_tracker(const Grid& grid, const Knowledge& k, int count, Rng& rng);

// density_shooter.cpp
class DensityModel {
 public:
  virtual ~DensityModel() = default;
  // Per cell, the estimated chance that an unhit ship cell is there (0 where fired at).
  virtual void estimate(const Knowledge& k, std::vector<double>& p) = 0;
};

std::unique_ptr<DensityModel> make_density(const Config& config);
// The `count` cells with the highest estimate (ties in random order), then random unknown
// cells if the estimate runs out.
Shots shoot_density(const Grid& grid, const Knowledge& k, const std::vector<double>& p, int count,
                    Rng& rng);

// posterior_shooter.cpp
// Fleets drawn uniformly from those consistent with a Knowledge.
class FleetSampler {
 public:
  virtual ~FleetSampler() = default;
  // Enumerates the ways the unresolved hits can be covered. False when they are too many for
  // the budget, or none (only for views no fleet explains).
  virtual bool prepare(const Knowledge& k) = 0;
  // REQUIRES: prepare() returned true. One proposal: true and a fleet (every ship's segment,
  // the sunk ones too) when it is accepted, false when its free ships clash. Accepted fleets
  // are uniform over the consistent ones.
  virtual bool propose(Rng& rng, std::vector<Segment>& fleet) = 0;
};

// Fleets the posterior shooter draws per shot.
inline constexpr int kPosteriorFleets = 4000;

class PosteriorModel {
 public:
  virtual ~PosteriorModel() = default;
  virtual FleetSampler& sampler() = 0;
  // `count` distinct unknown cells (bots.h says how).
  virtual Shots choose(const Knowledge& k, int count, Rng& rng) = 0;
};

std::unique_ptr<PosteriorModel> make_posterior(const Config& config);

}  // namespace arbiter::battleship
