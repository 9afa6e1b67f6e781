// arbiter: the command line. `arbiter --help` lists the commands.
#include <algorithm>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "apps/commands.h"
#include "arena/bot_shelf.h"
#include "arena/registry.h"
#include "arena/seating.h"
#include "core/calibration.h"
#include "core/entropy.h"
#include "core/file.h"
#include "core/interrupt.h"
#include "core/seed_tree.h"
#include "core/units.h"
#include "league/bots.h"
#include "remote/cgroup.h"
#include "remote/host_load.h"
#include "remote/tcp.h"
#include "revision.h"
#include "tournament/standings.h"
#include "tournament/worker.h"

namespace arbiter::cli {

namespace {

struct PlayArgs {
  std::string game;
  std::vector<std::string> players;
  std::string black;  // abalone's --black/--white: seats "black" and "white"
  std::string white;
  std::string gui;
  std::uint64_t seed = 1;
  std::string seed_text;    // empty: drawn
  std::string program_key;  // hex; empty: drawn
  std::string log_path;
  std::string config;
  bool config_given = false;
  std::string per_call = "6";
  std::vector<std::string> entrant_settings;  // NAME:KEY=VALUE
  bool json = false;
  std::string listen = "127.0.0.1:0";
  double accept_timeout = 60.0;
  std::size_t max_pending = 64;
  std::string stderr_dir;
  ProgramOptions program;
  LimitOptions limits;
  std::string clock;
  std::string tokens_file;
  std::string serve;    // HOST:PORT of the live viewer; empty: none
  double linger = 0;    // seconds the live viewer stays up after the match
  std::string store;    // where bot: players are stored; empty: none given
  std::string bot_cache;  // where their files are unpacked; empty: league::default_bot_cache()
};

bool is_program_player(const std::string& player) {
  const auto colon = player.find(':');
  if (colon == std::string::npos) return false;
  const std::string_view bot = std::string_view(player).substr(colon + 1);
  return bot.starts_with("cmd:") || is_stored_bot(bot);
}

std::string play_reproduce_command(const PlayArgs& a) {
  Json config;  // null: not given
  if (a.config_given)
    if (auto parsed = parse_json(a.config)) config = *parsed;
  std::vector<std::string> flags;
  ProgramTerms terms;
  if (apply_program_options(a.program, terms)) flags = term_flags(terms);
  const bool tcp = std::any_of(a.players.begin(), a.players.end(), [](const std::string& p) {
    return p.ends_with(":tcp");
  });
  for (const std::string& setting : a.entrant_settings)
    flags.insert(flags.end(), {"--entrant", setting});
  LimitBy by = LimitBy::wall;
  double backstop = RefereeOptions::kDefaultBackstop;
  bool load_check = true;
  if (apply_limit_options(a.limits, by, backstop, load_check)) {
    const auto limits = limit_flags(by, backstop, load_check);
    flags.insert(flags.end(), limits.begin(), limits.end());
  }
  // The programs' seeds come from the key (only programs have them).
  if (std::any_of(a.players.begin(), a.players.end(), is_program_player))
    flags.insert(flags.end(), {"--program-key", a.program_key});
  if (!a.store.empty()) flags.insert(flags.end(), {"--store", a.store});
  if (tcp && a.listen != PlayArgs{}.listen) flags.insert(flags.end(), {"--listen", a.listen});
  if (tcp && a.accept_timeout != PlayArgs{}.accept_timeout)
    flags.insert(flags.end(), {"--accept-timeout", fmt::format("{}", a.accept_timeout)});
  // Reference seconds stay so (the machine that plays it again scales them by its own factor).
  double per_call = 6.0;
  if (auto limit = tournament::parse_per_call(a.per_call); limit && limit->ref)
    flags.insert(flags.begin(), {"--per-call", a.per_call});
  else if (limit)
    per_call = static_cast<double>(limit->ms) / 1000.0;
  return tournament::play_command(a.game, a.players, a.seed, config, per_call, a.clock, flags);
}

// One line per problem on stderr; kFailed if there was any.
int report_problems(const std::vector<std::string>& problems) {
  for (const auto& p : problems) report_error(p);
  return problems.empty() ? 0 : kFailed;
}

// The match `a` asks for, every organizer's mistake found before anything starts or is made
// (check_play, the game's config check): one line each.
// Where and how its remote seats play: the tcp address, the programs' terms and walls (each
// seat's own settings too), what no program may see, the GUI stream.
Expected<void> set_hosting(const PlayArgs& a, const GameEntry& game, PlaySpec& spec) {
  auto listen = parse_address(a.listen, "--listen", /*any_port=*/true);
  if (!listen) {
    return fail(listen.error().message);
  }
  spec.hosting.listen_host = listen->host;
  spec.hosting.listen_port = listen->port;
  spec.hosting.accept_timeout = std::chrono::milliseconds(std::llround(a.accept_timeout * 1000));
  spec.hosting.max_pending = a.max_pending;
  spec.hosting.on_listen = [](std::uint16_t port, std::size_t seats) {
    std::cerr << fmt::format("arbiter: waiting for {} tcp player(s) on port {}", seats, port)
              << std::endl;
  };
  spec.hosting.stderr_dir = a.stderr_dir;
  // What no program may see: the log of its own match as it is written, the seats' tokens.
  if (!a.log_path.empty()) spec.hosting.private_paths.push_back({a.log_path, "the game log"});
  if (!a.tokens_file.empty())
    spec.hosting.private_paths.push_back({a.tokens_file, "the tokens file"});
  spec.hosting.gui = a.gui;
  if (auto ok = apply_program_options(a.program, spec.hosting.program); !ok) {
    return fail(ok.error().message);
  }
  // A seat's own settings, as a tournament entrant's.
  if (!a.entrant_settings.empty()) {
    std::vector<tournament::Entrant> entrants;
    for (const Seating& seat : spec.roster) entrants.push_back({seat.name, seat.bot, {}});
    if (auto ok = apply_entrant_settings(a.entrant_settings, entrants, spec.hosting.program);
        !ok) {
      return fail(ok.error().message);
    }
    for (std::size_t i = 0; i < entrants.size(); ++i) {
      const tournament::Entrant& own = entrants[i];
      if (auto ok = tournament::check_entrant_limits(game, own); !ok) {
        return fail(ok.error().message);
      }
      spec.roster[i].program = own.program;
      spec.options.seat_per_call.push_back(
          own.per_call_ms ? std::optional<Duration>(std::chrono::milliseconds(*own.per_call_ms))
                          : std::nullopt);
      spec.options.seat_time_control.push_back(own.clock);
    }
  }
  if (!spec.hosting.gui.empty() && !game.streams_gui) {
    return fail(fmt::format("--gui: {} has no viewer stream (only abalone has)", a.game));
  }
  return {};
}

Expected<PlaySpec> play_spec(const PlayArgs& a, const GameEntry& game, BotShelf* shelf) {
  PlaySpec spec;
  spec.seed = a.seed;
  auto key = from_hex(a.program_key);
  if (!key || key->size() != seeds::kProgramKeyBytes) {
    return fail(
        fmt::format("--program-key: expected {} hex digits (as a reproduce command "
                    "gives them)",
                    2 * seeds::kProgramKeyBytes));
  }
  spec.hosting.program_key = *key;
  if (a.players.empty()) {
    return fail("give --player NAME:BOT once per seat (abalone: --black BOT --white BOT)");
  }
  if (a.config_given && a.config.empty()) {
    return fail("--config: empty; give a JSON object such as '{\"players\": 3}'");
  }
  for (const auto& p : a.players) {
    auto entrant = tournament::parse_entrant(p);
    if (!entrant) {
      return fail(entrant.error().message);
    }
    spec.roster.push_back({entrant->name, entrant->bot});
  }
  if (a.config_given) {
    auto config = parse_json(a.config);
    if (!config) {
      return fail("--config: " + config.error().message);
    }
    if (!config->is_object()) {
      return fail("--config: expected a JSON object, got " + excerpt(*config));
    }
    spec.config = *config;
  }
  auto limit = tournament::parse_per_call(a.per_call);
  if (!limit) return fail("--" + limit.error().message);
  spec.options.per_call = std::chrono::milliseconds(limit->ms);
  if (limit->ref) {
    spec.options.speed_factor = this_machine_factor();
    spec.options.per_call = std::chrono::milliseconds(std::max<std::int64_t>(
        1, std::llround(static_cast<double>(limit->ms) * *spec.options.speed_factor)));
  }
  bool load_check = true;
  if (auto ok =
          apply_limit_options(a.limits, spec.options.limit_by, spec.options.backstop, load_check);
      !ok)
    return fail(ok.error().message);
  if (load_check) spec.options.host_load = ProcHostLoad::instance();
  if (!a.clock.empty()) {
    auto tc = parse_time_control(a.clock);
    if (!tc) {
      return fail(tc.error().message);
    }
    spec.options.time_control = *tc;
  }
  if (auto ok = set_hosting(a, game, spec); !ok) return std::unexpected(ok.error());
  // Stored bots become the programs they run, checked below like any other.
  spec.hosting.shelf = shelf;
  auto taken = take_stored_bots(spec);
  if (!taken) return std::unexpected(taken.error());
  spec = std::move(*taken);
  spec.hosting.tokens = make_seat_tokens(spec.roster);
  if (!a.tokens_file.empty()) {
    if (spec.hosting.tokens.empty()) {
      return fail("--tokens: there is no tcp seat to give a token to");
    }
    if (auto ok = check_output_path(a.tokens_file); !ok) {
      return fail("--tokens " + ok.error().message);
    }
  }
  // Every mistake of ours is found before anything is started or created.
  if (auto ok = check_play(game, spec); !ok) {
    return fail(ok.error().message);
  }
  if (auto ok = game.check_config(spec.config, spec.roster.size()); !ok) {
    return fail((a.config_given ? "--config: " : "") + ok.error().message);
  }
  return spec;
}

// The warning of programs run without walls, and each tcp seat's token: printed, or written to
// --tokens (for the organizer only).
Expected<void> hand_out(const PlayArgs& a, const PlaySpec& spec) {
  const bool any_program = std::any_of(spec.roster.begin(), spec.roster.end(),
                                    [](const Seating& s) { return s.bot.starts_with("cmd:"); });
  if (any_program && !spec.hosting.program.sandbox) report_error(kUnsandboxedWarning);
  // Each tcp player needs its seat's token: printed here, or written (for the organizer only).
  if (!spec.hosting.tokens.empty()) {
    if (a.tokens_file.empty()) {
      for (const auto& [seat, token] : spec.hosting.tokens)
        std::cerr << fmt::format("arbiter: seat {} is claimed with the token {}", seat, token)
                  << std::endl;
    } else {
      if (auto ok = write_secret_file(a.tokens_file, dump(Json(spec.hosting.tokens)) + "\n");
          !ok) {
        return fail("--tokens " + ok.error().message);
      }
    }
  }
  return {};
}

// The result as `a` asks: one JSON line, or the table, the ejections, the game's report and the
// reproduce command; then the run's own problems (a failed --log write), exit 1 if any.
int print_outcome(const PlayArgs& a, const PlayOutcome& o,
                  const std::vector<std::string>& problems) {
  const MatchResult& r = o.result;
  const auto& names = o.names;
  if (a.json) {
    Json j = encode_result(r);
    j["names"] = names;
    j["seed"] = a.seed;
    if (!o.details.is_null()) j["details"] = o.details;
    std::cout << dump(j) << std::endl;
    return report_problems(problems);
  }
  std::vector<std::string> winners;
  for (Seat s : r.winners) winners.push_back(names[s]);
  fmt::print("{} match, seed {}, {} players\n", a.game, a.seed, names.size());
  if (r.aborted) fmt::print("aborted: the game did not end within the turn limit\n");
  fmt::print("winners: {}\n",
             winners.empty() ? "none" : fmt::format("{}", fmt::join(winners, ", ")));
  for (std::size_t s = 0; s < names.size(); ++s) {
    const bool won = std::find(r.winners.begin(), r.winners.end(), Seat(s)) != r.winners.end();
    const bool out = std::any_of(r.ejections.begin(), r.ejections.end(),
                                 [&](const Ejection& e) { return e.seat == Seat(s); });
    const std::int64_t score = s < r.scores.size() ? r.scores[s] : 0;
    fmt::print("  {:<20} {:>6}{}\n", names[s], score, won ? "  winner" : out ? "  ejected" : "");
  }
  for (const auto& e : r.ejections)
    fmt::print("ejected: {} during {} ({}: {})\n", names[e.seat], e.call, to_string(e.why),
               printable_line(e.detail));  // a player's bytes may be in it
  for (const auto& line : o.report) fmt::print("{}\n", printable_line(line));
  if (!a.log_path.empty()) fmt::print("log: {}\n", a.log_path);
  fmt::print("reproduce: {}\n", play_reproduce_command(a));
  return report_problems(problems);
}

// The stored bots among `a`'s players pinned to the version they will play ("bot:alice" becomes
// "bot:alice@3"), from the store a shelf is opened on; nothing when none is stored.
struct StoredPlayers {
  std::unique_ptr<tournament::Store> store;
  std::optional<league::StoreShelf> shelf;
};
Expected<void> pin_stored_players(PlayArgs& a, StoredPlayers& stored) {
  if (!std::any_of(a.players.begin(), a.players.end(), [](const std::string& p) {
        const auto colon = p.find(':');
        return colon != std::string::npos && is_stored_bot(std::string_view(p).substr(colon + 1));
      }))
    return {};
  if (a.store.empty())
    return fail("a bot: player is a stored bot: give the store that holds it (--store)");
  auto store = tournament::open_store(a.store, tournament::OpenMode::existing);
  if (!store) return fail("--store: " + store.error().message);
  stored.store = std::move(*store);
  for (std::string& player : a.players) {
    const auto colon = player.find(':');
    if (colon == std::string::npos) continue;
    const std::string bot = player.substr(colon + 1);
    if (!is_stored_bot(bot)) continue;
    auto ref = parse_stored_bot(bot);
    if (!ref)
      return fail(fmt::format("player {}: {}", player.substr(0, colon), ref.error().message));
    auto version = league::find_bot_version(*stored.store, *ref);
    if (!version)
      return fail(fmt::format("player {}: {}", player.substr(0, colon), version.error().message));
    player = fmt::format("{}:bot:{}@{}", player.substr(0, colon), version->name, version->version);
  }
  stored.shelf.emplace(*stored.store, a.bot_cache.empty() ? league::default_bot_cache()
                                                          : std::filesystem::path(a.bot_cache));
  return {};
}

int play(PlayArgs a) {
  const GameEntry* game = find_game(a.game);
  if (game == nullptr) {
    report_error(fmt::format("unknown game \"{}\" (see arbiter games)", a.game));
    return kBadInput;
  }
  StoredPlayers stored;
  if (auto ok = pin_stored_players(a, stored); !ok) {
    report_error(ok.error().message);
    return kBadInput;
  }
  auto made = play_spec(a, *game, stored.shelf ? &*stored.shelf : nullptr);
  if (!made) {
    report_error(made.error().message);
    return kBadInput;
  }
  PlaySpec& spec = *made;
  ProgramRecords programs;
  spec.hosting.programs = &programs;
  if (auto ok = hand_out(a, spec); !ok) {
    report_error(ok.error().message);
    return kBadInput;
  }
  std::optional<OutputFile> log_file;
  std::optional<GameLog> log;
  if (!a.log_path.empty()) {
    auto file = OutputFile::create(a.log_path);
    if (!file) {
      report_error("--log " + file.error().message);
      return kBadInput;
    }
    log_file.emplace(std::move(*file));
    log.emplace(&*log_file);
    spec.options.log = &*log;
  }
  // The live viewer: its observer sees every line the match records.
  std::optional<LiveViewer> viewer;
  std::optional<server::LiveObserver> watcher;
  if (!a.serve.empty()) {
    viewer.emplace();
    if (auto ok = viewer->start(a.serve, nullptr); !ok) {
      report_error(ok.error().message);
      return kBadInput;
    }
    auto match = viewer->live().start(a.game);
    if (!log) {
      log.emplace();
      spec.options.log = &*log;
    }
    watcher.emplace(match);
    log->watch(*watcher);
    std::cerr << fmt::format("arbiter: watch the match at {}match.html?live={}", viewer->url(),
                             match->id())
              << std::endl;
  }
  auto outcome = game->play(spec);
  if (watcher) {
    log->unwatch(*watcher);
    watcher.reset();  // the match is over for its viewers, whatever happened
  }
  if (viewer && a.linger > 0) {
    std::cerr << fmt::format("arbiter: the viewer stays up for {} s", a.linger) << std::endl;
    std::this_thread::sleep_for(std::chrono::duration<double>(a.linger));
  }
  // What went wrong on our side during the match: the match stands, the exit code says so.
  std::vector<std::string> problems;
  if (log_file)
    if (auto closed = log_file->close(); !closed)
      problems.push_back("--log: " + closed.error().message);
  for (const auto& program : programs.collect())
    if (!program.log_error.empty()) problems.push_back("--stderr-dir: " + program.log_error);
  if (!outcome) {
    report_error(outcome.error().message);
    return kBadInput;
  }
  return print_outcome(a, *outcome, problems);
}

// A game log larger than this is refused rather than read (a long Abalone match with chatty
// teams is tens of MB).
constexpr std::size_t kMaxLogBytes = std::size_t{1} << 30;

int replay_file(const std::string& path) {
  auto text = read_file(path, kMaxLogBytes);
  if (!text) {
    report_error("replay: " + text.error().message);
    return kBadInput;
  }
  auto log = read_game_log(*text);
  if (!log) {
    report_error(fmt::format("replay {}: {}", path, log.error().message));
    return kBadInput;
  }
  const std::string game_name = string_or((*log)[0], "game");
  const GameEntry* game = find_game(game_name);
  if (game == nullptr) {
    report_error(fmt::format("replay {}: unknown game \"{}\"", path, game_name));
    return kBadInput;
  }
  auto report = game->replay(*log);
  if (!report) {
    report_error(fmt::format("replay {}: {}", path, report.error().message));
    return kBadInput;
  }
  if (!report->identical) {
    report_error(fmt::format("replay {}: the match does not replay identically: {}", path,
                             report->difference));
    return kFailed;
  }
  if (report->calls > 0)
    fmt::print("replayed {} calls of {} match {}: identical\n", report->calls, game_name, path);
  else
    fmt::print("replayed {} match {}: identical\n", game_name, path);
  return 0;
}

}  // namespace

}  // namespace arbiter::cli

namespace arbiter::cli {
namespace {

void add_games_command(CLI::App& app) {
  auto* games = app.add_subcommand("games", "List the games and their house bots");
  games->callback([] {
    // One column wide enough for every name.
    std::size_t width = 0;
    for (const auto& g : registered_games()) width = std::max(width, g.name.size());
    const std::string indent(width + 2, ' ');
    for (const auto& g : registered_games())
      fmt::print("{:<{}}  {}\n{}bots: {}\n", g.name, width, g.summary, indent, g.bots);
    fmt::print("any game: cmd:PROGRAM [ARGS] (a program speaking the wire protocol) | tcp\n");
  });
}

void add_play_command(CLI::App& app, int& exit_code) {
  static PlayArgs play_args;
  auto* play_cmd =
      app.add_subcommand("play", "Play one match between house bots and print the result");
  play_cmd->add_option("game", play_args.game, "The game (see arbiter games)")->required();
  play_cmd->add_option("--player,-p", play_args.players, "NAME:BOT, once per seat in turn order");
  auto* black_opt = play_cmd->add_option(
      "--black", play_args.black, "abalone: the black team (the same as --player black:BOT)");
  auto* white_opt = play_cmd->add_option(
      "--white", play_args.white, "abalone: the white team (the same as --player white:BOT)");
  black_opt->needs(white_opt);
  white_opt->needs(black_opt);
  black_opt->excludes("--player");
  white_opt->excludes("--player");
  play_cmd->add_option("--gui", play_args.gui,
                       "abalone: stream the viewer's text commands to HOST:PORT (a listening "
                       "viewer, e.g. 127.0.0.1:3126)");
  play_cmd
      ->add_option("--seed", play_args.seed_text,
                   "The match seed, 0 to 2^64-1 (default: drawn from the kernel's random source "
                   "and printed, so that no program can guess the deal)")
      ->check(natural_validator());
  play_cmd->add_option("--program-key", play_args.program_key,
                       "The secret key of the programs' seeds (ARBITER_SEED), 32 hex digits, as "
                       "a reproduce command gives it (default: drawn)");
  play_cmd->add_option("--log", play_args.log_path, "Write the game log (JSON lines) to this file");
  play_cmd->add_option("--config", play_args.config, "Game config overrides as a JSON object")
      ->each([&](const std::string&) { play_args.config_given = true; });
  play_cmd->add_option("--per-call", play_args.per_call, kPerCallHelp)->check(per_call_validator());
  add_limit_options(play_cmd, play_args.limits);
  play_cmd->add_option("--store", play_args.store,
                       "Where bot:NAME players are stored (sqlite:FILE or postgresql://...)");
  play_cmd->add_option("--bot-cache", play_args.bot_cache,
                       "Where stored bots' files are unpacked (default ~/.cache/arbiter/bots)");
  play_cmd->add_option("--tokens", play_args.tokens_file,
                       "Write the tcp seats' tokens to FILE as JSON {seat: token} (mode 0600) "
                       "instead of printing them");
  play_cmd->add_option("--clock", play_args.clock,
                       "A chess clock per seat, BANK+INCREMENT[/FIRST-CALL-GRACE][~DELAY], e.g. "
                       "60s+1s: each call draws on the bank (past its DELAY), each move adds "
                       "the increment (q, battleship)");
  play_cmd->add_flag("--json", play_args.json, "Print the result as one JSON object");
  play_cmd->add_option("--listen", play_args.listen,
                       "HOST:PORT where tcp players connect (default 127.0.0.1:0, any free port)");
  play_cmd
      ->add_option("--accept-timeout", play_args.accept_timeout,
                   "Seconds to wait for the tcp players to connect and sign up (default 60)")
      ->check(seconds_validator());
  play_cmd
      ->add_option("--max-pending", play_args.max_pending,
                   "Connections that have not yet sent a token held at once (default 64; a "
                   "quarter, at least 4, from one address); each has 2 s to send it, and a new "
                   "connection beyond the cap replaces the one silent longest")
      ->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
  play_cmd->add_option("--serve", play_args.serve,
                       "Show the match live in the viewer at HOST:PORT (e.g. 127.0.0.1:8080; "
                       "port 0: any free one): spectators see what no seat hides until the end");
  play_cmd
      ->add_option("--linger", play_args.linger,
                   "With --serve: seconds the viewer stays up after the match (default 0)")
      ->check(seconds_validator(0, 86400));
  play_cmd->add_option("--stderr-dir", play_args.stderr_dir,
                       "Keep each cmd player's stderr (first MiB) in DIR/NAME.stderr");
  play_cmd->add_option("--entrant", play_args.entrant_settings, kEntrantHelp);
  add_program_options(play_cmd, play_args.program);
  std::string house_bots;
  for (const auto& g : registered_games()) house_bots += fmt::format("  {}: {}\n", g.name, g.bots);
  play_cmd->footer(
      "BOT is a house bot of the game, cmd:PROGRAM [ARGS] (a program speaking the wire protocol\n"
      "on stdin/stdout; arguments split at spaces; behind the sandbox) or tcp (a client\n"
      "connecting to --listen and sending its seat's token, printed at start).\n"
      "House bots per game (arbiter games):\n" +
      house_bots +
      "Examples:\n"
      "  arbiter play q --player alice:dag --player bob:ldasg --seed 1 --log g.jsonl\n"
      "  arbiter play q --player alice:dag --player 'py:cmd:python3 bots/python/q_bot.py'\n"
      "  arbiter play battleship --player a:density --player b:hunt+evasive --config "
      "'{\"salvo\": true}'\n"
      "  arbiter play abalone --black bots/abalone/simple.lua --white team --gui 127.0.0.1:3126");
  play_cmd->callback([&] {
    if (!play_args.black.empty()) {
      play_args.players.insert(play_args.players.begin(),
                               {"black:" + play_args.black, "white:" + play_args.white});
    }
    // validated by natural_validator
    play_args.seed =
        play_args.seed_text.empty() ? unguessable_seed() : std::stoull(play_args.seed_text);
    if (play_args.program_key.empty())
      play_args.program_key = to_hex(unguessable_bytes(seeds::kProgramKeyBytes));
    exit_code = play(play_args);
  });
}

void add_calibrate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Time a fixed CPU workload and print this machine's factor against the reference (limits "
      "given as 1ref are scaled by it)");
  auto runs = std::make_shared<int>(4);
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--runs", *runs, "Runs of the workload, the fastest kept (default 4)")
      ->check(CLI::Range(1, 100));
  cmd->add_flag("--json", *json, "Print one JSON object");
  cmd->callback([runs, json] {
    const Calibration c = calibrate(*runs);
    const double ms = std::chrono::duration<double, std::milli>(c.workload).count();
    const double reference = std::chrono::duration<double, std::milli>(kReferenceWorkload).count();
    if (*json) {
      fmt::print("{}\n", dump(Json{{"factor", c.factor},
                                   {"workload_ms", ms},
                                   {"reference_ms", reference},
                                   {"runs", c.runs}}));
      return;
    }
    fmt::print(
        "factor {:.3f}: the workload took {:.1f} ms of CPU time here (the fastest of {} "
        "runs), {:.0f} ms on the reference machine\n",
        c.factor, ms, c.runs, reference);
    fmt::print("a limit of 1ref is {:.0f} ms here{}\n", 1000 * c.factor,
               c.factor > 1.05   ? " (this machine is slower than the reference)"
               : c.factor < 0.95 ? " (this machine is faster than the reference)"
                                 : "");
  });
}

void add_sandbox_command(CLI::App& app, int& exit_code) {
  auto* sandbox_cmd = app.add_subcommand("sandbox", "The walls around program players");
  sandbox_cmd->require_subcommand(1);
  sandbox_cmd
      ->add_subcommand("check", "Say which walls this machine can put up (exit 1 if not all)")
      ->callback([&exit_code] {
        const SandboxSupport support = check_sandbox();
        for (const auto& line : support.lines) fmt::print("{}\n", line);
        // Not a wall: the caps hold without cgroups too, but only cgroups say when one was hit.
        if (auto cgroups = ProgramCgroup::available())
          fmt::print("yes  cgroups: memory and process caps counted by the kernel, hits named "
                     "(memory-limit, process-limit)\n");
        else
          fmt::print("no   cgroups ({}): memory and processes are capped by rlimits, and a "
                     "program that dies of them is a hang-up\n",
                     cgroups.error().message);
        if (auto cpu = ProgramCgroup::cpu_available())
          fmt::print(
              "yes  CPU shares: each program gets --cpus (default 1) at equal weight, so "
              "one that forks spinners slows only itself\n");
        else
          fmt::print(
              "no   CPU shares ({}): --cpus is not enforced, and a program forking "
              "spinners can starve the others\n",
              cpu.error().message);
        // Not walls either: the fair clocks (docs/security.md, "Two clocks").
        if (auto counted = ProgramCgroup::accounting_available())
          fmt::print(
              "yes  CPU time: each program's is counted by its cgroup (cpu_us in the "
              "log, --limit-by cpu)\n");
        else
          fmt::print(
              "no   CPU time ({}): programs' calls have no cpu_us, and --limit-by cpu "
              "judges them on the wall clock\n",
              counted.error().message);
        if (auto pin = ProgramCgroup::pin_available())
          fmt::print("yes  pinning: --pin gives each match's program seats CPUs of their own\n");
        else
          fmt::print("no   pinning ({}): --pin is refused\n", pin.error().message);
        if (auto load = ProcHostLoad::available())
          fmt::print(
              "yes  CPU pressure: a timeout while the host is overloaded is "
              "timeout-under-load\n");
        else
          fmt::print("no   CPU pressure ({}): every timeout counts\n", load.error().message);
        fmt::print("{}\n", support.ok ? "the sandbox works here (cmd players run behind it)"
                                      : "the sandbox does not work here (cmd players need "
                                        "--unsafe-no-sandbox)");
        if (!support.ok) exit_code = kFailed;
      });
}

void add_replay_command(CLI::App& app, int& exit_code) {
  static std::string replay_path;
  auto* replay_cmd =
      app.add_subcommand("replay", "Re-simulate a game log and check it ends identically");
  replay_cmd->add_option("log", replay_path, "The game log written by play --log")->required();
  replay_cmd->callback([&] { exit_code = replay_file(replay_path); });
}

}  // namespace
}  // namespace arbiter::cli

int main(int argc, char** argv) {
  using namespace arbiter;
  using namespace arbiter::cli;
  CLI::App app{"arbiter: a referee for games between untrusted players"};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       fmt::format("arbiter {} (git {})", ARBITER_VERSION, ARBITER_REVISION),
                       "Print the version and the git revision it was built from");
  app.footer(
      "Exit codes, for every command:\n"
      "  0  success\n"
      "  1  failure at run time: a replay that differs, matches that could not be played, a\n"
      "     failed write (full disk), a store that fails mid-run\n"
      "  2  bad usage or input: one line on stderr saying what is wrong; nothing is created,\n"
      "     started or played\n"
      "  3  a tournament store holds damaged results or logs: one line per match on stderr,\n"
      "     \"damaged: tournament T match N: WHY\" (see arbiter tournament verify)\n"
      "  4  unknown: a search gave up at the limit it was given (dominosa solve --timeout,\n"
      "     --max-nodes) without an answer");
  int exit_code = 0;

  add_games_command(app);
  add_play_command(app, exit_code);
  add_sandbox_command(app, exit_code);
  add_calibrate_command(app);
  add_replay_command(app, exit_code);
  add_q_commands(app, exit_code);
  add_battleship_commands(app, exit_code);
  add_dominosa_commands(app, exit_code);
  add_tournament_commands(app, exit_code);
  add_bot_commands(app, exit_code);
  add_ladder_commands(app, exit_code);
  add_author_commands(app, exit_code);
  add_worker_role_commands(app, exit_code);
  add_workers_commands(app, exit_code);
  add_serve_command(app, exit_code);

  if (argc > 1 && argv[1][0] != '-') {
    const std::string command = argv[1];
    const auto subcommands = app.get_subcommands([](CLI::App*) { return true; });
    if (std::none_of(subcommands.begin(), subcommands.end(),
                     [&](CLI::App* sub) { return sub->get_name() == command; })) {
      report_error(fmt::format("unknown command \"{}\" (see --help)", command));
      return kBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return checked_stdout(app.exit(e));
    report_error(std::string(e.what()) + " (see --help)");
    return kBadInput;
  }
  exit_code = checked_stdout(exit_code);
  std::cerr.flush();
  // A player call that never returned still occupies a detached thread; do not wait for it or
  // run static destructors under its feet.
  if (CallRunner::stray_threads() > 0 || hanging_threads() > 0 ||
      tournament::abandoned_matches() > 0)
    std::_Exit(exit_code);
  return exit_code;
}
