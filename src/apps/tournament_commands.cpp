// `arbiter tournament run|create|resume|status|results|log|verify` and `arbiter worker`:
// tournaments kept in a result store (SQLite by default, PostgreSQL to spread the matches over
// machines).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "apps/commands.h"
#include "core/file.h"
#include "arena/registry.h"
#include "arena/seating.h"
#include "remote/tcp.h"
#include "tournament/audit.h"
#include "tournament/head_to_head.h"
#include "tournament/schedule.h"
#include "tournament/standings.h"
#include "tournament/worker.h"

namespace arbiter::cli {
namespace {

using namespace arbiter::tournament;

constexpr const char* kDefaultStore = "sqlite:arbiter.db";

std::atomic<bool> g_stop{false};

void on_signal(int) { g_stop.store(true); }

// SIGINT/SIGTERM stop claiming new matches; matches under way have WorkerOptions::stop_grace
// (3 s) to finish and be stored, the rest are released for a resume. A second one ends the
// process at once (the default action).
void catch_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

struct SpecArgs {
  std::string file;
  std::string game;
  std::vector<std::string> players;
  std::string schedule;
  std::int64_t seats = 0;
  std::int64_t rounds = 0;
  std::string seed;
  std::string config;
  double per_call = 0;
  std::string hero;
  std::string name;
  ProgramOptions program;
  std::string clock;
  bool no_pairing = false;
  std::vector<double> sprt;  // ELO0 ELO1
  std::vector<std::string> entrant_settings;  // NAME:KEY=VALUE
  std::optional<double> alpha;
  std::optional<double> beta;
  std::string sprt_model;
};

struct RunArgs {
  std::string store = kDefaultStore;
  int workers = 0;
  int batch = 2;
  double lease = 30;
  double match_limit = 0;  // seconds; 0: derived from the game's limits
  std::string csv;
  std::string json;
  std::string matches_csv;
  std::string crosstable_csv;
  bool crosstable = false;
  bool quiet = false;
  std::int64_t tournament = 0;
  bool until_finished = false;
  bool print_json = false;
  bool matches = false;
  std::string stderr_dir;
  bool show_stderr = false;
  std::string listen;        // HOST:PORT where tcp entrants connect; empty: none
  double accept_timeout = 30;  // seconds a match waits for its tcp entrants
  std::string tokens_file;   // the tcp entrants' tokens: read if it exists, else written
  std::string serve;  // HOST:PORT of the live viewer; empty: none
  bool no_live = false;  // write no spectator lines to the store
  double linger = 0;  // seconds the viewer stays up after the run
};

// The files and folders a command will write, checked before anything is created or played,
// so that a typo costs an error line and not a tournament's exports.
bool outputs_ok(const RunArgs& a, int& exit_code) {
  for (const auto& [flag, path] : {std::pair<const char*, const std::string&>{"--csv", a.csv},
                                   {"--json", a.json},
                                   {"--matches-csv", a.matches_csv},
                                   {"--crosstable-csv", a.crosstable_csv}}) {
    if (path.empty()) continue;
    if (auto ok = check_output_path(path); !ok) {
      report_error(fmt::format("{} {}", flag, ok.error().message));
      exit_code = kBadInput;
      return false;
    }
  }
  if (!a.stderr_dir.empty())
    if (auto ok = check_writable_dir(a.stderr_dir); !ok) {
      report_error("--stderr-dir " + ok.error().message);
      exit_code = kBadInput;
      return false;
    }
  return true;
}

void add_spec_options(CLI::App* cmd, SpecArgs& a) {
  cmd->add_option("--file,-f", a.file,
                  "A tournament file (TOML: game, [[player]] name/bot, schedule, seats, rounds, "
                  "seed, per_call, hero, [config]); flags given too override it");
  cmd->add_option("--game,-g", a.game, "The game (see arbiter games)");
  cmd->add_option("--player,-p", a.players,
                  "NAME:BOT, once per entrant (BOT as for arbiter play: a house bot, "
                  "cmd:PROGRAM ARGS quoted as in a shell, or tcp with --listen)");
  cmd->add_option("--schedule", a.schedule, "round-robin (default) | gauntlet | swiss");
  cmd->add_option("--seats", a.seats, "Players per match (default 2)")->check(CLI::Range(1, 64));
  cmd->add_option("--rounds,-r", a.rounds,
                  "Repetitions of the schedule; Swiss: rounds of pairings (default 1)")
      ->check(CLI::Range(1, 1'000'000));
  cmd->add_option("--seed", a.seed,
                  "The master seed; each match's seed derives from it (default: drawn from the "
                  "kernel's random source, printed and stored, so that no program can guess its "
                  "deals)")
      ->check(natural_validator());
  cmd->add_option("--config", a.config, "The game's config overrides as a JSON object");
  cmd->add_option("--per-call", a.per_call, "Seconds a player may take per call (default 6)")
      ->check(seconds_validator());
  cmd->add_option("--hero", a.hero, "Gauntlet: the entrant who plays every match (default: the first)");
  cmd->add_option("--name", a.name, "The tournament's name (default: tournament)");
  cmd->add_option("--clock", a.clock,
                  "A chess clock per seat, BANK+INCREMENT[/GRACE][~DELAY], e.g. 10s+0.1s (q, "
                  "battleship)");
  cmd->add_option("--entrant", a.entrant_settings, kEntrantHelp);
  cmd->add_flag("--no-pairing", a.no_pairing,
                "Give every match its own seed (by default the matches of one set of entrants in "
                "a round, one per seat order, share a seed, so the luck of the deal cancels)");
  cmd->add_option("--sprt", a.sprt,
                  "ELO0 ELO1: test H0 \"the first entrant is ELO0 stronger\" against H1 \"ELO1 "
                  "stronger\" after every pair of matches and stop once one is accepted (two "
                  "entrants; --rounds is the most pairs; exit 0 for H1, 1 for H0 or no answer)")
      ->expected(2);
  cmd->add_option("--alpha", a.alpha, "With --sprt: the false H1 rate (default 0.05)");
  cmd->add_option("--beta", a.beta, "With --sprt: the false H0 rate (default 0.05)");
  cmd->add_option("--sprt-model", a.sprt_model,
                  "With --sprt: pentanomial (pairs of matches; the default when paired) | "
                  "trinomial (single matches; the default with --no-pairing)");
  add_program_options(cmd, a.program);
}

Expected<TournamentSpec> build_spec(const SpecArgs& a) {
  TournamentSpec spec = new_tournament_spec();
  if (!a.file.empty()) {
    auto from_file = read_spec_file(a.file);
    if (!from_file) return from_file;
    spec = *from_file;
  }
  if (!a.game.empty()) spec.game = a.game;
  if (!a.players.empty()) {
    spec.players.clear();
    for (const auto& p : a.players) {
      auto entrant = parse_entrant(p);
      if (!entrant) return std::unexpected(entrant.error());
      spec.players.push_back(*entrant);
    }
  }
  if (!a.schedule.empty()) {
    auto schedule = parse_schedule(a.schedule);
    if (!schedule) return fail("--" + schedule.error().message);
    spec.schedule = *schedule;
  }
  if (a.seats > 0) spec.seats = a.seats;
  if (a.rounds > 0) spec.rounds = a.rounds;
  if (!a.seed.empty()) spec.seed = std::stoull(a.seed);  // checked by natural_validator
  if (!a.config.empty()) {
    auto config = parse_json(a.config);
    if (!config) return fail("--config: " + config.error().message);
    if (!config->is_object()) return fail("--config: expected a JSON object");
    spec.config = *config;
  }
  if (a.per_call > 0) spec.per_call_ms = std::llround(a.per_call * 1000);
  if (!a.hero.empty()) spec.hero = a.hero;
  if (!a.name.empty()) spec.name = a.name;
  if (!a.clock.empty()) {
    auto tc = parse_time_control(a.clock);
    if (!tc) return std::unexpected(tc.error());
    spec.clock = *tc;
  }
  if (a.no_pairing) spec.pairing = false;
  if (!a.sprt.empty()) {
    // Over a file's [sprt]: its error rates stay unless given here too.
    if (!spec.sprt) spec.sprt = Sprt{};
    spec.sprt->elo0 = a.sprt[0];
    spec.sprt->elo1 = a.sprt[1];
    spec.sprt->pentanomial = spec.pairing;
  }
  if (!spec.sprt && (a.alpha || a.beta || !a.sprt_model.empty()))
    return fail("--alpha, --beta and --sprt-model go with --sprt ELO0 ELO1");
  if (spec.sprt) {
    if (a.alpha) spec.sprt->alpha = *a.alpha;
    if (a.beta) spec.sprt->beta = *a.beta;
    if (!a.sprt_model.empty()) {
      if (a.sprt_model != "pentanomial" && a.sprt_model != "trinomial")
        return fail(fmt::format("--sprt-model \"{}\": expected pentanomial or trinomial",
                                a.sprt_model));
      spec.sprt->pentanomial = a.sprt_model == "pentanomial";
    }
  }
  // Over the file's terms for every entrant (an entrant's own terms in the file stay its own).
  if (auto ok = apply_program_options(a.program, spec.program); !ok)
    return std::unexpected(ok.error());
  if (auto ok = apply_entrant_settings(a.entrant_settings, spec.players, spec.program); !ok)
    return std::unexpected(ok.error());
  if (spec.game.empty()) return fail("no game: give --game or a --file with game = \"...\"");
  if (spec.players.empty()) return fail("no players: give --player NAME:BOT (twice or more)");
  if (auto ok = validate_spec(spec); !ok) return std::unexpected(ok.error());
  return spec;
}

// The store, or null after reporting why it cannot be opened (exit code 2).
std::unique_ptr<Store> open_or_report(const std::string& url, OpenMode mode, int& exit_code) {
  auto store = open_store(url, mode);
  if (!store) {
    report_error(store.error().message);
    exit_code = kBadInput;
    return nullptr;
  }
  return std::move(*store);
}

// The files no program of the run may see: a SQLite store (a program beside it would read
// every match), the tokens file, where stderr is kept, and what the run writes at its end
// (seeds and results, read by the programs of a later run).
std::vector<PrivateFile> private_paths_of(const RunArgs& a) {
  std::vector<PrivateFile> paths;
  // A URL that names no file is refused when the store is opened, before any program starts.
  if (auto target = sqlite_target(a.store); target && *target)
    paths.push_back({(*target)->file, "the store"});
  for (const auto& [path, what] :
       {std::pair<const std::string&, const char*>{a.tokens_file, "the tokens file"},
        {a.stderr_dir, "the stderr directory"},
        {a.csv, "the --csv file"},
        {a.json, "the --json file"},
        {a.matches_csv, "the --matches-csv file"},
        {a.crosstable_csv, "the --crosstable-csv file"}})
    if (!path.empty()) paths.push_back({path, what});
  return paths;
}

// Whether the stored tournament can be played on this machine (its programs may exist where it
// was created and not here, or see the store here); if not, says why (exit code 2).
bool playable_here(Store& store, std::int64_t id, const RunArgs& a, int& exit_code) {
  auto spec = load_spec(store, id);
  if (!spec) {
    report_error(spec.error().message);
    exit_code = kBadInput;
    return false;
  }
  if (auto ok = validate_spec(*spec); !ok) {
    report_error(fmt::format("tournament {} cannot be played here: {}", id, ok.error().message));
    exit_code = kBadInput;
    return false;
  }
  if (auto ok = check_entrants_start(*spec, private_paths_of(a)); !ok) {
    report_error(fmt::format("tournament {} cannot be played here: {}", id, ok.error().message));
    exit_code = kBadInput;
    return false;
  }
  return true;
}

// A tournament built from the flags and stored, or nothing after reporting why not (exit code
// 2 for bad flags or an unusable store, 1 when storing fails).
struct Created {
  std::unique_ptr<Store> store;
  TournamentSpec spec;
  std::int64_t id = 0;
};

// Where a tournament's tcp entrants connect, and with which tokens: read from --tokens FILE if
// it exists, else made now (and written there, or printed). Checks only, without making or
// writing anything, when `check_only`.
Expected<std::optional<RemoteDesk>> remote_desk(const TournamentSpec& spec, const RunArgs& a,
                                                bool check_only) {
  if (!has_tcp_entrants(spec)) {
    if (!a.listen.empty() || !a.tokens_file.empty())
      return fail("--listen and --tokens are for tournaments with tcp entrants (-p NAME:tcp)");
    return std::nullopt;
  }
  if (a.listen.empty())
    return fail("this tournament has tcp entrants: give --listen HOST:PORT, the fixed address "
                "their clients connect to for each match");
  auto address = parse_address(a.listen, "--listen", /*any_port=*/false);
  if (!address) return std::unexpected(address.error());
  RemoteDesk desk;
  desk.host = address->host;
  desk.port = address->port;
  desk.accept_timeout = std::chrono::milliseconds(std::llround(a.accept_timeout * 1000));
  std::vector<Seating> remote;
  for (const Entrant& e : spec.players)
    if (e.bot == "tcp") remote.push_back({e.name, e.bot, std::nullopt});
  std::error_code ec;
  if (!a.tokens_file.empty() && std::filesystem::exists(a.tokens_file, ec)) {
    auto text = read_file(a.tokens_file, 1 << 20);
    if (!text) return fail("--tokens " + text.error().message);
    auto j = parse_json(*text);
    if (!j || !j->is_object())
      return fail(fmt::format("--tokens {}: expected a JSON object {{entrant: token}}",
                              a.tokens_file));
    for (const Seating& seat : remote) {
      const Json& token = field_or_null(*j, seat.name);
      if (!token.is_string() || token.get<std::string>().size() < 16)
        return fail(fmt::format("--tokens {}: no token of at least 16 characters for {}",
                                a.tokens_file, seat.name));
      desk.tokens[seat.name] = token.get<std::string>();
    }
    return desk;
  }
  if (!a.tokens_file.empty())
    if (auto ok = check_output_path(a.tokens_file); !ok) return fail("--tokens " + ok.error().message);
  if (check_only) return desk;
  desk.tokens = make_seat_tokens(remote);
  if (a.tokens_file.empty()) {
    for (const auto& [name, token] : desk.tokens)
      std::cerr << fmt::format("arbiter: tcp entrant {} signs up with the token {}", name, token)
                << std::endl;
  } else if (auto ok = write_secret_file(a.tokens_file, dump(Json(desk.tokens)) + "\n"); !ok) {
    return fail("--tokens " + ok.error().message);
  }
  return desk;
}

std::optional<Created> create_from_args(const SpecArgs& args, const RunArgs& run,
                                        int& exit_code, bool plays_here) {
  auto spec = build_spec(args);
  if (!spec) {
    report_error(spec.error().message);
    exit_code = kBadInput;
    return std::nullopt;
  }
  if (!outputs_ok(run, exit_code)) return std::nullopt;
  if (plays_here) {
    if (auto desk = remote_desk(*spec, run, /*check_only=*/true); !desk) {
      report_error(desk.error().message);
      exit_code = kBadInput;
      return std::nullopt;
    }
    if (has_tcp_entrants(*spec)) spec->listen = run.listen;
  } else if (has_tcp_entrants(*spec)) {
    report_error("tcp entrants connect to the one process that plays their matches, which arbiter "
                 "worker cannot be: use tournament run --listen HOST:PORT");
    exit_code = kBadInput;
    return std::nullopt;
  }
  // The file holds the master seed, from which every deal follows.
  std::vector<PrivateFile> secret = private_paths_of(run);
  if (!args.file.empty()) secret.push_back({args.file, "the tournament file"});
  if (auto ok = check_entrants_start(*spec, secret); !ok) {
    report_error(ok.error().message);
    exit_code = kBadInput;
    return std::nullopt;
  }
  if (unsandboxed(*spec)) report_error(kUnsandboxedWarning);
  const std::string& url = run.store;
  auto store = open_or_report(url, OpenMode::create, exit_code);
  if (!store) return std::nullopt;
  auto id = create_tournament(*store, *spec);
  if (!id) {
    report_error(id.error().message);
    exit_code = kFailed;
    return std::nullopt;
  }
  return Created{std::move(store), std::move(*spec), *id};
}

std::string duration_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<long>(std::llround(seconds));
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

// Shows a tournament's progress from the store: a bar redrawn in place on a terminal, a plain
// line at every tenth (and at least every 30 s) otherwise.
class ProgressDisplay {
 public:
  ProgressDisplay(Store& store, std::int64_t tournament, bool quiet)
      : store_(store), tournament_(tournament), quiet_(quiet), tty_(isatty(STDERR_FILENO) == 1) {
    auto p = store_.progress(tournament_);
    start_done_ = p ? p->done : 0;
    thread_ = std::thread([this] { loop(); });
  }
  ~ProgressDisplay() { finish(); }

  void finish() {
    {
      std::lock_guard lock(mu_);
      if (stopped_) return;
      stopped_ = true;
    }
    wake_.notify_all();
    thread_.join();
    show(true);
  }

 private:
  void loop() {
    std::unique_lock lock(mu_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(tty_ ? 200 : 1000),
                           [&] { return stopped_; })) {
      lock.unlock();
      show(false);
      lock.lock();
    }
  }

  void show(bool last) {
    if (quiet_) return;
    auto p = store_.progress(tournament_);
    if (!p) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(p->done - start_done_) / elapsed : 0;
    const double eta = rate > 0 ? static_cast<double>(p->planned - p->done) / rate : NAN;
    const double share = p->planned > 0 ? static_cast<double>(p->done) / p->planned : 1.0;
    const std::string numbers =
        fmt::format("{}/{} matches  {:.0f}/min  ETA {}", p->done, p->planned, rate * 60,
                    p->done >= p->planned ? "0s" : duration_text(eta));
    if (tty_) {
      constexpr int kWidth = 30;
      const int filled = static_cast<int>(share * kWidth);
      std::fprintf(stderr, "\r[%s%s] %3.0f%%  %s\033[K%s", std::string(filled, '#').c_str(),
                   std::string(kWidth - filled, '.').c_str(), share * 100, numbers.c_str(),
                   last ? "\n" : "");
      std::fflush(stderr);
      return;
    }
    const int tenth = static_cast<int>(share * 10);
    const auto now = std::chrono::steady_clock::now();
    if (last || tenth > last_tenth_ || now - last_line_ > std::chrono::seconds(30)) {
      std::fprintf(stderr, "progress: %s\n", numbers.c_str());
      last_tenth_ = tenth;
      last_line_ = now;
    }
  }

  Store& store_;
  std::int64_t tournament_;
  bool quiet_;
  bool tty_;
  std::int64_t start_done_ = 0;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_line_ = start_;
  int last_tenth_ = 0;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopped_ = false;
  std::thread thread_;
};

// Each program's stderr tail under a header line naming its seat and how much it wrote.
void print_stderr_tails(const Json& tails) {
  if (!tails.is_array() || tails.empty()) {
    fmt::print("(this match ran no program)\n");
    return;
  }
  for (const Json& t : tails) {
    const std::string tail = string_or(t, "tail");
    const Json& bytes = field_or_null(t, "bytes");
    const std::uint64_t total = bytes.is_number_unsigned() ? bytes.get<std::uint64_t>() : 0;
    fmt::print("== {}: {} bytes on stderr{}\n", string_or(t, "seat"), total,
               total > tail.size() ? fmt::format(", the last {} follow", tail.size()) : "");
    std::cout << printable_text(tail);  // the program's own bytes: no terminal escapes
    if (!tail.empty() && tail.back() != '\n') std::cout << '\n';
  }
}

std::string store_flag(const std::string& url) {
  return url == kDefaultStore ? "" : " --store " + url;
}

int export_file(const std::string& path, const std::string& text, const char* what) {
  if (path.empty()) return 0;
  if (auto ok = write_file(path, text); !ok) {
    report_error(fmt::format("{} {}", what, ok.error().message));
    return kFailed;
  }
  return 0;
}

// Reports each damaged row on stderr; returns kDamaged if there was one, else 0.
int report_damage(const TournamentSpec& spec, std::int64_t id,
                  const std::vector<StoredResult>& results) {
  int rc = 0;
  for (const StoredResult& r : results)
    if (auto why = row_damage(spec, r); !why.empty()) {
      report_error(fmt::format("damaged: tournament {} match {}: {}", id, r.index, why));
      rc = kDamaged;
    }
  return rc;
}

// Prints the standings (damaged rows left out and reported) and writes the requested exports.
int report_results(Store& store, std::int64_t id, const RunArgs& a) {
  auto spec = load_spec(store, id);
  if (!spec) {
    report_error(spec.error().message);
    return kBadInput;
  }
  auto results = store.results(id);
  auto progress = store.progress(id);
  if (!results || !progress) {
    report_error((!results ? results.error() : progress.error()).message);
    return kFailed;
  }
  const StandingsTable standings = compute_standings(*spec, *results);
  const auto duel = head_to_head(*spec, *results);
  const Crosstable cross = compute_crosstable(*spec, *results, standings);
  if (a.matches) {
    std::cout << matches_csv(*spec, *results);
  } else if (a.crosstable && a.print_json) {
    std::cout << dump(crosstable_json(cross)) << std::endl;
  } else if (a.crosstable) {
    std::cout << crosstable_text(cross);
  } else if (a.print_json) {
    Json j = standings_json(standings);
    j["tournament"] = id;
    j["spec"] = encode_spec(*spec);
    j["planned"] = progress->planned;
    j["unsandboxed"] = unsandboxed(*spec);
    j["done"] = progress->done;
    if (duel) j["head_to_head"] = head_to_head_json(*spec, *duel);
    if (progress->concluded) j["concluded"] = *progress->concluded;
    j["crosstable"] = crosstable_json(cross);
    std::cout << dump(j) << std::endl;
  } else {
    fmt::print("tournament {} ({}): {} {}, {} of {} matches, seed {}\n", id, spec->name, spec->game,
               schedule_name(spec->schedule), progress->done, progress->planned, spec->seed);
    if (unsandboxed(*spec)) fmt::print("{}\n", kUnsandboxedWarning);
    std::cout << standings_text(standings);
    if (duel) std::cout << head_to_head_text(*spec, *duel);
    if (progress->concluded)
      fmt::print("concluded early: {} ({} matches not played)\n", *progress->concluded,
                 progress->planned - progress->done);
    if (!results->empty())
      fmt::print("reproduce a match, e.g. #{}: {}\n", results->front().index,
                 reproduce_command(*spec, results->front().spec));
    fmt::print("every match: arbiter tournament results {} --matches{}\n", id,
               store_flag(a.store));
  }
  int rc = export_file(a.csv, standings_csv(standings), "--csv");
  if (rc == 0) {
    Json j = standings_json(standings);
    j["tournament"] = id;
    if (duel) j["head_to_head"] = head_to_head_json(*spec, *duel);
    rc = export_file(a.json, dump(j) + "\n", "--json");
  }
  if (rc == 0) rc = export_file(a.matches_csv, matches_csv(*spec, *results), "--matches-csv");
  if (rc == 0) rc = export_file(a.crosstable_csv, crosstable_csv(cross), "--crosstable-csv");
  const int damage = report_damage(*spec, id, *results);
  return rc != 0 ? rc : damage;
}

// Plays the tournament's missing matches in this process, with a progress display.
// The worker settings every command that plays matches takes from its flags.
WorkerOptions worker_options(const RunArgs& a) {
  WorkerOptions options;
  options.private_paths = private_paths_of(a);
  options.threads = a.workers;
  options.batch = a.batch;
  options.lease = std::chrono::milliseconds(std::llround(a.lease * 1000));
  options.match_limit = std::chrono::milliseconds(std::llround(a.match_limit * 1000));
  options.stop = &g_stop;
  options.stderr_dir = a.stderr_dir;
  if (a.no_live) options.live_period = std::chrono::milliseconds(0);
  return options;
}

int play_tournament(Store& store, std::int64_t id, const RunArgs& a) {
  catch_stop_signals();
  if (auto released = release_dead_local_workers(store, id); released && *released > 0)
    std::cerr << fmt::format("arbiter: took back {} match(es) from a worker that died",
                             *released)
              << std::endl;
  WorkerOptions options = worker_options(a);
  options.only = id;
  // A run stopped between the deciding result and its conclusion concludes here, not after
  // one more match.
  auto spec = load_spec(store, id);
  if (!spec) {
    report_error(spec.error().message);
    return kFailed;
  }
  if (auto sprt = check_sprt(store, id, *spec); !sprt) {
    report_error(sprt.error().message);
    return kFailed;
  }
  auto desk = remote_desk(*spec, a, /*check_only=*/false);
  if (!desk) {
    report_error(desk.error().message);
    return kBadInput;
  }
  options.remote = *desk;
  if (desk->has_value())
    std::cerr << fmt::format("arbiter: tcp entrants connect to {}:{} for each of their matches "
                             "(a match waits {:g} s for them)",
                             (*desk)->host, (*desk)->port, a.accept_timeout)
              << std::endl;
  std::optional<LiveViewer> viewer;
  if (!a.serve.empty()) {
    viewer.emplace();
    if (auto ok = viewer->start(a.serve, &store); !ok) {
      report_error(ok.error().message);
      return kBadInput;
    }
    // A finished match's whole log waits for the other matches dealt from its seed.
    options.watch = [&live = viewer->live(), &store](const TournamentSpec& spec, const Job& job) {
      auto reveal = [&store, spec, job] {
        auto results = store.results(job.tournament);
        return results && SeedGroups(spec, *results).over(job.spec);
      };
      return std::make_unique<server::LiveObserver>(live.start(spec.game, std::move(reveal)));
    };
    std::cerr << fmt::format("arbiter: watch it live at {} (its matches as they are played) and "
                             "{}tournament.html?id={} (its standings as they grow)",
                             viewer->url(), viewer->url(), id)
              << std::endl;
  }
  ProgressDisplay display(store, id, a.quiet);
  auto report = run_worker(store, options);
  display.finish();
  if (viewer && a.linger > 0 && !g_stop) {
    std::cerr << fmt::format("arbiter: the viewer stays up for {} s", a.linger) << std::endl;
    for (auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(a.linger);
         std::chrono::steady_clock::now() < until && !g_stop;)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!report) {
    report_error(report.error().message);
    return kFailed;
  }
  for (const auto& e : report->write_errors) report_error("--stderr-dir: " + e);
  auto over = finished(store, id);
  if (over && !*over) {
    auto p = store.progress(id);
    report_error(fmt::format("stopped with {} of {} matches played; continue with: arbiter "
                             "tournament resume {}{}",
                             p ? p->done : 0, p ? p->planned : 0, id, store_flag(a.store)));
    return kFailed;
  }
  const int rc = report_results(store, id, a);
  if (rc != 0) return rc;  // damaged rows included: report_results said which
  // Matches that could not be played are a failure of the run, though the rest stands.
  auto results = store.results(id);
  if (!results) {
    report_error(results.error().message);
    return kFailed;
  }
  const auto unplayed = std::count_if(results->begin(), results->end(), [](const StoredResult& r) {
    return r.result.contains("error");
  });
  if (spec->sprt) {
    // The SPRT's answer is the exit code: 0 for H1, 1 for H0 or no answer within --rounds.
    // Matches that could not be played voided their pairs; they are reported all the same.
    if (unplayed > 0)
      report_error(fmt::format("{} match(es) could not be played (their pairs were left out of "
                               "the test); see arbiter tournament results {} --matches{}",
                               unplayed, id, store_flag(a.store)));
    const auto duel = head_to_head(*spec, *results);
    const bool h1 = duel && duel->sprt && duel->sprt->verdict == SprtVerdict::h1;
    return h1 && report->write_errors.empty() ? 0 : kFailed;
  }
  if (unplayed > 0) {
    report_error(fmt::format("{} match(es) could not be played; see arbiter tournament results {} "
                             "--matches{}",
                             unplayed, id, store_flag(a.store)));
    return kFailed;
  }
  return report->write_errors.empty() ? 0 : kFailed;
}

}  // namespace

void add_tournament_commands(CLI::App& app, int& exit_code) {
  auto* t = app.add_subcommand("tournament", "Run tournaments: schedules, ratings, a result store");
  t->require_subcommand(1);
  t->footer(
      "The store keeps every tournament, its match jobs and results with their game logs:\n"
      "  --store sqlite:FILE (default sqlite:arbiter.db) or --store postgresql://USER@HOST/DB.\n"
      "Examples:\n"
      "  arbiter tournament run -g q -p a:dag -p b:ldasg -p c:dag+cheat=no-fit --rounds 10\n"
      "  arbiter tournament run -f league.toml --workers 2 --csv standings.csv\n"
      "  arbiter tournament create -g battleship -p d:density -p h:hunt --rounds 500 --store URL\n"
      "  arbiter tournament run -g battleship -p new:density -p old:hunt --rounds 500 --sprt 0 50\n"
      "  arbiter worker --store URL            # on any number of machines\n"
      "  arbiter tournament status --store URL\n"
      "  arbiter tournament results 1 --matches\n"
      "  arbiter tournament results 1 --crosstable\n"
      "  arbiter tournament log 1 17 > m.jsonl && arbiter replay m.jsonl\n"
      "  arbiter tournament verify 1           # replay every stored log, check every result\n"
      "Rows are checked whenever they are read: a damaged result or log is reported as\n"
      "\"damaged: tournament T match N: WHY\" on stderr and the command exits 3.");
  auto spec_args = std::make_shared<SpecArgs>();
  auto run_args = std::make_shared<RunArgs>();

  auto add_store = [&](CLI::App* cmd) {
    cmd->add_option("--store", run_args->store,
                    "Where results live: sqlite:FILE (default sqlite:arbiter.db) or "
                    "postgresql://...");
  };
  auto add_worker_options = [&](CLI::App* cmd) {
    cmd->add_option("--workers,-w", run_args->workers,
                    "Matches played at once in this process (default: one per core)")
        ->check(CLI::Range(1, 256));
    cmd->add_option("--batch", run_args->batch, "Matches each worker claims at a time (default 2)")
        ->check(CLI::Range(1, 1000));
    cmd->add_option("--lease", run_args->lease,
                    "Seconds a claim lasts without renewal, 1 to 3600; a dead worker's matches "
                    "are played again after it (default 30)")
        ->check(seconds_validator(1, 3600));
    cmd->add_option("--match-limit", run_args->match_limit,
                    "Seconds a match may run before it is abandoned and stored as "
                    "match-time-limit (default: 200 calls per seat at the per-call limit, at "
                    "least 300)")
        ->check(seconds_validator(1, 7 * 24 * 3600));
    cmd->add_flag("--no-live", run_args->no_live,
                  "Write no spectator lines of running matches to the store (by default every "
                  "250 ms, so that any arbiter serve of the store shows them live)");
  };
  auto add_stderr_dir = [&](CLI::App* cmd) {
    cmd->add_option("--stderr-dir", run_args->stderr_dir,
                    "Also keep each cmd player's stderr (first MiB) in DIR/tT-mN-NAME.stderr "
                    "(the last 8 KiB are always stored with the match)");
  };
  auto add_remote = [&](CLI::App* cmd) {
    cmd->add_option("--listen", run_args->listen,
                    "HOST:PORT where tcp entrants (-p NAME:tcp) connect, one connection per "
                    "match: send the entrant's token as a JSON string line, then play");
    cmd->add_option("--accept-timeout", run_args->accept_timeout,
                    "Seconds a match waits for its tcp entrants; one that does not come is "
                    "ejected (hang-up) and the match goes on (default 30)")
        ->check(seconds_validator(0.1, 3600));
    cmd->add_option("--tokens", run_args->tokens_file,
                    "The tcp entrants' tokens as JSON {name: token}: read from FILE if it exists, "
                    "else made and written there (mode 0600); without it they are printed");
  };
  auto add_serve = [&](CLI::App* cmd) {
    cmd->add_option("--serve", run_args->serve,
                    "Serve the viewer at HOST:PORT while playing (e.g. 127.0.0.1:8080; port 0: "
                    "any free one): standings as they grow and every match live");
    cmd->add_option("--linger", run_args->linger,
                    "With --serve: seconds the viewer stays up after the last match (default 0; "
                    "Ctrl-C ends it sooner)")
        ->check(seconds_validator(0, 86400));
  };
  auto add_exports = [&](CLI::App* cmd) {
    cmd->add_option("--csv", run_args->csv, "Write the standings as CSV to this file");
    cmd->add_option("--json", run_args->json, "Write the standings as JSON to this file");
    cmd->add_option("--matches-csv", run_args->matches_csv,
                    "Write one CSV line per match (pair, seed, seating, result, reproduce "
                    "command)");
    cmd->add_option("--crosstable-csv", run_args->crosstable_csv,
                    "Write each entrant's points and games against each other one as CSV");
  };

  auto* run = t->add_subcommand("run", "Create a tournament and play it here, with a progress bar");
  add_spec_options(run, *spec_args);
  add_store(run);
  add_worker_options(run);
  add_stderr_dir(run);
  add_serve(run);
  add_remote(run);
  add_exports(run);
  run->add_flag("--quiet,-q", run_args->quiet, "No progress display");
  run->callback([&exit_code, spec_args, run_args] {
    auto made = create_from_args(*spec_args, *run_args, exit_code, /*plays_here=*/true);
    if (!made) return;
    const TournamentSpec& spec = made->spec;
    const std::int64_t id = made->id;
    if (!run_args->quiet)
      std::cerr << fmt::format("arbiter: tournament {} in {}: {} matches of {} ({}), seed {}",
                               id, run_args->store, planned_matches(spec), spec.game,
                               schedule_name(spec.schedule), spec.seed)
                << std::endl;
    exit_code = play_tournament(*made->store, id, *run_args);
  });

  auto* create = t->add_subcommand(
      "create", "Store a tournament's matches for workers to play (arbiter worker), print its id");
  add_spec_options(create, *spec_args);
  add_store(create);
  create->callback([&exit_code, spec_args, run_args] {
    auto made = create_from_args(*spec_args, *run_args, exit_code, /*plays_here=*/false);
    if (!made) return;
    const TournamentSpec& spec = made->spec;
    const std::int64_t id = made->id;
    std::cout << id << std::endl;
    std::cerr << fmt::format("arbiter: tournament {}: {} matches; start workers with: arbiter "
                             "worker --store {}",
                             id, planned_matches(spec), run_args->store)
              << std::endl;
  });

  auto* resume = t->add_subcommand(
      "resume", "Play the matches a tournament still lacks (after a crash or an interrupt)");
  resume->add_option("id", run_args->tournament, "The tournament's id")->required()
      ->check(id_validator());
  add_store(resume);
  add_worker_options(resume);
  add_stderr_dir(resume);
  add_serve(resume);
  add_remote(resume);
  add_exports(resume);
  resume->add_flag("--quiet,-q", run_args->quiet, "No progress display");
  resume->callback([&exit_code, run_args] {
    if (!outputs_ok(*run_args, exit_code)) return;
    auto store = open_or_report(run_args->store, OpenMode::existing, exit_code);
    if (!store) return;
    if (!playable_here(*store, run_args->tournament, *run_args, exit_code)) return;
    exit_code = play_tournament(*store, run_args->tournament, *run_args);
  });

  auto* status = t->add_subcommand("status", "Progress of one tournament, or of all in the store");
  status->add_option("id", run_args->tournament, "The tournament's id (default: all)")
      ->check(id_validator());
  add_store(status);
  status->callback([&exit_code, run_args] {
    auto store = open_or_report(run_args->store, OpenMode::existing, exit_code);
    if (!store) return;
    auto all = store->tournaments();
    if (!all) {
      report_error(all.error().message);
      exit_code = kFailed;
      return;
    }
    bool any = false;
    for (const auto& rec : *all) {
      if (run_args->tournament != 0 && rec.id != run_args->tournament) continue;
      any = true;
      auto p = store->progress(rec.id);
      if (!p) {
        report_error(p.error().message);
        exit_code = kFailed;
        return;
      }
      fmt::print("{:>4}  {:<20} {:<14} {:>15} done  {:>4} playing  {}{}  created {}\n",
                 rec.id, rec.name, rec.game, fmt::format("{}/{}", p->done, p->planned), p->leased,
                 p->concluded ? "concluded" : p->done >= p->planned ? "finished" : "open",
                 p->duplicates > 0 ? fmt::format(" ({} duplicate results ignored)", p->duplicates)
                                   : "",
                 rec.created);
    }
    if (!any && run_args->tournament != 0) {
      report_error(fmt::format("no tournament {} in {}", run_args->tournament, run_args->store));
      exit_code = kBadInput;
    } else if (!any) {
      fmt::print("no tournaments in {}\n", run_args->store);
    }
  });

  auto* results = t->add_subcommand("results", "Standings and ratings of a tournament so far");
  results->add_option("id", run_args->tournament, "The tournament's id")->required()
      ->check(id_validator());
  add_store(results);
  add_exports(results);
  results->add_flag("--matches", run_args->matches,
                    "Print one CSV line per match instead (with its reproduce command)");
  results->add_flag("--print-json", run_args->print_json,
                    "Print the standings as JSON (with --crosstable: the crosstable)");
  results->add_flag("--crosstable", run_args->crosstable,
                    "Print each entrant's points/games against each other one instead");
  results->callback([&exit_code, run_args] {
    if (!outputs_ok(*run_args, exit_code)) return;
    auto store = open_or_report(run_args->store, OpenMode::existing, exit_code);
    if (!store) return;
    exit_code = report_results(*store, run_args->tournament, *run_args);
  });

  auto log_index = std::make_shared<std::int64_t>(0);
  auto* log = t->add_subcommand(
      "log", "Print the game log of one match (for arbiter replay); a damaged one is not printed");
  log->add_option("id", run_args->tournament, "The tournament's id")->required()
      ->check(id_validator());
  log->add_option("match", *log_index, "The match's index (see results --matches)")->required()
      ->check(id_validator(0));
  log->add_flag("--stderr", run_args->show_stderr,
                "Print what the match's programs wrote on stderr (the last 8 KiB of each) "
                "instead of the game log");
  add_store(log);
  log->callback([&exit_code, run_args, log_index] {
    auto store = open_or_report(run_args->store, OpenMode::existing, exit_code);
    if (!store) return;
    auto results = store->results(run_args->tournament);
    if (!results) {
      report_error(results.error().message);
      exit_code = kFailed;
      return;
    }
    auto damaged = [&](const std::string& why) {
      report_error(fmt::format("damaged: tournament {} match {}: {}", run_args->tournament,
                               *log_index, why));
      exit_code = kDamaged;
    };
    for (const auto& r : *results) {
      if (r.index != *log_index) continue;
      if (!r.damage.empty()) return damaged(r.damage);
      if (run_args->show_stderr) {
        auto tails = store->stderr_tails(r.job);
        if (!tails) {
          report_error(tails.error().message);
          exit_code = kFailed;
          return;
        }
        if (!tails->has_value()) break;
        print_stderr_tails(**tails);
        return;
      }
      auto text = store->log(r.job);
      if (!text) {
        report_error(text.error().message);
        exit_code = kFailed;
        return;
      }
      if (!text->has_value()) break;
      if (!(*text)->damage.empty()) return damaged((*text)->damage);
      if (!(*text)->checksummed)
        report_error(fmt::format("unverified: match {}'s log was stored without a checksum",
                                 *log_index));
      std::cout << (*text)->text;
      return;
    }
    report_error(fmt::format("tournament {} has no result for match {}", run_args->tournament,
                             *log_index));
    exit_code = kBadInput;
  });

  auto* verify = t->add_subcommand(
      "verify",
      "Audit a tournament's store: replay every stored log and check it gives the stored result");
  verify->add_option("id", run_args->tournament, "The tournament's id")->required()
      ->check(id_validator());
  add_store(verify);
  verify->footer(
      "Checks each result row against its job and the schedule (seats, seed), each log against\n"
      "its SHA-256 checksum, its match header and the stored result, then replays the log.\n"
      "Prints one line per damaged match and a summary. Exit 0: clean; 3: damage found; 1: the\n"
      "store failed; 2: no such store or tournament. Logs stored before checksums count as\n"
      "unverified, not damaged.");
  verify->callback([&exit_code, run_args] {
    auto store = open_or_report(run_args->store, OpenMode::existing, exit_code);
    if (!store) return;
    const std::int64_t id = run_args->tournament;
    auto spec = load_spec(*store, id);
    if (!spec) {
      report_error(spec.error().message);
      exit_code = kBadInput;
      return;
    }
    auto report = audit_tournament(*store, id, *spec);
    auto progress = store->progress(id);
    if (!report || !progress) {
      report_error((!report ? report.error() : progress.error()).message);
      exit_code = kFailed;
      return;
    }
    for (const AuditProblem& p : report->damaged)
      fmt::print("damaged match {}: {}\n", p.index, printable_line(p.what));
    fmt::print("tournament {}: {} results of {} planned matches: {} replayed identically, {} "
               "could not be played, {} damaged, {} unverified (stored without a checksum)\n",
               id, report->results, progress->planned, report->replayed, report->errors,
               report->damaged.size(), report->unverified);
    if (!report->damaged.empty()) exit_code = kDamaged;
  });

  auto* worker = app.add_subcommand(
      "worker", "Claim and play matches of the tournaments in a store until stopped");
  add_store(worker);
  add_worker_options(worker);
  worker->add_option("--tournament", run_args->tournament, "Only this tournament")
      ->check(id_validator());
  worker->add_flag("--until-finished", run_args->until_finished,
                   "Exit once every tournament in the store (or --tournament) is finished");
  add_stderr_dir(worker);
  worker->callback([&exit_code, run_args] {
    catch_stop_signals();
    if (!outputs_ok(*run_args, exit_code)) return;
    auto store = open_or_report(run_args->store, OpenMode::existing, exit_code);
    if (!store) return;
    if (run_args->tournament != 0 &&
        !playable_here(*store, run_args->tournament, *run_args, exit_code))
      return;
    WorkerOptions options = worker_options(*run_args);
    options.only = run_args->tournament;
    options.until_finished = run_args->until_finished;
    std::cerr << fmt::format("arbiter: worker {} on {}", options.id, run_args->store) << std::endl;
    auto report = run_worker(*store, options);
    if (!report) {
      report_error(report.error().message);
      exit_code = kFailed;
      return;
    }
    fmt::print("worker {}: played {} matches, {} results stored, {} duplicates ignored, {} "
               "errors\n",
               options.id, report->played, report->stored, report->duplicates, report->errors);
    for (const auto& e : report->write_errors) report_error("--stderr-dir: " + e);
    if (!report->write_errors.empty()) exit_code = kFailed;
  });
}

}  // namespace arbiter::cli
