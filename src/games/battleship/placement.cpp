// Battleship house placements: uniform over legal fleets, evasive (of many uniform fleets, the
// one on the cells density shooters try last) and hardest (of several evasive fleets, the one
// density shooters took longest to sink in trial games).
#include "games/battleship/bots.h"
#include "games/battleship/bots_internal.h"
#include "games/battleship/state.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace arbiter::battleship {
namespace {

// The empty-board chance, per cell, that some ship covers it (ships taken independently).
std::vector<double> prior_density(const Config& config) {
  const Grid grid(config);
  std::vector<double> p(grid.size(), 0.0);
  for (int len : config.ships) {
    const auto segs = grid.segments(len);
    if (segs.empty()) continue;
    const double w = 1.0 / static_cast<double>(segs.size());
    for (const Segment& s : segs) for_cells(s, [&](int i) { p[i] += w; });
  }
  return p;
}

// Whether whole fleets rarely fit when each ship is dropped uniformly on its segments: fewer
// than 4 of 200 trial drops (from a stream of its own, so the caller's draws are untouched)
// without an overlap (with no_touch, a touch).
bool hard_to_fit(const Config& config) {
  const Grid grid(config);
  std::vector<std::vector<Segment>> segments;
  for (int len : config.ships) {
    segments.push_back(grid.segments(len));
    if (segments.back().empty()) return true;
  }
  Rng rng(Rng::derive(0, "hard_to_fit"));
  std::vector<std::uint8_t> taken(grid.size());
  int fit = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::fill(taken.begin(), taken.end(), 0);
    bool ok = true;
    for (std::size_t k = 0; k < segments.size() && ok; ++k) {
      const Segment& s = segments[k][rng.below(segments[k].size())];
      for_cells(s, [&](int i) {
        ok = ok && !taken[i];
        if (config.no_touch) grid.around(i, [&](int j) { ok = ok && !taken[j]; });
      });
      for_cells(s, [&](int i) { taken[i] = 1; });
    }
    fit += ok;
  }
  return fit < 4;
}

}  // namespace

Fleet place_uniform(const Config& config, Rng& rng) {
  check_config(config);
  auto fleet = random_fleet(config, rng);
  if (!fleet) throw std::invalid_argument("no legal fleet found for this config");
  return std::move(*fleet);
}

Fleet place_evasive(const Config& config, Rng& rng) {
  const Grid grid(config);
  const std::vector<double> density = prior_density(config);
  Fleet best;
  double best_score = std::numeric_limits<double>::infinity();
  for (int draw = 0; draw < kEvasiveDraws; ++draw) {
    Fleet fleet = place_uniform(config, rng);
    double score = 0.0;
    for (const Ship& s : fleet)
      for (const Cell& c : ship_cells(s)) score += density[grid.index(c)];
    if (score < best_score) {
      best_score = score;
      best = std::move(fleet);
    }
  }
  return best;
}

Fleet place_hardest(const Config& config, Rng& rng) {
  // Where whole fleets rarely fit, uniform fleets are hard enough, and both an evasive draw (a
  // hundred uniform ones, each possibly random_fleet's search) and a density trial game (many
  // ways to cover each hit) cost too much.
  if (hard_to_fit(config)) return place_uniform(config, rng);
  // A density game costs about the square of the cells and grows with the ships: keep the
  // trials near the standard grid's cost.
  constexpr long kFull = kHardestCandidates * kHardestTrials;
  const long cells = config.rows * config.cols;
  const long ships = std::max<long>(1, static_cast<long>(config.ships.size()));
  const int budget =
      static_cast<int>(std::clamp(kFull * 10'000 * 5 / (cells * cells * ships), 1L, kFull));
  const int trials = budget >= 16 ? kHardestTrials : 1;
  if (budget == 1) return place_evasive(config, rng);
  Shooter trial(ShooterKind::density);
  Fleet best;
  int most = -1;
  for (int candidate = 0; candidate < budget / trials; ++candidate) {
    Fleet fleet = place_evasive(config, rng);
    int shots = 0;
    for (int t = 0; t < trials; ++t) {
      Target target(config, fleet);
      View view;
      view.config = config;
      view.fleet = fleet;  // salvo: a whole fleet of its own, never hit
      while (!target.sunk()) {
        const Shots volley = trial.choose(view, rng);
        if (volley.empty()) break;
        for (const Cell& c : volley) view.outgoing.push_back(target.fire(c));
      }
      shots += static_cast<int>(view.outgoing.size());
    }
    if (shots > most) {
      most = shots;
      best = std::move(fleet);
    }
  }
  return best;
}

Fleet place(PlacerKind kind, const Config& config, Rng& rng) {
  switch (kind) {
    case PlacerKind::uniform:
      return place_uniform(config, rng);
    case PlacerKind::evasive:
      return place_evasive(config, rng);
    case PlacerKind::hardest:
      return place_hardest(config, rng);
  }
  return place_uniform(config, rng);
}

}  // namespace arbiter::battleship
