// Battleship benchmarks: one density or posterior decision on real mid-game views, whole
// shots-to-sink games per house shooter, and fleet placement.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "games/battleship/bots.h"
#include "games/battleship/eval.h"
#include "games/battleship/state.h"
#include "games/battleship/types.h"

namespace arbiter::battleship {
namespace {

enum class Phase { any, hunting, targeting };

// Views the density shooter met in real games (10x10, standard fleet, sunk announced) between
// its 10th and 40th shot: all of them, only those right after a miss or a sinking (hunting, as
// a rule), or only those right after a plain hit (targeting).
const std::vector<View>& mid_game_views(Phase phase) {
  static const auto pools = [] {
    std::vector<std::vector<View>> out(3);
    const Config config;
    Shooter shooter(ShooterKind::density);
    for (std::uint64_t g = 0; g < 60; ++g) {
      Rng fleet_rng(Rng::derive(7, "fleet", g));
      const Fleet fleet = place_uniform(config, fleet_rng);
      std::vector<int> owner(100, -1), left;
      for (std::size_t k = 0; k < fleet.size(); ++k) {
        for (const Cell& c : ship_cells(fleet[k])) owner[c.row * 10 + c.col] = k;
        left.push_back(fleet[k].length);
      }
      Rng rng(Rng::derive(7, "shots", g));
      View view;
      view.config = config;
      for (int afloat = static_cast<int>(fleet.size()); afloat > 0;) {
        const int n = static_cast<int>(view.outgoing.size());
        if (n >= 10 && n < 40) {
          out[0].push_back(view);
          const bool hit = view.outgoing.back().result == Outcome::hit;
          out[hit ? 2 : 1].push_back(view);
        }
        const Cell c = shooter.choose(view, rng).at(0);
        const int k = owner[c.row * 10 + c.col];
        ShotResult r{c, Outcome::miss, 0};
        if (k >= 0) r.result = --left[k] ? Outcome::hit : Outcome::sunk;
        if (r.result == Outcome::sunk) {
          r.length = fleet[k].length;
          --afloat;
        }
        view.outgoing.push_back(r);
      }
    }
    return out;
  }();
  return pools[static_cast<int>(phase)];
}

// One decision of the shooter range(0) on the views of phase range(1).
void BM_Decision(benchmark::State& state) {
  const auto kind = static_cast<ShooterKind>(state.range(0));
  const auto& views = mid_game_views(static_cast<Phase>(state.range(1)));
  Shooter shooter(kind);
  Rng rng(1);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(shooter.choose(views[i], rng));
    if (++i == views.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(std::string(to_string(kind)) + (state.range(1) == 0   ? ", any"
                                                 : state.range(1) == 1 ? ", after a miss or sinking"
                                                                       : ", after a hit"));
}
BENCHMARK(BM_Decision)
    ->ArgsProduct({{static_cast<int>(ShooterKind::density),
                    static_cast<int>(ShooterKind::posterior)},
                   {0, 1, 2}})
    ->Unit(benchmark::kMicrosecond);

// One shots-to-sink game per iteration (eval_shots_to_sink with games = 1, a new seed each
// time): items per second are games per second.
void BM_EvalGame(benchmark::State& state) {
  const BotSpec spec{static_cast<ShooterKind>(state.range(0))};
  std::uint64_t seed = 0;
  double shots = 0;
  for (auto _ : state) shots += eval_shots_to_sink(spec, 1, ++seed).mean;
  state.SetItemsProcessed(state.iterations());
  state.counters["shots"] = shots / static_cast<double>(state.iterations());
  state.SetLabel(std::string(to_string(spec.shooter)));
}
BENCHMARK(BM_EvalGame)
    ->Arg(static_cast<int>(ShooterKind::random))
    ->Arg(static_cast<int>(ShooterKind::hunt))
    ->Arg(static_cast<int>(ShooterKind::tracker))
    ->Arg(static_cast<int>(ShooterKind::density))
    ->Arg(static_cast<int>(ShooterKind::posterior))
    ->Unit(benchmark::kMicrosecond);

void BM_Place(benchmark::State& state) {
  const auto kind = static_cast<PlacerKind>(state.range(0));
  Config config;
  config.no_touch = state.range(1) != 0;
  Rng rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(place(kind, config, rng));
  state.SetLabel(std::string(to_string(kind)) + (config.no_touch ? ", no_touch" : ""));
}
BENCHMARK(BM_Place)
    ->Args({static_cast<int>(PlacerKind::uniform), 0})
    ->Args({static_cast<int>(PlacerKind::uniform), 1})
    ->Args({static_cast<int>(PlacerKind::evasive), 0})
    ->Args({static_cast<int>(PlacerKind::hardest), 0})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace arbiter::battleship
