// TournamentSpec: JSON and TOML decoding, and validation against the games registry.
#include "tournament/spec.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ranges>
#include <set>

#include <fmt/format.h>

#include "arena/registry.h"
#include "arena/seating.h"
#include "core/entropy.h"
#include "core/file.h"
#include "core/rng.h"
#include "core/seat_name.h"
#include "core/seed_tree.h"
#include "core/shell_words.h"
#include "tournament/toml_json.h"

namespace arbiter::tournament {

std::string_view schedule_name(Schedule s) {
  switch (s) {
    case Schedule::round_robin:
      return "round-robin";
    case Schedule::gauntlet:
      return "gauntlet";
    case Schedule::swiss:
      return "swiss";
    case Schedule::ladder:
      return "ladder";
  }
  return "?";
}

Expected<Schedule> parse_schedule(std::string_view text) {
  for (Schedule s : {Schedule::round_robin, Schedule::gauntlet, Schedule::swiss})
    if (schedule_name(s) == text) return s;
  return fail(fmt::format("schedule \"{}\": expected round-robin, gauntlet or swiss", text));
}

Expected<Entrant> parse_entrant(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size())
    return fail(fmt::format("--player \"{}\": expected NAME:BOT, e.g. alice:dag", text));
  return Entrant{std::string(text.substr(0, colon)), std::string(text.substr(colon + 1)), {}};
}

namespace {

Expected<Sprt> decode_sprt(const Json& j) {
  if (auto ok = only_keys(j, {"elo0", "elo1", "alpha", "beta", "model"}, "sprt"); !ok)
    return std::unexpected(ok.error());
  Sprt sprt;
  for (auto [key, into] : {std::pair{"elo0", &sprt.elo0}, std::pair{"elo1", &sprt.elo1},
                           std::pair{"alpha", &sprt.alpha}, std::pair{"beta", &sprt.beta}}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_number() || !std::isfinite(j[key].get<double>()))
      return fail(fmt::format("sprt: {}: expected a number", key));
    *into = j[key].get<double>();
  }
  if (j.contains("model")) {
    const Json& m = j["model"];
    if (m != "pentanomial" && m != "trinomial")
      return fail("sprt: model: expected \"pentanomial\" or \"trinomial\"");
    sprt.pentanomial = m == "pentanomial";
  }
  // Checked here too, not only by validate_spec: `results` reads a stored spec without it.
  if (!(sprt.elo0 < sprt.elo1)) return fail("sprt: elo0 must be below elo1");
  if (!(sprt.alpha > 0 && sprt.alpha < 1) || !(sprt.beta > 0 && sprt.beta < 1) ||
      !(sprt.alpha + sprt.beta < 1))
    return fail("sprt: alpha and beta must each be in (0, 1), their sum below 1");
  return sprt;
}

// Tournament names (not seat names) also allow '_' and '-'.
bool valid_tournament_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

}  // namespace

Json encode_spec(const TournamentSpec& spec) {
  Json players = Json::array();
  for (const auto& p : spec.players) {
    Json player{{"name", p.name}, {"bot", p.bot}};
    if (p.program) player["program"] = encode_terms(*p.program);
    if (p.per_call_ms) player["per_call_ms"] = *p.per_call_ms;
    if (p.clock) player["clock"] = format_time_control(*p.clock);
    if (!p.artifact.empty()) player["artifact"] = p.artifact;
    players.push_back(std::move(player));
  }
  Json j{{"name", spec.name},
         {"game", spec.game},
         {"players", players},
         {"schedule", schedule_name(spec.schedule)},
         {"seats", spec.seats},
         {"rounds", spec.rounds},
         {"seed", spec.seed},
         {"config", spec.config},
         {"per_call_ms", spec.per_call_ms},
         {"program", encode_terms(spec.program)}};
  if (!spec.hero.empty()) j["hero"] = spec.hero;
  if (spec.limit_by == LimitBy::cpu) {
    j["limit_by"] = "cpu";
    j["backstop"] = spec.backstop;
  }
  if (!spec.load_check) j["load_check"] = false;
  if (spec.per_call_ref) j["per_call_ref"] = true;
  if (!spec.program_key.empty()) j["program_key"] = to_hex(spec.program_key);
  if (!spec.listen.empty()) j["listen"] = spec.listen;
  if (spec.clock) j["clock"] = format_time_control(*spec.clock);
  j["pairing"] = spec.pairing;
  if (spec.ladder)
    j["ladder"] = {{"seats_max", spec.ladder->seats_max},
                   {"benched", spec.ladder->benched},
                   {"placement", spec.ladder->placement},
                   {"rating", spec.ladder->rating}};
  j["checks"] = {{"on_arrival", spec.checks.on_arrival},
                 {"replay_share", spec.checks.replay_share},
                 {"replay_first", spec.checks.replay_first}};
  if (spec.sprt)
    j["sprt"] = {{"elo0", spec.sprt->elo0},
                 {"elo1", spec.sprt->elo1},
                 {"alpha", spec.sprt->alpha},
                 {"beta", spec.sprt->beta},
                 {"model", spec.sprt->pentanomial ? "pentanomial" : "trinomial"}};
  return j;
}

namespace {

Expected<Ladder> decode_ladder(const Json& j) {
  constexpr std::string_view what = "the ladder terms";
  if (auto ok = only_keys(j, {"seats_max", "benched", "placement", "rating"}, what); !ok)
    return std::unexpected(ok.error());
  Ladder ladder;
  auto seats = int_field(j, "seats_max", 1, 64, what);
  if (!seats) return std::unexpected(seats.error());
  ladder.seats_max = *seats;
  if (j.contains("placement")) {
    auto placement = int_field(j, "placement", 0, 1'000'000, what);
    if (!placement) return std::unexpected(placement.error());
    ladder.placement = *placement;
  }
  if (j.contains("benched")) {
    if (!j["benched"].is_array()) return fail("benched: expected a list of entrant indices");
    for (const Json& b : j["benched"]) {
      if (!b.is_number_integer() || b.get<std::int64_t>() < 0 ||
          (!ladder.benched.empty() && b.get<std::int64_t>() <= ladder.benched.back()))
        return fail("benched: expected entrant indices in ascending order");
      ladder.benched.push_back(b.get<std::int64_t>());
    }
  }
  if (j.contains("rating")) ladder.rating = j["rating"];
  return ladder;
}

Expected<ResultChecks> decode_checks(const Json& j) {
  constexpr std::string_view what = "checks";
  if (auto ok = only_keys(j, {"on_arrival", "replay_share", "replay_first"}, what); !ok)
    return std::unexpected(ok.error());
  ResultChecks checks;
  if (j.contains("on_arrival")) {
    if (!j["on_arrival"].is_boolean()) return fail("checks: on_arrival: expected true or false");
    checks.on_arrival = j["on_arrival"].get<bool>();
  }
  if (j.contains("replay_share")) {
    const Json& share = j["replay_share"];
    if (!share.is_number() || !(share.get<double>() >= 0 && share.get<double>() <= 1))
      return fail("checks: replay_share: expected a share from 0 to 1");
    checks.replay_share = share.get<double>();
  }
  if (j.contains("replay_first")) {
    auto first = int_field(j, "replay_first", 0, 1'000'000, what);
    if (!first) return std::unexpected(first.error());
    checks.replay_first = *first;
  }
  return checks;
}

}  // namespace

Expected<PerCallLimit> parse_per_call(std::string_view text) {
  PerCallLimit out;
  std::string_view number = text;
  if (number.ends_with("ref")) {
    out.ref = true;
    number.remove_suffix(3);
  }
  double seconds = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), seconds);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() ||
      !(seconds >= 0.001 && seconds <= 600))
    return fail(
        fmt::format("per-call \"{}\": expected seconds from 0.001 to 600, or reference "
                    "seconds as 1ref (arbiter calibrate)",
                    text));
  out.ms = std::llround(seconds * 1000);
  return out;
}

std::string format_per_call(std::int64_t ms, bool ref) {
  return fmt::format("{}{}", static_cast<double>(ms) / 1000.0, ref ? "ref" : "");
}

Expected<LimitBy> parse_limit_by(std::string_view text) {
  if (text == "wall") return LimitBy::wall;
  if (text == "cpu") return LimitBy::cpu;
  return fail(fmt::format("limit-by: expected wall (the default) or cpu, got \"{}\"", text));
}

Expected<TournamentSpec> decode_spec(const Json& j) {
  constexpr std::string_view what = "the tournament spec";
  if (auto ok =
          only_keys(j, {"name",     "game",     "players",     "schedule",    "seats",   "rounds",
                        "seed",     "config",   "per_call_ms", "hero",        "program", "clock",
                        "pairing",  "sprt",     "program_key", "listen",      "ladder",  "checks",
                        "limit_by", "backstop", "load_check",  "per_call_ref"},
                    what);
      !ok)
    return std::unexpected(ok.error());
  TournamentSpec spec;
  if (j.contains("name")) {
    auto name = arbiter::to_string(j["name"], "the tournament's name");
    if (!name) return std::unexpected(name.error());
    spec.name = *name;
  }
  auto game_field = member(j, "game", what);
  if (!game_field) return std::unexpected(game_field.error());
  auto game = arbiter::to_string(**game_field, "the game");
  if (!game) return std::unexpected(game.error());
  spec.game = *game;
  auto players = member(j, "players", what);
  if (!players) return std::unexpected(players.error());
  if (!(*players)->is_array()) return fail("players: expected a list of {name, bot}");
  for (const Json& p : **players) {
    if (auto ok = only_keys(p, {"name", "bot", "program", "per_call_ms", "clock", "artifact"},
                            "a player");
        !ok)
      return std::unexpected(ok.error());
    auto name_field = member(p, "name", "a player");
    if (!name_field) return std::unexpected(name_field.error());
    auto name = arbiter::to_string(**name_field, "a player's name");
    if (!name) return std::unexpected(name.error());
    auto bot_field = member(p, "bot", "player " + *name);
    if (!bot_field) return std::unexpected(bot_field.error());
    auto bot = arbiter::to_string(**bot_field, "the bot of " + *name);
    if (!bot) return std::unexpected(bot.error());
    Entrant entrant{*name, *bot, {}};
    if (p.contains("program")) {
      auto terms = decode_terms(p["program"]);
      if (!terms) return fail(fmt::format("player {}: {}", *name, terms.error().message));
      entrant.program = std::move(*terms);
    }
    if (p.contains("per_call_ms")) {
      auto ms = int_field(p, "per_call_ms", 1, 600'000, "player " + *name);
      if (!ms) return std::unexpected(ms.error());
      entrant.per_call_ms = *ms;
    }
    if (p.contains("clock")) {
      auto text = arbiter::to_string(p["clock"], "the clock of " + *name);
      if (!text) return std::unexpected(text.error());
      auto tc = parse_time_control(*text);
      if (!tc) return fail(fmt::format("player {}: clock: {}", *name, tc.error().message));
      entrant.clock = *tc;
    }
    if (p.contains("artifact")) {
      auto artifact = arbiter::to_string(p["artifact"], "the artifact of " + *name);
      if (!artifact) return std::unexpected(artifact.error());
      entrant.artifact = *artifact;
    }
    spec.players.push_back(std::move(entrant));
  }
  if (j.contains("clock")) {
    auto text = arbiter::to_string(j["clock"], "the clock");
    if (!text) return std::unexpected(text.error());
    auto tc = parse_time_control(*text);
    if (!tc) return std::unexpected(tc.error());
    spec.clock = *tc;
  }
  // A spec stored before program terms existed runs under the defaults.
  if (j.contains("program")) {
    auto terms = decode_terms(j["program"]);
    if (!terms) return std::unexpected(terms.error());
    spec.program = std::move(*terms);
  }
  if (j.contains("schedule")) {
    auto text = arbiter::to_string(j["schedule"], "the schedule");
    if (!text) return std::unexpected(text.error());
    auto schedule =
        *text == "ladder" ? Expected<Schedule>(Schedule::ladder) : parse_schedule(*text);
    if (!schedule) return std::unexpected(schedule.error());
    spec.schedule = *schedule;
  }
  if (j.contains("seats")) {
    auto seats = int_field(j, "seats", 1, 64, what);
    if (!seats) return std::unexpected(seats.error());
    spec.seats = *seats;
  }
  if (j.contains("rounds")) {
    auto rounds = int_field(j, "rounds", 1, 1'000'000, what);
    if (!rounds) return std::unexpected(rounds.error());
    spec.rounds = *rounds;
  }
  if (j.contains("seed")) {
    auto seed = to_natural(j["seed"], "the seed");
    if (!seed) return std::unexpected(seed.error());
    spec.seed = *seed;
  }
  if (j.contains("config")) {
    if (!j["config"].is_null() && !j["config"].is_object())
      return fail("config: expected the game's config overrides as an object");
    spec.config = j["config"];
  }
  if (j.contains("per_call_ms")) {
    auto ms = int_field(j, "per_call_ms", 1, 600'000, what);
    if (!ms) return std::unexpected(ms.error());
    spec.per_call_ms = *ms;
  }
  if (j.contains("limit_by")) {
    auto text = arbiter::to_string(j["limit_by"], "limit_by");
    if (!text) return std::unexpected(text.error());
    auto by = parse_limit_by(*text);
    if (!by) return std::unexpected(by.error());
    spec.limit_by = *by;
  }
  if (j.contains("per_call_ref")) {
    if (!j["per_call_ref"].is_boolean()) return fail("per_call_ref: expected true or false");
    spec.per_call_ref = j["per_call_ref"].get<bool>();
  }
  if (j.contains("load_check")) {
    if (!j["load_check"].is_boolean()) return fail("load_check: expected true or false");
    spec.load_check = j["load_check"].get<bool>();
  }
  if (j.contains("backstop")) {
    const Json& b = j["backstop"];
    if (!b.is_number() || !(b.get<double>() >= kMinBackstop && b.get<double>() <= kMaxBackstop))
      return fail(fmt::format("backstop: expected a multiple of the CPU-time limit from {} to {}",
                              kMinBackstop, kMaxBackstop));
    spec.backstop = b.get<double>();
  }
  if (j.contains("hero")) {
    auto hero = arbiter::to_string(j["hero"], "the hero");
    if (!hero) return std::unexpected(hero.error());
    spec.hero = *hero;
  }
  // A spec stored before pairing existed was stored before cmd: commands were split like a
  // shell, when they were split at spaces alone: its commands are quoted so that they still
  // give the same arguments (a quote or backslash in them was literal then).
  if (!j.contains("pairing")) {
    for (auto& entrant : spec.players) {
      if (!entrant.bot.starts_with("cmd:")) continue;
      std::vector<std::string> words;
      for (const auto& word : std::views::split(std::string_view(entrant.bot).substr(4), ' '))
        if (!word.empty()) words.emplace_back(word.begin(), word.end());
      entrant.bot = "cmd:" + join_shell_words(words);
    }
  }
  spec.pairing = false;
  if (j.contains("listen")) {
    auto listen = arbiter::to_string(j["listen"], "listen");
    if (!listen) return std::unexpected(listen.error());
    spec.listen = *listen;
  }
  if (j.contains("program_key")) {
    const Json& key = j["program_key"];
    auto bytes = from_hex(key.is_string() ? key.get<std::string>() : std::string("?"));
    if (!bytes || bytes->size() != seeds::kProgramKeyBytes)
      return fail(fmt::format("program_key: expected {} hex digits", 2 * seeds::kProgramKeyBytes));
    spec.program_key = *bytes;
  }
  if (j.contains("pairing")) {
    if (!j["pairing"].is_boolean()) return fail("pairing: expected true or false");
    spec.pairing = j["pairing"].get<bool>();
  }
  if (j.contains("sprt")) {
    auto sprt = decode_sprt(j["sprt"]);
    if (!sprt) return std::unexpected(sprt.error());
    spec.sprt = *sprt;
  }
  if (j.contains("ladder")) {
    auto ladder = decode_ladder(j["ladder"]);
    if (!ladder) return std::unexpected(ladder.error());
    spec.ladder = std::move(*ladder);
  }
  if (j.contains("checks")) {
    auto checks = decode_checks(j["checks"]);
    if (!checks) return std::unexpected(checks.error());
    spec.checks = *checks;
  }
  if (spec.ladder.has_value() != (spec.schedule == Schedule::ladder))
    return fail("a ladder's spec has ladder terms, and only a ladder's");
  return spec;
}

namespace {

Expected<TournamentSpec> read_spec_unescaped(const std::string& path) {
  // A tournament file is a page of settings; anything this big is not one.
  constexpr std::size_t kMaxSpecFile = std::size_t{16} << 20;
  auto text = read_file(path, kMaxSpecFile);
  if (!text) return std::unexpected(text.error());
  auto parsed = parse_toml_table(*text, path);
  if (!parsed) return std::unexpected(parsed.error());
  toml::table& table = *parsed;
  static const std::set<std::string> known{
      "name",     "game",   "schedule", "seats",    "rounds",    "seed",
      "per_call", "hero",   "config",   "player",   "clock",     "pairing",
      "sprt",     "checks", "limit_by", "backstop", "load_check"};
  const auto is_term = [](std::string_view key) {
    return std::find(std::begin(kTermKeys), std::end(kTermKeys), key) != std::end(kTermKeys);
  };
  for (const auto& [key, value] : table)
    if (!known.contains(std::string(key.str())) && !is_term(key.str()))
      return fail(fmt::format(
          "{}:{}: unknown key \"{}\" (known: name, game, schedule, seats, "
          "rounds, seed, per_call, hero, clock, limit_by, backstop, load_check, pairing, [sprt], "
          "[checks], "
          "[config], [[player]], "
          "and the "
          "program terms memory, processes, cpu_time, cpus, output, open_files, dir, "
          "stderr, network, read_only, env, sandbox)",
          path, value.source().begin.line, key.str()));
  // A [[player]]'s own keys, each unknown one named with its line.
  if (const auto* players = table.get_as<toml::array>("player"))
    for (const auto& node : *players)
      if (const auto* t = node.as_table())
        for (const auto& [key, value] : *t) {
          static const std::set<std::string> player_keys{"name", "bot", "command", "per_call",
                                                         "clock"};
          if (!player_keys.contains(std::string(key.str())) && !is_term(key.str()))
            return fail(
                fmt::format("{}:{}: unknown key \"{}\" in a [[player]] (known: name, "
                            "bot or command, per_call, clock, and the program terms "
                            "memory, processes, cpu_time, cpus, output, open_files, dir, "
                            "stderr, network, read_only, env, sandbox)",
                            path, value.source().begin.line, key.str()));
        }
  // The program terms, as written, with the line each is on.
  ProgramTerms terms;
  const auto set_terms = [&](ProgramTerms& into, const toml::table& t,
                             const std::string& where) -> Expected<void> {
    // "sandbox" first: the walls' own terms need it.
    if (const auto* node = t.get("sandbox"))
      if (auto ok = set_term(into, "sandbox", toml_to_json(*node)); !ok)
        return fail(fmt::format("{}:{}: {}sandbox: {}", path, node->source().begin.line, where,
                                ok.error().message));
    for (const auto& [key, value] : t) {
      if (!is_term(key.str()) || key.str() == "sandbox") continue;
      if (auto ok = set_term(into, key.str(), toml_to_json(value)); !ok)
        return fail(fmt::format("{}:{}: {}{}: {}", path, value.source().begin.line, where,
                                key.str(), ok.error().message));
    }
    return {};
  };
  if (auto ok = set_terms(terms, table, ""); !ok) return std::unexpected(ok.error());
  std::vector<std::optional<ProgramTerms>> own;
  if (const auto* players = table.get_as<toml::array>("player")) {
    for (const auto& node : *players) {
      const auto* t = node.as_table();
      bool has = false;
      if (t != nullptr)
        for (const auto& [key, value] : *t) has = has || is_term(key.str());
      if (!has) {
        own.emplace_back();
        continue;
      }
      ProgramTerms mine = terms;
      const auto* name = t->get_as<std::string>("name");
      if (auto ok = set_terms(mine, *t, fmt::format("player {}: ", name ? name->get() : "?")); !ok)
        return std::unexpected(ok.error());
      own.push_back(std::move(mine));
    }
  }
  for (const auto key : kTermKeys) table.erase(key);
  if (auto* players = table.get_as<toml::array>("player"))
    for (auto& node : *players)
      if (auto* t = node.as_table())
        for (const auto key : kTermKeys) t->erase(key);
  Json j = toml_to_json(table);
  if (j.contains("player")) {
    j["players"] = j["player"];
    j.erase("player");
  } else {
    j["players"] = Json::array();
  }
  // A player's own per_call, in seconds as at the top.
  if (j["players"].is_array())
    for (Json& p : j["players"]) {
      if (!p.is_object() || !p.contains("per_call")) continue;
      const Json& v = p["per_call"];
      if (!v.is_number() || v.get<double>() < 0.001 || v.get<double>() > 600)
        return fail(fmt::format("{}: player {}: per_call: expected seconds between 0.001 and 600",
                                path, excerpt(field_or_null(p, "name"))));
      p["per_call_ms"] = std::llround(v.get<double>() * 1000);
      p.erase("per_call");
    }
  // command = ["python3", "my bot.py"]: a program player given as its argument list, kept as the
  // bot "cmd:..." with each argument quoted as split_shell_words reads it back.
  if (j["players"].is_array())
    for (Json& p : j["players"]) {
      if (!p.is_object() || !p.contains("command")) continue;
      const std::string who = p.contains("name") && p["name"].is_string()
                                  ? "player " + p["name"].get<std::string>()
                                  : std::string("a player");
      const Json& command = p["command"];
      if (p.contains("bot"))
        return fail(fmt::format("{}: {}: give bot or command, not both", path, who));
      if (!command.is_array() || command.empty() ||
          !std::all_of(command.begin(), command.end(), [](const Json& w) { return w.is_string(); }))
        return fail(
            fmt::format("{}: {}: command: expected a list of strings, the program first "
                        "(e.g. [\"python3\", \"my bot.py\"])",
                        path, who));
      p["bot"] = "cmd:" + join_shell_words(command.get<std::vector<std::string>>());
      p.erase("command");
    }
  if (!j.contains("pairing")) j["pairing"] = true;
  if (j.contains("sprt") && j["sprt"].is_object() && !j["sprt"].contains("model"))
    j["sprt"]["model"] = j["pairing"] == Json(false) ? "trinomial" : "pentanomial";
  if (j.contains("per_call")) {
    if (j["per_call"].is_string()) {
      auto limit = parse_per_call(j["per_call"].get<std::string>());
      if (!limit) return fail(path + ": " + limit.error().message);
      j["per_call_ms"] = limit->ms;
      if (limit->ref) j["per_call_ref"] = true;
    } else if (!j["per_call"].is_number() || j["per_call"].get<double>() < 0.001 ||
               j["per_call"].get<double>() > 600) {
      return fail(path + ": per_call: expected seconds between 0.001 and 600, or \"1ref\"");
    } else {
      j["per_call_ms"] = std::llround(j["per_call"].get<double>() * 1000);
    }
    j.erase("per_call");
  }
  // A new tournament's: drawn unless the file gives them.
  const TournamentSpec fresh = new_tournament_spec();
  if (!j.contains("seed")) j["seed"] = fresh.seed;
  if (!j.contains("program_key")) j["program_key"] = to_hex(fresh.program_key);
  auto spec = decode_spec(j);
  if (!spec) return fail(path + ": " + spec.error().message);
  spec->program = terms;
  for (std::size_t i = 0; i < own.size() && i < spec->players.size(); ++i)
    spec->players[i].program = own[i];
  return spec;
}

}  // namespace

Expected<TournamentSpec> read_spec_file(const std::string& path) {
  auto spec = read_spec_unescaped(path);
  // Messages quote the file (a value, a key, what the TOML parser saw): one line all the same.
  if (!spec) return fail(escape_controls(spec.error().message));
  return spec;
}

Expected<void> check_entrant_limits(const GameEntry& game, const Entrant& p) {
  if (p.clock && !game.clocked)
    return fail(fmt::format("player {}: clock: {} has no turns to clock (only q and "
                            "battleship have)",
                            p.name, game.name));
  if (p.per_call_ms && (*p.per_call_ms < 1 || *p.per_call_ms > 600'000))
    return fail(fmt::format("player {}: per_call: expected 1 ms to 600 s", p.name));
  if (p.per_call_ms && !game.seat_per_call)
    return fail(
        fmt::format("player {}: per_call: {} gives every player the same time", p.name, game.name));
  return {};
}

namespace {

// A ladder may have any number of entrants (they come and go while it runs), and its matches
// any number of seats from seats to seats_max.
Expected<void> validate_ladder(const TournamentSpec& spec, const GameEntry& game) {
  if (!spec.ladder) return fail("a ladder needs its ladder terms");
  const Ladder& ladder = *spec.ladder;
  if (ladder.seats_max < spec.seats || static_cast<std::size_t>(ladder.seats_max) > game.max_seats)
    return fail(fmt::format("{} seats {} to {} players per match, not {}-{}", spec.game,
                            game.min_seats, game.max_seats, spec.seats, ladder.seats_max));
  if (spec.config.is_object() && spec.config.contains("players") &&
      (spec.seats != ladder.seats_max || spec.config["players"] != Json(spec.seats)))
    return fail(fmt::format("the config seats {} players per match but the ladder seats {}",
                            dump(spec.config["players"]),
                            spec.seats == ladder.seats_max
                                ? std::to_string(spec.seats)
                                : fmt::format("{}-{}", spec.seats, ladder.seats_max)));
  for (std::int64_t k = spec.seats; k <= ladder.seats_max; ++k)
    if (auto ok = game.check_config(spec.config, static_cast<std::size_t>(k)); !ok)
      return fail("--config: " + ok.error().message);
  for (std::int64_t b : ladder.benched)
    if (b < 0 || static_cast<std::size_t>(b) >= spec.players.size())
      return fail(
          fmt::format("benched entrant {} is not among the {} entrants", b, spec.players.size()));
  if (!spec.pairing) return fail("a ladder pairs its seeds");
  if (spec.sprt) return fail("a ladder has no SPRT");
  if (!spec.hero.empty()) return fail("a hero is only for the gauntlet schedule");
  if (spec.clock && !game.clocked)
    return fail(
        fmt::format("--clock: {} has no turns to clock (only q and battleship have)", spec.game));
  if (spec.limit_by == LimitBy::cpu && !game.clocked)
    return fail(
        fmt::format("--limit-by cpu: {} judges its players on the wall clock (only q "
                    "and battleship take turns to time on CPU)",
                    spec.game));
  for (const auto& p : spec.players)
    if (auto ok = check_entrant_limits(game, p); !ok) return ok;
  return {};
}

Expected<void> validate_unescaped(const TournamentSpec& spec) {
  const GameEntry* game = find_game(spec.game);
  if (game == nullptr)
    return fail(fmt::format("unknown game \"{}\" (see arbiter games)", spec.game));
  if (!valid_tournament_name(spec.name))
    return fail(fmt::format("tournament name \"{}\": use letters, digits, '_' and '-'", spec.name));
  std::set<std::string> names;
  for (const auto& p : spec.players) {
    const Seating seat{p.name, p.bot, p.program};
    Hosting hosting;
    hosting.program = spec.program;
    if (auto ok = check_seating(*game, seat, /*tcp_allowed=*/true, &terms_of(seat, hosting)); !ok)
      return ok;
    if (auto ok = check_program_terms(seat, hosting); !ok) return ok;
    if (!names.insert(p.name).second)
      return fail(fmt::format("player name \"{}\" is used twice", p.name));
  }
  const auto seats = static_cast<std::size_t>(spec.seats);
  if (seats < game->min_seats || seats > game->max_seats)
    return fail(fmt::format("{} seats {} to {} players per match, not {}", spec.game,
                            game->min_seats, game->max_seats, spec.seats));
  if (spec.schedule == Schedule::ladder) return validate_ladder(spec, *game);
  if (spec.players.size() < std::max<std::size_t>(seats, 2))
    return fail(fmt::format("{} matches of {} need at least {} players, got {}",
                            schedule_name(spec.schedule), spec.seats,
                            std::max<std::size_t>(seats, 2), spec.players.size()));
  if (spec.rounds < 1) return fail("rounds must be at least 1");
  if (spec.config.is_object() && spec.config.contains("players") &&
      spec.config["players"] != Json(spec.seats))
    return fail(fmt::format("the config seats {} players per match but --seats is {}",
                            dump(spec.config["players"]), spec.seats));
  if (auto ok = game->check_config(spec.config, seats); !ok)
    return fail("--config: " + ok.error().message);
  if (spec.schedule != Schedule::swiss) {
    // Every seating of every subset: C(n, k) k! = n! / (n - k)!, with the hero fixed for a
    // gauntlet. Counted before anything is generated, so a typo cannot exhaust memory.
    const std::size_t pool = spec.players.size() - (spec.schedule == Schedule::gauntlet ? 1 : 0);
    const std::size_t picks = seats - (spec.schedule == Schedule::gauntlet ? 1 : 0);
    double matches = spec.schedule == Schedule::gauntlet ? static_cast<double>(seats) : 1.0;
    for (std::size_t i = 0; i < picks; ++i) matches *= static_cast<double>(pool - i);
    matches *= static_cast<double>(spec.rounds);
    if (matches > kMaxMatches)
      return fail(
          fmt::format("this schedule has {:.3g} matches; the limit is {} (fewer players, "
                      "seats or rounds)",
                      matches, kMaxMatches));
  } else if (static_cast<double>(spec.players.size()) * static_cast<double>(spec.rounds) >
             kMaxMatches) {
    return fail(fmt::format("this Swiss tournament has more than {} matches", kMaxMatches));
  }
  if (spec.schedule == Schedule::swiss && spec.seats != 2)
    return fail("swiss pairs two players per match; use --seats 2");
  if (spec.clock && !game->clocked)
    return fail(
        fmt::format("--clock: {} has no turns to clock (only q and battleship have)", spec.game));
  if (spec.limit_by == LimitBy::cpu && !game->clocked)
    return fail(
        fmt::format("--limit-by cpu: {} judges its players on the wall clock (only q "
                    "and battleship take turns to time on CPU)",
                    spec.game));
  for (const auto& p : spec.players)
    if (auto ok = check_entrant_limits(*game, p); !ok) return ok;
  if (!spec.hero.empty() && spec.schedule != Schedule::gauntlet)
    return fail("a hero is only for the gauntlet schedule");
  if (!spec.hero.empty() && !names.contains(spec.hero))
    return fail(fmt::format("hero \"{}\" is not among the players", spec.hero));
  if (const auto& t = spec.sprt) {
    if (spec.players.size() != 2 || spec.seats != 2)
      return fail(
          fmt::format("--sprt compares two entrants in two-seat matches; this tournament "
                      "has {} entrants and {} seats",
                      spec.players.size(), spec.seats));
    if (!(t->elo0 < t->elo1))
      return fail(fmt::format("--sprt {} {}: ELO0 must be below ELO1", t->elo0, t->elo1));
    if (!(t->alpha > 0 && t->alpha < 1) || !(t->beta > 0 && t->beta < 1) ||
        !(t->alpha + t->beta < 1))
      return fail(fmt::format("--alpha {} --beta {}: each must be in (0, 1), their sum below 1",
                              t->alpha, t->beta));
    if (t->pentanomial && !spec.pairing)
      return fail(
          "the pentanomial SPRT counts pairs of matches and needs paired seeds: drop "
          "--no-pairing, or use --sprt-model trinomial");
  }
  return {};
}

}  // namespace

Expected<void> validate_spec(const TournamentSpec& spec) {
  auto ok = validate_unescaped(spec);
  // Messages quote names and values as given: one line all the same.
  if (!ok) return fail(escape_controls(ok.error().message));
  return ok;
}

TournamentSpec new_tournament_spec() {
  TournamentSpec spec;
  spec.seed = unguessable_seed();
  spec.program_key = unguessable_bytes(seeds::kProgramKeyBytes);
  return spec;
}

bool unsandboxed(const TournamentSpec& spec) {
  return std::any_of(spec.players.begin(), spec.players.end(), [&](const Entrant& e) {
    return e.bot.starts_with("cmd:") && !(e.program ? e.program->sandbox : spec.program.sandbox);
  });
}

}  // namespace arbiter::tournament
