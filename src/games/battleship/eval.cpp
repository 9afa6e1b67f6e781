// Measuring the house bots by direct simulation: shots to sink a fleet, head-to-head win rates.
#include "games/battleship/eval.h"
#include "games/battleship/bots_internal.h"

#include "games/battleship/state.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace arbiter::battleship {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

EvalResult eval_shots_to_sink(BotSpec spec, int games, std::uint64_t seed, const Config& config,
                              PlacerKind fleets) {
  EvalResult result;
  if (games <= 0) return result;
  const Config& c = config;
  Shooter shooter(spec.shooter);
  std::vector<int> counts(games);
  double seconds = 0;
  for (int g = 0; g < games; ++g) {
    Rng fleet_rng(Rng::derive(seed, "fleet", g));
    Target target(c, place(fleets, c, fleet_rng));
    Rng rng(Rng::derive(seed, "shots", g));
    View view;
    view.config = c;
    if (c.salvo) {
      Rng own(Rng::derive(seed, "own", g));
      view.fleet = place_uniform(c, own);
    }
    int volleys = 0;
    const auto start = std::chrono::steady_clock::now();
    while (!target.sunk()) {
      const Shots s = shooter.choose(view, rng);
      const std::size_t due = c.salvo ? std::min(view.fleet.size(),
                                                  static_cast<std::size_t>(c.rows * c.cols) -
                                                      view.outgoing.size())
                                      : 1;
      if (s.size() != due)
        throw std::logic_error(fmt::format("{} shots instead of {}", s.size(), due));
      for (const Cell& cell : s) view.outgoing.push_back(target.fire(cell));
      ++volleys;
      view.turn += 2;
    }
    seconds += seconds_since(start);
    counts[g] = c.salvo ? volleys : static_cast<int>(view.outgoing.size());
  }
  std::vector<int> sorted = counts;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (int s : sorted) sum += s;
  result.games = games;
  result.volleys = c.salvo;
  result.mean = sum / games;
  double squares = 0;
  for (int s : sorted) squares += (s - result.mean) * (s - result.mean);
  const double sd = games > 1 ? std::sqrt(squares / (games - 1)) : 0.0;
  const double half = 1.959963984540054 * sd / std::sqrt(static_cast<double>(games));
  result.ci_low = result.mean - half;
  result.ci_high = result.mean + half;
  result.median = games % 2 ? sorted[games / 2] : (sorted[games / 2 - 1] + sorted[games / 2]) / 2.0;
  const auto nearest_rank = [&](double q) {
    const int rank = static_cast<int>(std::ceil(q * games));
    return static_cast<double>(sorted[std::max(rank, 1) - 1]);
  };
  result.p90 = nearest_rank(0.90);
  result.p95 = nearest_rank(0.95);
  result.max = sorted.back();
  result.seconds_per_game = seconds / games;
  return result;
}

double head_to_head(BotSpec a, BotSpec b, int games, std::uint64_t seed, const Config& config) {
  if (games <= 0) return 0;
  const BotSpec specs[2] = {a, b};
  Shooter shooters[2] = {Shooter(a.shooter), Shooter(b.shooter)};
  double a_score = 0;
  for (int g = 0; g < games; ++g) {
    const std::uint64_t game_seed = Rng::derive(seed, "game", g);
    // Side 0 is bot a, side 1 bot b; seat order alternates with g.
    Rng place_rng[2] = {Rng(Rng::derive(game_seed, "a", 0)), Rng(Rng::derive(game_seed, "b", 0))};
    Rng shot_rng[2] = {Rng(Rng::derive(game_seed, "a", 1)), Rng(Rng::derive(game_seed, "b", 1))};
    View views[2];
    std::vector<Target> targets;
    for (int s = 0; s < 2; ++s) {
      views[s].config = config;
      views[s].fleet = place(specs[s].placer, config, place_rng[s]);
      if (auto foul = fleet_foul(config, views[s].fleet))
        throw std::logic_error("illegal placement: " + foul->detail);
    }
    for (int s = 0; s < 2; ++s) targets.emplace_back(config, views[1 - s].fleet);  // s fires at
    int mover = g % 2;
    views[0].you = mover == 0 ? 0 : 1;
    views[1].you = 1 - views[0].you;
    int turns[2] = {0, 0};
    int turn = 0;
    int winner = -1;  // side; 2 = draw
    while (winner < 0) {
      if (turns[0] >= config.max_turns && turns[1] >= config.max_turns) {
        const int h0 = targets[0].hits(), h1 = targets[1].hits();
        winner = h0 > h1 ? 0 : h1 > h0 ? 1 : 2;
        break;
      }
      View& v = views[mover];
      v.turn = turn;
      const Shots shots = shooters[mover].choose(v, shot_rng[mover]);
      if (static_cast<int>(shots.size()) != shots_due(v))
        throw std::logic_error(fmt::format("{} fired {} shots, {} due", to_string(specs[mover]),
                                           shots.size(), shots_due(v)));
      std::vector<ShotResult> results;
      for (const Cell& c : shots) results.push_back(targets[mover].fire(c));
      for (const ShotResult& r : results) {
        v.outgoing.push_back(r);
        views[1 - mover].incoming.push_back(r);
      }
      ++turns[mover];
      ++turn;
      if (targets[mover].sunk()) winner = mover;
      mover = 1 - mover;
    }
    a_score += winner == 0 ? 1.0 : winner == 2 ? 0.5 : 0.0;
  }
  return a_score / games;
}

}  // namespace arbiter::battleship
