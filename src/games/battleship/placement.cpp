// Battleship house placements: uniform over legal fleets, and evasive (of many uniform fleets, the
// one on the cells density shooters try last).
#include "games/battleship/bots.h"
#include "games/battleship/bots_internal.h"
#include "games/battleship/state.h"

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

Fleet place(PlacerKind kind, const Config& config, Rng& rng) {
  return kind == PlacerKind::evasive ? place_evasive(config, rng) : place_uniform(config, rng);
}

}  // namespace arbiter::battleship
