// Measuring the house bots: shots a shooter needs to sink a fleet, and head-to-head win rates, by
// direct simulation (no referee) over seeded games.
#pragma once

#include <cstdint>

#include "games/battleship/bots.h"
#include "games/battleship/types.h"

namespace arbiter::battleship {

struct EvalResult {
  double mean = 0;
  double median = 0;
  double p95 = 0;  // nearest rank
  int max = 0;
  double seconds_per_game = 0;  // wall clock, shooting only
  int games = 0;
};

// Game i: the target fleet is place_uniform(config, Rng(Rng::derive(seed, "fleet", i))); the
// shooter (spec.shooter; its placement is unused) fires one shot at a time with
// Rng(Rng::derive(seed, "shots", i)) until every ship is sunk; the game counts its shots.
// config.salvo is ignored. Throws std::logic_error if the shooter fires off the grid or twice at
// a cell.
EvalResult eval_shots_to_sink(BotSpec spec, int games, std::uint64_t seed,
                              const Config& config = {});

// The fraction of `games` that bot a wins against bot b (a draw counts half): game i places
// both fleets with the bots' placements and plays to the end (docs/games/battleship.md §1:
// alternating turns, salvo if configured, max_turns), a moving first in the even games and b in the
// odd ones. Seeds: Rng::derive(seed, "game", i), then per bot derive(that, "a"/"b").
double head_to_head(BotSpec a, BotSpec b, int games, std::uint64_t seed, const Config& config = {});

}  // namespace arbiter::battleship
