// Measuring the house bots: shots a shooter needs to sink a fleet, and head-to-head win rates, by
// direct simulation (no referee) over seeded games.
#pragma once

#include <cstdint>

#include "games/battleship/bots.h"
#include "games/battleship/types.h"

namespace arbiter::battleship {

struct EvalResult {
  double mean = 0;
  double ci_low = 0;   // the 95 % interval of the mean: mean -+ 1.96 sd / sqrt(games), sd the
  double ci_high = 0;  // sample standard deviation
  double median = 0;
  double p90 = 0;  // nearest rank
  double p95 = 0;  // nearest rank
  int max = 0;
  double seconds_per_game = 0;  // wall clock, shooting only
  int games = 0;
  bool volleys = false;  // salvo: the counts are turns (volleys), not single shots
};

// Game i: the target fleet is place(fleets, config, Rng(Rng::derive(seed, "fleet", i))); the
// shooter (spec.shooter; its placement is unused) fires with Rng(Rng::derive(seed, "shots", i))
// until every ship is sunk; the game counts its shots. With config.salvo it fires a volley a
// turn, one shot per ship afloat of its own fleet (place_uniform with derive(seed, "own", i),
// never hit here), and the game counts its volleys. Throws std::logic_error if the shooter fires
// off the grid, twice at a cell, or the wrong number of shots.
EvalResult eval_shots_to_sink(BotSpec spec, int games, std::uint64_t seed,
                              const Config& config = {}, PlacerKind fleets = PlacerKind::uniform);

// The fraction of `games` that bot a wins against bot b (a draw counts half): game i places
// both fleets with the bots' placements and plays to the end (docs/games/battleship.md §1:
// alternating turns, salvo if configured, max_turns), a moving first in the even games and b in the
// odd ones. Seeds: Rng::derive(seed, "game", i), then per bot derive(that, "a"/"b").
double head_to_head(BotSpec a, BotSpec b, int games, std::uint64_t seed, const Config& config = {});

}  // namespace arbiter::battleship
