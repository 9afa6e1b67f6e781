// Battleship's Game bundle: the setup hooks of the wire and the conformance suite's samplers.
#include "games/battleship/game.h"

#include <algorithm>
#include <set>
#include <vector>

namespace arbiter::battleship {
namespace {

// The cells `view`'s seat has not fired at, in row-major order.
std::vector<Cell> unfired(const View& view) {
  std::set<Cell> fired;
  for (const ShotResult& r : view.outgoing) fired.insert(r.cell);
  std::vector<Cell> out;
  for (int r = 0; r < view.config.rows; ++r)
    for (int c = 0; c < view.config.cols; ++c)
      if (!fired.contains({r, c})) out.push_back({r, c});
  return out;
}

// How many shots `view`'s seat owes this turn (State::shots_due from what the seat knows).
std::size_t due(const View& view, std::size_t unfired_cells) {
  if (!view.config.salvo) return 1;
  std::set<Cell> hit;
  for (const ShotResult& r : view.incoming) hit.insert(r.cell);
  std::size_t afloat = 0;
  for (const Ship& s : view.fleet) {
    const auto cells = ship_cells(s);
    afloat += !std::all_of(cells.begin(), cells.end(), [&](Cell c) { return hit.contains(c); });
  }
  return std::min(afloat, unfired_cells);
}

}  // namespace

Expected<void> Battleship::check_seats(const Config& config, std::size_t) {
  Rng probe(1);
  if (!random_fleet(config, probe))
    return fail("Battleship config: no legal placement of the fleet fits on the grid");
  return {};
}

Expected<View> Battleship::decode_setup_args(const Json& args) {
  if (!args.is_array() || args.size() != 1)
    return fail("setup: expected [Config], got " + excerpt(args));
  auto config = battleship::decode_config(args[0]);
  if (!config) return fail(config.error().message);
  View v;
  v.config = std::move(*config);
  return v;
}

Fleet Battleship::sample_fleet(const Config& config, Rng& rng) {
  if (auto fleet = random_fleet(config, rng)) return std::move(*fleet);
  Fleet corner;
  for (int length : config.ships) corner.push_back({length, {0, 0}, Dir::h});
  return corner;
}

Fleet Battleship::sample_setup(const View& view, Rng& rng) {
  Fleet fleet = sample_fleet(view.config, rng);
  if (fleet.empty() || rng.below(25) != 0) return fleet;
  switch (rng.below(4)) {
    case 0:
      fleet.pop_back();
      break;
    case 1:
      fleet.back().at = {view.config.rows - 1, view.config.cols - 1};
      fleet.back().dir = Dir::h;
      break;
    case 2:
      fleet.back().at = fleet.front().at;
      fleet.back().dir = fleet.front().dir;
      break;
    default:
      fleet.push_back(fleet.front());
      break;
  }
  return fleet;
}

Shots Battleship::sample_action(const View& view, Rng& rng) {
  std::vector<Cell> open = unfired(view);
  const std::size_t n = due(view, open.size());
  rng.shuffle(open.begin(), open.end());
  Shots shots(open.begin(), open.begin() + std::min(n, open.size()));
  if (rng.below(60) != 0) return shots;
  switch (rng.below(4)) {
    case 0:  // off the grid
      shots.push_back({static_cast<int>(rng.below(view.config.rows + 1)),
                       rng.below(2) ? -1 : view.config.cols});
      if (!view.config.salvo) shots.erase(shots.begin());
      break;
    case 1:  // at a cell fired at before, or twice in one salvo
      if (!view.outgoing.empty())
        shots.back() = view.outgoing[rng.below(view.outgoing.size())].cell;
      else if (!shots.empty())
        shots.push_back(shots.front());
      break;
    case 2:  // one too many
      if (!open.empty()) shots.push_back(open.back());
      break;
    default:  // none at all
      shots.clear();
      break;
  }
  return shots;
}

}  // namespace arbiter::battleship
