// The Dominosa race's entry (arena/registry.h): its races hosted by arena/realtime_entry.h with
// the puzzle racers, its replay.
#include "arena/dominosa.h"

#include <optional>

#include <fmt/format.h>

#include "arena/realtime_entry.h"
#include "core/seat_count.h"
#include "games/dominosa/bots.h"
#include "games/dominosa/game.h"
#include "games/dominosa/spectator.h"

namespace arbiter {
namespace {

Expected<dominosa::RaceConfig> dominosa_config(const Json& given, std::size_t seats) {
  return seated_config(given, seats, "Dominosa race",
                       [](const Json& j) { return dominosa::DominosaRace::decode_config(j); });
}

Expected<PlayOutcome> play_dominosa(const PlaySpec& spec) {
  using dominosa::DominosaRace;
  auto config = dominosa_config(spec.config, spec.roster.size());
  if (!config) return std::unexpected(config.error());
  auto started = race::outcome_of(spec);
  if (!started) return std::unexpected(started.error());
  PlayOutcome outcome = std::move(*started);
  Rng rng(seeds::start(spec.seed));
  std::optional<DominosaRace::State> state;
  try {
    state = DominosaRace::start(*config, rng);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  auto result = race::run<DominosaRace>(
      spec, outcome.names, *state, DominosaRace::encode(*config), config->max_rate,
      config->max_bytes, [&](Seat seat, const RacerSpec& racer) -> std::shared_ptr<Racer> {
        return std::make_shared<dominosa::PuzzleRacer>(outcome.names[seat], racer,
                                                       *spec.options.clock);
      });
  if (!result) return fail(result.error().message);
  outcome.result = std::move(*result);
  outcome.report.push_back("puzzle: " + dominosa::game_id(state->puzzle()));
  if (state->solved_at())
    outcome.report.push_back("solved in " + race::seconds_text(*state->solved_at()));
  outcome.details = {{"puzzle", dominosa::game_id(state->puzzle())}};
  if (state->solved_at()) outcome.details["solved_at_us"] = detail::micros(*state->solved_at());
  return outcome;
}

Expected<ReplayReport> replay_dominosa(const std::vector<Json>& log) {
  using dominosa::DominosaRace;
  const Json& header = log.at(0);
  auto seed = to_natural(field_or_null(header, "seed"), "the log's seed");
  if (!seed) return std::unexpected(seed.error());
  auto config = DominosaRace::decode_config(field_or_null(header, "config"));
  if (!config) return fail("the log's config: " + config.error().message);
  Rng rng(seeds::start(*seed));
  try {
    auto state = DominosaRace::start(*config, rng);
    return replay_realtime<DominosaRace>(state, log);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

}  // namespace

GameEntry dominosa_entry() {
  return GameEntry{
      .name = "dominosa",
      .summary =
          "The Dominosa race: one generated puzzle for all, the first valid solution wins "
          "(1-8 players)",
      .bots = "solver | slow | slow=SECONDS (the exact solver, waiting before it submits)",
      .house_bots = {"solver", "slow", "slow=0.5"},
      .min_seats = 1,
      .max_seats = 8,
      .seat_per_call = true,
      .check_bot = [](const std::string& bot) { return race::checked(parse_racer(bot)); },
      .check_config = [](const Json& c,
                         std::size_t seats) { return race::checked(dominosa_config(c, seats)); },
      .play = play_dominosa,
      .replay = replay_dominosa,
      .spectate = dominosa::spectator_line};
}

}  // namespace arbiter
