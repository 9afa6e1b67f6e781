// `arbiter tournament run|create|resume` and `arbiter worker`: tournaments made from flags or a
// file, kept in a result store (SQLite by default, PostgreSQL to spread the matches over
// machines), and played (status, results, log and verify: apps/tournament_reports.cpp).
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
#include "apps/progress_display.h"
#include "apps/tournament_cli.h"
#include "arena/registry.h"
#include "arena/seating.h"
#include "core/file.h"
#include "league/bots.h"
#include "league/ladder.h"
#include "remote/cgroup.h"
#include "remote/tcp.h"
#include "tournament/audit.h"
#include "tournament/head_to_head.h"
#include "tournament/schedule.h"
#include "tournament/standings.h"
#include "tournament/worker.h"

namespace arbiter::cli {

using namespace arbiter::tournament;

namespace {
std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }
}  // namespace

const std::atomic<bool>& stop_flag() {
  return g_stop;
}

void catch_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

namespace {

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
  cmd->add_option("--per-call", a.per_call, kPerCallHelp)->check(per_call_validator());
  cmd->add_option("--hero", a.hero, "Gauntlet: the entrant who plays every match (default: the first)");
  cmd->add_option("--name", a.name, "The tournament's name (default: tournament)");
  cmd->add_option("--clock", a.clock,
                  "A chess clock per seat, BANK+INCREMENT[/GRACE][~DELAY], e.g. 10s+0.1s (q, "
                  "battleship)");
  cmd->add_option("--entrant", a.entrant_settings, kEntrantHelp);
  add_limit_options(cmd, a.limits);
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
  cmd->add_option("--replay-share", a.replay_share,
                  "Untrusted workers (worker-role): the share of their matches played again by "
                  "another worker to check them (default 0.05)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--replay-first", a.replay_first,
                  "Untrusted workers: a new worker's first N results are each played again "
                  "(default 20)")
      ->check(CLI::Range(0, 1'000'000));
  cmd->add_flag("--no-arrival-check", a.no_arrival_check,
                "Untrusted workers: do not replay each stored log on arrival (workers check)");
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
  if (!a.per_call.empty()) {
    auto limit = parse_per_call(a.per_call);
    if (!limit) return fail("--" + limit.error().message);
    spec.per_call_ms = limit->ms;
    spec.per_call_ref = limit->ref;
  }
  if (!a.hero.empty()) spec.hero = a.hero;
  if (!a.name.empty()) spec.name = a.name;
  if (!a.clock.empty()) {
    auto tc = parse_time_control(a.clock);
    if (!tc) return std::unexpected(tc.error());
    spec.clock = *tc;
  }
  if (auto ok = apply_limit_options(a.limits, spec.limit_by, spec.backstop, spec.load_check); !ok)
    return std::unexpected(ok.error());
  if (a.no_pairing) spec.pairing = false;
  if (a.replay_share) spec.checks.replay_share = *a.replay_share;
  if (a.replay_first) spec.checks.replay_first = *a.replay_first;
  if (a.no_arrival_check) spec.checks.on_arrival = false;
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
  if (auto ok = league::pin_entrants(*store, *spec); !ok) {
    report_error(ok.error().message);
    exit_code = kBadInput;
    return std::nullopt;
  }
  auto id = create_tournament(*store, *spec);
  if (!id) {
    report_error(id.error().message);
    exit_code = kFailed;
    return std::nullopt;
  }
  return Created{std::move(store), std::move(*spec), *id};
}

}  // namespace

std::filesystem::path bot_cache(const RunArgs& a) {
  return a.bot_cache.empty() ? league::default_bot_cache() : std::filesystem::path(a.bot_cache);
}

// The worker settings every command that plays matches takes from its flags.
namespace {

// The pool of CPUs --pin [--cpus LIST] gives the worker.
Expected<std::shared_ptr<CpuPool>> pin_pool(const RunArgs& a) {
  if (!a.pin) {
    if (!a.pin_cpus.empty()) return fail("--cpus: only with --pin (the CPUs to pin seats to)");
    return nullptr;
  }
  if (auto ok = ProgramCgroup::pin_available(); !ok)
    return fail("--pin: this machine cannot pin programs to CPUs: " + ok.error().message);
  const std::vector<int> allowed = allowed_cpus();
  std::vector<int> cpus = allowed;
  if (!a.pin_cpus.empty()) {
    auto listed = parse_cpu_list(a.pin_cpus);
    if (!listed) return std::unexpected(listed.error());
    for (int cpu : *listed)
      if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end())
        return fail(fmt::format("--cpus: CPU {} is not one this process may run on ({})", cpu,
                                format_cpu_list(allowed)));
    cpus = *listed;
  }
  if (cpus.empty()) return fail("--pin: this process may run on no CPU it can name");
  return std::make_shared<CpuPool>(std::move(cpus));
}

}  // namespace

Expected<WorkerOptions> worker_options(const RunArgs& a) {
  WorkerOptions options;
  auto pin = pin_pool(a);
  if (!pin) return std::unexpected(pin.error());
  options.pin = std::move(*pin);
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

void add_worker_options_to(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("--workers,-w", a.workers,
                  "Matches played at once in this process (default: one per core)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--batch", a.batch, "Matches each worker claims at a time (default 2)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--lease", a.lease,
                  "Seconds a claim lasts without renewal, 1 to 3600; a dead worker's matches "
                  "are played again after it (default 30)")
      ->check(seconds_validator(1, 3600));
  cmd->add_option("--match-limit", a.match_limit,
                  "Seconds a match may run before it is abandoned and stored as "
                  "match-time-limit (default: 200 calls per seat at the per-call limit, at "
                  "least 300)")
      ->check(seconds_validator(1, 7 * 24 * 3600));
  cmd->add_option("--bot-cache", a.bot_cache,
                  "Where stored bots' files are unpacked, each checked against its hash "
                  "(default ~/.cache/arbiter/bots)");
  cmd->add_flag("--pin", a.pin,
                "Pin each program seat to a CPU of its own (a cpuset cgroup): a match waits for "
                "free CPUs rather than share them (turn-based matches take one, their seats "
                "taking turns); in-process house bots are not pinned");
  // tournament run has --cpus already (the programs' CPU quota), which --pin makes the list.
  if (cmd->get_option_no_throw("--cpus") == nullptr)
    cmd->add_option("--cpus", a.pin_cpus,
                    "With --pin: the CPUs to pin to, e.g. 0,1 or 0-3 (default: every CPU this "
                    "process may run on)");
  cmd->add_flag("--no-live", a.no_live,
                "Write no spectator lines of running matches to the store (by default every "
                "250 ms, so that any arbiter serve of the store shows them live)");
}

namespace {

// The viewer of a run (--serve): the store's standings, and every match live as it is played;
// a finished match's whole log waits for the other matches dealt from its seed.
Expected<void> serve_live(LiveViewer& viewer, Store& store, std::int64_t id, const RunArgs& a,
                          WorkerOptions& options) {
  if (auto ok = viewer.start(a.serve, &store); !ok) return ok;
  options.watch = [&live = viewer.live(), &store](const TournamentSpec& spec, const Job& job) {
    auto reveal = [&store, spec, job] {
      auto results = store.results(job.tournament);
      return results && SeedGroups(spec, *results).over(job.spec);
    };
    return std::make_unique<server::LiveObserver>(live.start(spec.game, std::move(reveal)));
  };
  std::cerr << fmt::format(
                   "arbiter: watch it live at {} (its matches as they are played) and "
                   "{}tournament.html?id={} (its standings as they grow)",
                   viewer.url(), viewer.url(), id)
            << std::endl;
  return {};
}

// The exit code of a run once its worker is done: it stopped early (1, saying how to resume),
// the results (damage: 3), the SPRT's answer (0 for H1), matches that could not be played (1).
int run_outcome(Store& store, std::int64_t id, const TournamentSpec& spec,
                const WorkerReport& report, const RunArgs& a) {
  auto over = finished(store, id);
  if (over && !*over) {
    auto p = store.progress(id);
    report_error(
        fmt::format("stopped with {} of {} matches played; continue with: arbiter "
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
  if (spec.sprt) {
    // The SPRT's answer is the exit code: 0 for H1, 1 for H0 or no answer within --rounds.
    // Matches that could not be played voided their pairs; they are reported all the same.
    if (unplayed > 0)
      report_error(
          fmt::format("{} match(es) could not be played (their pairs were left out of "
                      "the test); see arbiter tournament results {} --matches{}",
                      unplayed, id, store_flag(a.store)));
    const auto duel = head_to_head(spec, *results);
    const bool h1 = duel && duel->sprt && duel->sprt->verdict == SprtVerdict::h1;
    return h1 && report.write_errors.empty() ? 0 : kFailed;
  }
  if (unplayed > 0) {
    report_error(
        fmt::format("{} match(es) could not be played; see arbiter tournament results {} "
                    "--matches{}",
                    unplayed, id, store_flag(a.store)));
    return kFailed;
  }
  return report.write_errors.empty() ? 0 : kFailed;
}

}  // namespace

int play_tournament(Store& store, std::int64_t id, const RunArgs& a) {
  catch_stop_signals();
  if (auto released = release_dead_local_workers(store, id); released && *released > 0)
    std::cerr << fmt::format("arbiter: took back {} match(es) from a worker that died",
                             *released)
              << std::endl;
  auto made = worker_options(a);
  if (!made) {
    report_error(made.error().message);
    return kBadInput;
  }
  WorkerOptions options = std::move(*made);
  options.only = id;
  league::StoreShelf shelf(store, bot_cache(a));
  options.shelf = &shelf;
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
    if (auto ok = serve_live(*viewer, store, id, a, options); !ok) {
      report_error(ok.error().message);
      return kBadInput;
    }
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
  if (options.pin)
    std::cerr << (report->pinned_at_once == 0
                      ? std::string("arbiter: --pin: no match seated a program to pin")
                      : fmt::format("arbiter: pinned to CPUs {}: at most {} match(es) at once",
                                    format_cpu_list(options.pin->cpus()), report->pinned_at_once))
              << std::endl;
  return run_outcome(store, id, *spec, *report, a);
}

namespace {

void add_stderr_option(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("--stderr-dir", a.stderr_dir,
                  "Also keep each cmd player's stderr (first MiB) in DIR/tT-mN-NAME.stderr "
                  "(the last 8 KiB are always stored with the match)");
}

void add_remote_options(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("--listen", a.listen,
                  "HOST:PORT where tcp entrants (-p NAME:tcp) connect, one connection per "
                  "match: send the entrant's token as a JSON string line, then play");
  cmd->add_option("--accept-timeout", a.accept_timeout,
                  "Seconds a match waits for its tcp entrants; one that does not come is "
                  "ejected (hang-up) and the match goes on (default 30)")
      ->check(seconds_validator(0.1, 3600));
  cmd->add_option("--tokens", a.tokens_file,
                  "The tcp entrants' tokens as JSON {name: token}: read from FILE if it exists, "
                  "else made and written there (mode 0600); without it they are printed");
}

void add_serve_options(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("--serve", a.serve,
                  "Serve the viewer at HOST:PORT while playing (e.g. 127.0.0.1:8080; port 0: "
                  "any free one): standings as they grow and every match live");
  cmd->add_option("--linger", a.linger,
                  "With --serve: seconds the viewer stays up after the last match (default 0; "
                  "Ctrl-C ends it sooner)")
      ->check(seconds_validator(0, 86400));
}

void add_run(CLI::App* t, const std::shared_ptr<SpecArgs>& spec_args,
             const std::shared_ptr<RunArgs>& run_args, int& exit_code) {
  auto* run = t->add_subcommand("run", "Create a tournament and play it here, with a progress bar");
  add_spec_options(run, *spec_args);
  add_store_option(run, *run_args);
  add_worker_options_to(run, *run_args);
  add_stderr_option(run, *run_args);
  add_serve_options(run, *run_args);
  add_remote_options(run, *run_args);
  add_export_options(run, *run_args);
  run->add_flag("--quiet,-q", run_args->quiet, "No progress display");
  run->callback([&exit_code, spec_args, run_args] {
    // With --pin, --cpus names the CPUs to pin to (a pinned seat has its CPU to itself).
    if (run_args->pin) std::swap(run_args->pin_cpus, spec_args->program.cpus);
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
}

void add_create(CLI::App* t, const std::shared_ptr<SpecArgs>& spec_args,
                const std::shared_ptr<RunArgs>& run_args, int& exit_code) {
  auto* create = t->add_subcommand(
      "create", "Store a tournament's matches for workers to play (arbiter worker), print its id");
  add_spec_options(create, *spec_args);
  add_store_option(create, *run_args);
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
}

void add_resume(CLI::App* t, const std::shared_ptr<RunArgs>& run_args, int& exit_code) {
  auto* resume = t->add_subcommand(
      "resume", "Play the matches a tournament still lacks (after a crash or an interrupt)");
  resume->add_option("id", run_args->tournament, "The tournament's id")->required()
      ->check(id_validator());
  add_store_option(resume, *run_args);
  add_worker_options_to(resume, *run_args);
  add_stderr_option(resume, *run_args);
  add_serve_options(resume, *run_args);
  add_remote_options(resume, *run_args);
  add_export_options(resume, *run_args);
  resume->add_flag("--quiet,-q", run_args->quiet, "No progress display");
  resume->callback([&exit_code, run_args] {
    if (!outputs_ok(*run_args, exit_code)) return;
    auto store = open_or_report(run_args->store, OpenMode::existing, exit_code);
    if (!store) return;
    if (!playable_here(*store, run_args->tournament, *run_args, exit_code)) return;
    exit_code = play_tournament(*store, run_args->tournament, *run_args);
  });
}

void add_worker(CLI::App& app, const std::shared_ptr<RunArgs>& run_args, int& exit_code) {
  auto* worker = app.add_subcommand(
      "worker", "Claim and play matches of the tournaments in a store until stopped");
  add_store_option(worker, *run_args);
  add_worker_options_to(worker, *run_args);
  worker->add_option("--tournament", run_args->tournament, "Only this tournament")
      ->check(id_validator());
  auto ladder = std::make_shared<std::string>();
  worker->add_option("--ladder", *ladder,
                     "Only this ladder's matches (by name), waiting for more until stopped");
  worker->add_flag("--until-finished", run_args->until_finished,
                   "Exit once every tournament in the store (or --tournament) is finished");
  add_stderr_option(worker, *run_args);
  worker->callback([&exit_code, run_args, ladder] {
    catch_stop_signals();
    if (!outputs_ok(*run_args, exit_code)) return;
    auto store = open_or_report(run_args->store, OpenMode::existing, exit_code);
    if (!store) return;
    if (!ladder->empty() && store->worker_only()) {
      report_error(
          "--ladder: a worker role cannot look ladders up by name; give --tournament "
          "ID (arbiter ladder status shows it)");
      exit_code = kBadInput;
      return;
    }
    if (!ladder->empty()) {
      if (run_args->tournament != 0 || run_args->until_finished) {
        report_error(
            "--ladder goes without --tournament and --until-finished (a ladder is "
            "never finished)");
        exit_code = kBadInput;
        return;
      }
      auto found = league::find_ladder(*store, *ladder);
      if (!found) {
        report_error(found.error().message);
        exit_code = kBadInput;
        return;
      }
      run_args->tournament = found->id;
    }
    // A worker's role reads a tournament's spec only while it holds one of its jobs.
    if (run_args->tournament != 0 && !store->worker_only() &&
        !playable_here(*store, run_args->tournament, *run_args, exit_code))
      return;
    auto made = worker_options(*run_args);
    if (!made) {
      report_error(made.error().message);
      exit_code = kBadInput;
      return;
    }
    WorkerOptions options = std::move(*made);
    options.only = run_args->tournament;
    league::StoreShelf shelf(*store, bot_cache(*run_args));
    options.shelf = &shelf;
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
    if (options.pin)
      fmt::print("pinned to CPUs {}: at most {} match(es) at once\n",
                 format_cpu_list(options.pin->cpus()), report->pinned_at_once);
    if (!report->claim_ms.empty())
      fmt::print("claims: {}, latency p50 {:.2f} ms, p99 {:.2f} ms\n", report->claim_ms.size(),
                 quantile(report->claim_ms, 0.5), quantile(report->claim_ms, 0.99));
    for (const auto& e : report->write_errors) report_error("--stderr-dir: " + e);
    if (!report->write_errors.empty()) exit_code = kFailed;
  });
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
  add_run(t, spec_args, run_args, exit_code);
  add_create(t, spec_args, run_args, exit_code);
  add_resume(t, run_args, exit_code);
  add_report_commands(t, run_args, exit_code);
  add_worker(app, run_args, exit_code);
}

}  // namespace arbiter::cli
