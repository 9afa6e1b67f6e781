#include "arena/registry.h"

#include <charconv>
#include <filesystem>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "arena/abalone.h"
#include "arena/seat_players.h"
#include "arena/seating.h"
#include "arena/turn_based_entry.h"
#include "core/seat_count.h"
#include "games/abalone/spectator.h"
#include "games/battleship/game.h"
#include "games/battleship/spectator.h"
#include "games/dominosa/bots.h"
#include "games/dominosa/game.h"
#include "games/dominosa/spectator.h"
#include "games/q/game.h"
#include "games/q/spectator.h"
#include "games/speed_scrabble/bots.h"
#include "games/speed_scrabble/game.h"
#include "games/speed_scrabble/spectator.h"
#include "referee/realtime.h"
#include "referee/turn_based.h"
#include "remote/remote_player.h"
#include "remote/tcp.h"
#include "remote/wire.h"

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

Expected<dominosa::RaceConfig> dominosa_config(const Json& given, std::size_t seats) {
  return seated_config(given, seats, "Dominosa race",
                       [](const Json& j) { return dominosa::DominosaRace::decode_config(j); });
}

std::string seconds_text(Duration d) {
  return fmt::format("{:.3f}s", std::chrono::duration<double>(d).count());
}

// Runs a real-time match of G between the roster's seats: house seats are racers made by
// `make_racer(seat, spec)` from their bot text (the common solver/slow=SECONDS grammar), remote
// seats are opened as for every game; the log starts with the match line; setups go out in an
// order drawn from the seed.
template <RealtimeGame G, class MakeRacer>
Expected<MatchResult> run_race(const PlaySpec& spec, const std::vector<std::string>& names,
                               typename G::State& state, const Json& config_json, int max_rate,
                               int max_bytes, MakeRacer make_racer) {
  std::vector<RacerSpec> house(spec.roster.size());
  for (std::size_t i = 0; i < spec.roster.size(); ++i) {
    if (is_remote(spec.roster[i])) continue;
    auto racer = parse_racer(spec.roster[i].bot);
    if (!racer) return fail(racer.error().message);
    house[i] = *racer;
  }
  ChannelLimits limits;
  limits.max_message = static_cast<std::size_t>(max_bytes);
  auto remote = open_remote_seats(spec, limits);
  if (!remote) return fail(remote.error().message);
  std::vector<RealtimeSeat> seats(spec.roster.size());
  for (std::size_t i = 0; i < spec.roster.size(); ++i) {
    RealtimeSeat& seat = seats[i];
    seat.name = names[i];
    if (auto& opened = (*remote)[i]) {
      if (!opened->failure.empty()) {
        seat.failed = Ejection{static_cast<Seat>(i), Why::hang_up, "setup", opened->failure};
      } else {
        seat.channel = std::move(opened->channel);
        if (opened->process) {
          seat.ejected = [process = opened->process] {
            process->stop_after(wire::kLastMessageGrace);
          };
          // At the end too the program may read its last message ("win") and exit on its own.
          seat.disconnect = [process = std::move(opened->process)] {
            process->stop_after(wire::kLastMessageGrace);
          };
        }
      }
      continue;
    }
    seat.racer = make_racer(static_cast<Seat>(i), house[i]);
  }
  if (spec.options.log)
    spec.options.log->write({{"type", "match"},
                             {"game", G::kName},
                             {"seed", spec.seed},
                             {"config", config_json},
                             {"seats", names},
                             {"style", "realtime"},
                             {"format", kGameLogFormat}});
  RealtimeOptions options;
  options.clock = spec.options.clock;
  options.log = spec.options.log;
  options.send_timeout = spec.options.per_call;
  options.seat_send_timeout = spec.options.seat_per_call;
  options.max_rate = max_rate;
  options.limits = limits;
  for (std::size_t p = 0; p < seats.size(); ++p)
    options.setup_order.push_back(static_cast<Seat>(p));
  Rng order_rng(seeds::setup_order(spec.seed));
  order_rng.shuffle(options.setup_order.begin(), options.setup_order.end());
  options.notice_order_seed = seeds::notice_order(spec.seed);
  return run_realtime<G>(state, seats, options);
}

// A race's outcome with the roster's names.
Expected<PlayOutcome> race_outcome(const PlaySpec& spec) {
  PlayOutcome outcome;
  auto names = seat_names(spec);
  if (!names) return fail(names.error().message);
  outcome.names = std::move(*names);
  return outcome;
}

Expected<PlayOutcome> play_speed_scrabble(const PlaySpec& spec) {
  using speed_scrabble::SpeedScrabble;
  auto config = speed_scrabble_config(spec.config, spec.roster.size());
  if (!config) return std::unexpected(config.error());
  auto started = race_outcome(spec);
  if (!started) return std::unexpected(started.error());
  PlayOutcome outcome = std::move(*started);

  Rng rng(seeds::start(spec.seed));
  auto state = SpeedScrabble::start(*config, rng);
  std::shared_ptr<const speed_scrabble::SolverIndex> index;
  auto result = run_race<SpeedScrabble>(
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
      line += fmt::format(" {}@{}", m.k, seconds_text(m.at));
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

Expected<PlayOutcome> play_dominosa(const PlaySpec& spec) {
  using dominosa::DominosaRace;
  auto config = dominosa_config(spec.config, spec.roster.size());
  if (!config) return std::unexpected(config.error());
  auto started = race_outcome(spec);
  if (!started) return std::unexpected(started.error());
  PlayOutcome outcome = std::move(*started);
  Rng rng(seeds::start(spec.seed));
  std::optional<DominosaRace::State> state;
  try {
    state = DominosaRace::start(*config, rng);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  auto result = run_race<DominosaRace>(
      spec, outcome.names, *state, DominosaRace::encode(*config), config->max_rate,
      config->max_bytes, [&](Seat seat, const RacerSpec& racer) -> std::shared_ptr<Racer> {
        return std::make_shared<dominosa::PuzzleRacer>(outcome.names[seat], racer,
                                                       *spec.options.clock);
      });
  if (!result) return fail(result.error().message);
  outcome.result = std::move(*result);
  outcome.report.push_back("puzzle: " + dominosa::game_id(state->puzzle()));
  if (state->solved_at())
    outcome.report.push_back("solved in " + seconds_text(*state->solved_at()));
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

// Expected<T> as Expected<void>, for the check_* entries.
template <class T>
Expected<void> checked(const Expected<T>& e) {
  if (!e) return std::unexpected(e.error());
  return {};
}

}  // namespace

const std::vector<GameEntry>& registered_games() {
  static const std::vector<GameEntry> games{
      with_spectator(turn_based_entry<q::Q>(), q::spectator_line),
      with_spectator(turn_based_entry<battleship::Battleship>(), battleship::spectator_line),
      {.name = "speed_scrabble",
       .summary = "Speed Scrabble: a real-time crossword race, tiles for all on every valid board "
                  "(2-8 players)",
       .bots = "solver | slow | slow=SECONDS (the solver, waiting before each board)",
       .house_bots = {"solver", "slow", "slow=0.5"},
       .min_seats = 2,
       .max_seats = 8,
       .seat_per_call = true,
       .check_bot = [](const std::string& bot) { return checked(parse_racer(bot)); },
       .check_config = [](const Json& c,
                          std::size_t seats) { return checked(speed_scrabble_config(c, seats)); },
       .play = play_speed_scrabble,
       .replay = replay_speed_scrabble,
       .spectate = speed_scrabble::spectator_line},
      {.name = "dominosa",
       .summary = "The Dominosa race: one generated puzzle for all, the first valid solution wins "
                  "(1-8 players)",
       .bots = "solver | slow | slow=SECONDS (the exact solver, waiting before it submits)",
       .house_bots = {"solver", "slow", "slow=0.5"},
       .min_seats = 1,
       .max_seats = 8,
       .seat_per_call = true,
       .check_bot = [](const std::string& bot) { return checked(parse_racer(bot)); },
       .check_config = [](const Json& c,
                          std::size_t seats) { return checked(dominosa_config(c, seats)); },
       .play = play_dominosa,
       .replay = replay_dominosa,
       .spectate = dominosa::spectator_line},
      {.name = "abalone",
       .summary = "Concurrent Abalone: every piece a sandboxed Lua thread, stepped in lockstep "
                  "(2 teams: black, white)",
       .bots = abalone_bot_syntax(),
       .house_bots = abalone_house_bots(),
       .min_seats = 2,
       .max_seats = 2,
       .streams_gui = true,
       .seat_per_call = true,
       .seats_text = "2 teams (black, white)",
       .check_bot = check_abalone_bot,
       .check_config = check_abalone_config,
       .play = play_abalone,
       .replay = replay_abalone,
       .spectate = abalone::spectator_line},
  };
  return games;
}

GameEntry with_spectator(GameEntry entry, Json (*spectate)(const Json&)) {
  entry.spectate = spectate;
  return entry;
}

const GameEntry* find_game(std::string_view name) {
  for (const auto& g : registered_games())
    if (g.name == name) return &g;
  return nullptr;
}

}  // namespace arbiter
