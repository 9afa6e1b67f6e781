// Speed Scrabble's entry (arena/registry.h): its dictionary loaded once per process, its races
// hosted by arena/realtime_entry.h with the solver racers, its replay.
#include "arena/speed_scrabble.h"

#include <charconv>
#include <filesystem>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "arena/realtime_entry.h"
#include "core/seat_count.h"
#include "games/speed_scrabble/bots.h"
#include "games/speed_scrabble/game.h"
#include "games/speed_scrabble/spectator.h"

namespace arbiter {
namespace {

// Reads the dictionary; see load_words.
Expected<std::shared_ptr<const speed_scrabble::Dictionary>> load_words_uncached(
    const std::string& name) {
  using speed_scrabble::Dictionary;
  Expected<Dictionary> dict = fail("");
  if (name.starts_with("scowl-")) {
    int size = 0;
    const auto [end, ec] = std::from_chars(name.data() + 6, name.data() + name.size(), size);
    if (ec != std::errc() || end != name.data() + name.size())
      return fail(fmt::format("dictionary \"{}\": expected scowl-SIZE or a file", name));
    dict = Dictionary::scowl(size);
  } else {
    dict = Dictionary::file(name);
  }
  if (!dict) return fail(fmt::format("dictionary: {}", dict.error().message));
  return std::make_shared<const Dictionary>(std::move(*dict));
}

// The dictionary a Speed Scrabble config names: "scowl-SIZE" or a word-list file. Loaded once
// per process (a file again when its size or time changes): checking a config and playing it,
// or a tournament's every match, share one.
Expected<std::shared_ptr<const speed_scrabble::Dictionary>> load_words(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const speed_scrabble::Dictionary>> loaded;
  std::string key = name;
  if (!name.starts_with("scowl-")) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(name, ec);
    const auto time = std::filesystem::last_write_time(name, ec);
    if (!ec) key += fmt::format("\n{}\n{}", size, time.time_since_epoch().count());
  }
  std::lock_guard lock(mu);
  if (auto it = loaded.find(key); it != loaded.end()) return it->second;
  auto words = load_words_uncached(name);
  if (words) loaded.emplace(key, *words);
  return words;
}

Expected<speed_scrabble::Config> speed_scrabble_config(const Json& j) {
  auto config = speed_scrabble::SpeedScrabble::decode_config(j);
  if (!config) return std::unexpected(config.error());
  auto words = load_words(config->dictionary);
  if (!words) return std::unexpected(words.error());
  config->words = std::move(*words);
  return config;
}

// The config of a match for `seats` players, its dictionary loaded.
Expected<speed_scrabble::Config> speed_scrabble_config(const Json& given, std::size_t seats) {
  return seated_config(given, seats, "Speed Scrabble",
                       [](const Json& j) { return speed_scrabble_config(j); });
}

Expected<PlayOutcome> play_speed_scrabble(const PlaySpec& spec) {
  using speed_scrabble::SpeedScrabble;
  auto config = speed_scrabble_config(spec.config, spec.roster.size());
  if (!config) return std::unexpected(config.error());
  auto started = race::outcome_of(spec);
  if (!started) return std::unexpected(started.error());
  PlayOutcome outcome = std::move(*started);

  Rng rng(seeds::start(spec.seed));
  auto state = SpeedScrabble::start(*config, rng);
  std::shared_ptr<const speed_scrabble::SolverIndex> index;
  auto result = race::run<SpeedScrabble>(
      spec, outcome.names, state, SpeedScrabble::encode(*config), config->max_rate,
      config->max_bytes, [&](Seat seat, const RacerSpec& racer) -> std::shared_ptr<Racer> {
        if (!index) index = speed_scrabble::make_solver_index(*config->words);
        return std::make_shared<speed_scrabble::SolverRacer>(
            outcome.names[seat], racer, index, state.distributor(), seat, *spec.options.clock);
      });
  if (!result) return fail(result.error().message);
  outcome.result = std::move(*result);
  const auto& seats = outcome.names;

  outcome.report.push_back(fmt::format("ending: {}", state.ending()));
  Json timeline = Json::array();
  for (std::size_t p = 0; p < seats.size(); ++p) {
    std::string line = fmt::format("  {:<20}", outcome.names[p]);
    Json marks = Json::array();
    for (const auto& m : state.timeline()[p]) {
      line += fmt::format(" {}@{}", m.k, race::seconds_text(m.at));
      marks.push_back({{"k", m.k}, {"at_us", detail::micros(m.at)}});
    }
    if (state.timeline()[p].empty()) line += " no valid board";
    outcome.report.push_back(line);
    timeline.push_back(marks);
  }
  outcome.report.insert(outcome.report.begin() + 1, "tiles reached (k@time):");
  outcome.details = {{"ending", state.ending()}, {"timeline", timeline}};
  return outcome;
}

Expected<ReplayReport> replay_speed_scrabble(const std::vector<Json>& log) {
  using speed_scrabble::SpeedScrabble;
  const Json& header = log.at(0);
  auto seed = to_natural(field_or_null(header, "seed"), "the log's seed");
  if (!seed) return std::unexpected(seed.error());
  auto config = speed_scrabble_config(field_or_null(header, "config"));
  if (!config) return fail("the log's config: " + config.error().message);
  Rng rng(seeds::start(*seed));
  auto state = SpeedScrabble::start(*config, rng);
  return replay_realtime<SpeedScrabble>(state, log);
}

}  // namespace

GameEntry speed_scrabble_entry() {
  return GameEntry{
      .name = "speed_scrabble",
      .summary =
          "Speed Scrabble: a real-time crossword race, tiles for all on every valid board "
          "(2-8 players)",
      .bots = "solver | slow | slow=SECONDS (the solver, waiting before each board)",
      .house_bots = {"solver", "slow", "slow=0.5"},
      .min_seats = 2,
      .max_seats = 8,
      .seat_per_call = true,
      .check_bot = [](const std::string& bot) { return race::checked(parse_racer(bot)); },
      .check_config =
          [](const Json& c, std::size_t seats) {
            return race::checked(speed_scrabble_config(c, seats));
          },
      .play = play_speed_scrabble,
      .replay = replay_speed_scrabble,
      .spectate = speed_scrabble::spectator_line};
}

}  // namespace arbiter
