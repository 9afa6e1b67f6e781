// `arbiter ladder ...`: continuous rated play among the active versions of a game's stored bots
// (league/ladder.h): create, run, status, pause, resume, verify.
#include <iostream>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "apps/commands.h"
#include "apps/tournament_cli.h"
#include "core/time_control.h"
#include "league/bots.h"
#include "league/ladder.h"
#include "tournament/schedule.h"
#include "tournament/worker.h"

namespace arbiter::cli {
namespace {

using tournament::OpenMode;
using tournament::Store;

struct LadderArgs {
  RunArgs run;  // the store, the worker flags
  std::string name;
  std::string game;
  std::string seats = "2";
  std::string config;
  std::vector<std::string> anchors;
  std::string per_call;  // empty: not given
  std::string clock;
  LimitOptions limits;
  std::int64_t placement = 10;
  std::string seed;
  tournament::ResultChecks checks;  // of untrusted workers' results
  bool no_arrival_check = false;
  std::int64_t queue = 0;
  std::int64_t until_rated = 0;
  bool json = false;
  std::string entrant;
  league::FinalsTerms finals;
  bool no_anchors = false;
};

Expected<tournament::TournamentSpec> ladder_spec_of(const LadderArgs& a) {
  auto spec = tournament::new_tournament_spec();
  spec.name = a.name;
  spec.game = a.game;
  spec.schedule = tournament::Schedule::ladder;
  auto seats = league::parse_seat_range(a.seats);
  if (!seats) return fail("--seats " + seats.error().message);
  spec.seats = seats->first;
  spec.ladder = tournament::Ladder{seats->second, {}, a.placement, league::encode_skill_params({})};
  for (const auto& text : a.anchors) {
    auto entrant = tournament::parse_entrant(text);
    if (!entrant) return fail("--anchor: " + entrant.error().message);
    if (is_stored_bot(entrant->bot))
      return fail(
          fmt::format("--anchor {}: stored bots join by themselves once active; an "
                      "anchor is a house bot or a cmd: program",
                      escape_controls(text)));
    spec.players.push_back(*entrant);
  }
  if (!a.seed.empty()) spec.seed = std::stoull(a.seed);  // checked by natural_validator
  if (!a.config.empty()) {
    auto config = parse_json(a.config);
    if (!config) return fail("--config: " + config.error().message);
    if (!config->is_object()) return fail("--config: expected a JSON object");
    spec.config = *config;
  }
  if (!a.per_call.empty()) {
    auto limit = tournament::parse_per_call(a.per_call);
    if (!limit) return fail("--" + limit.error().message);
    spec.per_call_ms = limit->ms;
    spec.per_call_ref = limit->ref;
  }
  if (!a.clock.empty()) {
    auto tc = parse_time_control(a.clock);
    if (!tc) return std::unexpected(tc.error());
    spec.clock = *tc;
  }
  if (auto ok = apply_limit_options(a.limits, spec.limit_by, spec.backstop, spec.load_check); !ok)
    return std::unexpected(ok.error());
  return spec;
}

// The store and the ladder named in `a`, or null after reporting why not.
std::unique_ptr<Store> open_ladder(const LadderArgs& a, std::int64_t& id, int& exit_code) {
  auto store = open_or_report(a.run.store, OpenMode::existing, exit_code);
  if (!store) return nullptr;
  auto ladder = league::find_ladder(*store, a.name);
  if (!ladder) {
    report_error(ladder.error().message);
    exit_code = kBadInput;
    return nullptr;
  }
  id = ladder->id;
  return store;
}

void add_ladder_create(CLI::App* l, const std::shared_ptr<LadderArgs>& a, int& exit_code) {
  auto* create = l->add_subcommand("create", "Store a new ladder of one game");
  create->add_option("name", a->name, "The ladder's name (letters, digits, '_' and '-')")
      ->required();
  create->add_option("--game,-g", a->game, "The game its bots play")->required();
  create->add_option("--seats", a->seats,
                     "Players per match: K, or a range K-M drawn per match (default 2)");
  create->add_option("--anchor", a->anchors,
                     "NAME:BOT, a house bot (or cmd: program) that always plays, as a fixed "
                     "point of the ratings; repeatable");
  create->add_option("--config", a->config, "The game's config overrides (JSON object)");
  create->add_option("--per-call", a->per_call, kPerCallHelp)->check(per_call_validator());
  create->add_option("--clock", a->clock, "A chess clock per seat, e.g. 10s+0.1s");
  add_limit_options(create, a->limits);
  create
      ->add_option("--placement", a->placement,
                   "A new version's first games, played with priority (default 10)")
      ->check(CLI::Range(0, 1000));
  create
      ->add_option("--seed", a->seed,
                   "Master seed (default: drawn, unguessable; stored, shown once frozen)")
      ->check(natural_validator());
  add_store_option(create, a->run);
  create
      ->add_option("--replay-share", a->checks.replay_share,
                   "Untrusted workers (worker-role): the share of their matches played again "
                   "by another worker (default 0.05)")
      ->check(CLI::Range(0.0, 1.0));
  create
      ->add_option("--replay-first", a->checks.replay_first,
                   "Untrusted workers: a new worker's first N results each played again "
                   "(default 20)")
      ->check(CLI::Range(0, 1'000'000));
  create->add_flag("--no-arrival-check", a->no_arrival_check,
                   "Untrusted workers: do not replay each stored log on arrival");
  create->callback([a, &exit_code] {
    auto spec = ladder_spec_of(*a);
    if (!spec) {
      report_error(spec.error().message);
      exit_code = kBadInput;
      return;
    }
    spec->checks = a->checks;
    if (a->no_arrival_check) spec->checks.on_arrival = false;
    auto store = open_or_report(a->run.store, OpenMode::create, exit_code);
    if (!store) return;
    auto id = league::create_ladder(*store, *spec);
    if (!id) {
      report_error(id.error().message);
      exit_code = kBadInput;
      return;
    }
    auto joined = league::enroll(*store, *id);
    if (!joined) {
      report_error(joined.error().message);
      exit_code = kFailed;
      return;
    }
    fmt::print(
        "ladder {} ({}): {} anchors, {} stored versions; play it with: arbiter ladder run "
        "{}{}\n",
        spec->name, spec->game, spec->players.size(), joined->joined.size(), spec->name,
        store_flag(a->run.store));
  });
}

void print_board(Store& store, std::int64_t id, bool json, int& exit_code) {
  auto board = league::leaderboard(store, id);
  if (!board) {
    report_error(board.error().message);
    exit_code = kFailed;
    return;
  }
  if (json)
    std::cout << dump(league::leaderboard_json(*board)) << '\n';
  else
    std::cout << league::leaderboard_text(*board);
}

void add_ladder_run(CLI::App* l, const std::shared_ptr<LadderArgs>& a, int& exit_code) {
  auto* run = l->add_subcommand(
      "run", "Play the ladder here until stopped (Ctrl-C): enroll versions, match, rate");
  run->add_option("name", a->name, "The ladder")->required();
  add_store_option(run, a->run);
  add_worker_options_to(run, a->run);
  run->add_option("--queue", a->queue,
                  "Matches kept waiting for workers (default: 4 per local worker, at least 8; "
                  "more when workers on other machines join)")
      ->check(CLI::Range(1, 100000));
  run->add_option("--until-rated", a->until_rated,
                  "Stop once this many of the ladder's matches are rated (default: never)")
      ->check(CLI::Range(1, 5'000'000));
  run->add_flag("--quiet,-q", a->run.quiet, "No progress lines");
  run->callback([a, &exit_code] {
    catch_stop_signals();
    std::int64_t id = 0;
    auto store = open_ladder(*a, id, exit_code);
    if (!store) return;
    if (auto released = tournament::release_dead_local_workers(*store, id);
        released && *released > 0)
      std::cerr << fmt::format("arbiter: took back {} match(es) from a worker that died", *released)
                << std::endl;
    std::atomic<bool> stop{false};
    auto made = worker_options(a->run);
    if (!made) {
      report_error(made.error().message);
      exit_code = kBadInput;
      return;
    }
    tournament::WorkerOptions options = std::move(*made);
    options.only = id;
    options.until_finished = false;
    options.stop = &stop;
    league::StoreShelf shelf(*store, bot_cache(a->run));
    options.shelf = &shelf;
    league::Doorbell bell;  // each stored result wakes the coordinator to rate it and refill
    options.on_result = [&bell](const tournament::Job&, const tournament::JobResult&, bool) {
      bell.ring();
    };
    const int threads = options.threads > 0
                            ? options.threads
                            : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    Expected<tournament::WorkerReport> played = tournament::WorkerReport{};
    std::thread worker([&] {
      played = tournament::run_worker(*store, options);
      stop = true;
    });
    league::CoordinatorOptions co;
    co.queue = a->queue > 0 ? a->queue : std::max(8, 4 * threads);
    co.stop = &stop;
    co.bell = &bell;
    if (!a->run.quiet)
      co.say = [](const std::string& line) { std::cerr << "arbiter: " << line << std::endl; };
    auto last_line = std::chrono::steady_clock::now();
    co.beat = [&] {
      if (stop_flag().load()) stop = true;
      const auto now = std::chrono::steady_clock::now();
      if (a->until_rated == 0 && (a->run.quiet || now - last_line < std::chrono::seconds(10)))
        return;
      auto state = store->ladder_state(id);
      if (state && a->until_rated > 0 && state->rated() >= a->until_rated) stop = true;
      if (!a->run.quiet && now - last_line >= std::chrono::seconds(10) && state) {
        last_line = now;
        std::cerr << fmt::format("arbiter: ladder {}: {} matches rated, {}", a->name,
                                 state->rated(), state->state)
                  << std::endl;
      }
    };
    auto report = league::coordinate(*store, id, co);
    stop = true;
    worker.join();
    if (!report) report_error(report.error().message);
    if (!played) report_error(played.error().message);
    if (auto rated = league::rate_results(*store, id); !rated) report_error(rated.error().message);
    if (!report || !played) {
      exit_code = kFailed;
      return;
    }
    print_board(*store, id, false, exit_code);
    if (tournament::abandoned_matches() > 0) {
      std::cout.flush();
      std::_Exit(exit_code);
    }
  });
}

void add_ladder_status(CLI::App* l, const std::shared_ptr<LadderArgs>& a, int& exit_code) {
  auto* status = l->add_subcommand(
      "status", "The ladder's leaderboard (by mu - 3 sigma), or every ladder without a name");
  status->add_option("name", a->name, "The ladder");
  add_store_option(status, a->run);
  status->add_flag("--json", a->json, "As JSON");
  status->callback([a, &exit_code] {
    if (!a->name.empty()) {
      std::int64_t id = 0;
      auto store = open_ladder(*a, id, exit_code);
      if (store) print_board(*store, id, a->json, exit_code);
      return;
    }
    auto store = open_or_report(a->run.store, OpenMode::existing, exit_code);
    if (!store) return;
    auto all = league::ladders(*store);
    if (!all) {
      report_error(all.error().message);
      exit_code = kFailed;
      return;
    }
    if (all->empty()) fmt::print("no ladders in the store (arbiter ladder create makes one)\n");
    for (const auto& t : *all) {
      auto board = league::leaderboard(*store, t.id);
      if (!board) {
        report_error(board.error().message);
        exit_code = kFailed;
        continue;
      }
      fmt::print("{:<20} {:<12} {:<8} {:>4} entrants {:>8} matches rated\n", t.name, t.game,
                 board->state, board->rows.size(), board->mark);
    }
  });
}

void add_ladder_state_command(CLI::App* l, const std::shared_ptr<LadderArgs>& a, int& exit_code,
                              const char* verb, const char* state, const char* help) {
  auto* cmd = l->add_subcommand(verb, help);
  cmd->add_option("name", a->name, "The ladder")->required();
  add_store_option(cmd, a->run);
  cmd->callback([a, &exit_code, state, verb] {
    std::int64_t id = 0;
    auto store = open_ladder(*a, id, exit_code);
    if (!store) return;
    if (auto ok = store->set_ladder_state(id, state); !ok) {
      report_error(ok.error().message);
      exit_code = kFailed;
      return;
    }
    fmt::print("ladder {}: {}\n", a->name,
               std::string_view(verb) == "pause"
                   ? "paused (matches under way finish; no new ones until resumed)"
                   : "running");
  });
}

void add_ladder_history(CLI::App* l, const std::shared_ptr<LadderArgs>& a, int& exit_code) {
  auto* history =
      l->add_subcommand("history", "One entrant's rating after each of its rated matches");
  history->add_option("name", a->name, "The ladder")->required();
  history
      ->add_option("entrant", a->entrant,
                   "The entrant: its name in the ladder, or its bot (alice@3)")
      ->required();
  add_store_option(history, a->run);
  history->add_flag("--json", a->json, "As JSON lines");
  history->callback([a, &exit_code] {
    std::int64_t id = 0;
    auto store = open_ladder(*a, id, exit_code);
    if (!store) return;
    auto spec = tournament::load_spec(*store, id);
    if (!spec) {
      report_error(spec.error().message);
      exit_code = kFailed;
      return;
    }
    std::optional<std::int64_t> entrant;
    for (std::size_t i = 0; i < spec->players.size(); ++i) {
      const auto& p = spec->players[i];
      if (p.name == a->entrant || p.bot == a->entrant || p.bot == "bot:" + a->entrant)
        entrant = static_cast<std::int64_t>(i);
    }
    if (!entrant) {
      report_error(
          fmt::format("ladder {} has no entrant \"{}\"", a->name, escape_controls(a->entrant)));
      exit_code = kBadInput;
      return;
    }
    auto steps = store->rating_history(id, *entrant);
    if (!steps) {
      report_error(steps.error().message);
      exit_code = kFailed;
      return;
    }
    const double z =
        league::decode_skill_params(spec->ladder->rating).value_or(league::SkillParams{}).z;
    if (!a->json)
      fmt::print("{:>8}  {:>6}  {:>5}  {:>7}  {:>6}  {:>8}\n", "match", "games", "place", "mu",
                 "sigma", fmt::format("mu-{:g}s", z));
    for (const auto& s : *steps) {
      if (a->json)
        std::cout << dump(Json{{"match", s.index},
                               {"games", s.games},
                               {"place", s.place},
                               {"mu", s.mu},
                               {"sigma", s.sigma}})
                  << '\n';
      else
        fmt::print("{:>8}  {:>6}  {:>5}  {:>7.2f}  {:>6.2f}  {:>8.2f}\n", s.index, s.games,
                   s.place + 1, s.mu, s.sigma, s.mu - z * s.sigma);
    }
  });
}

void add_ladder_finals(CLI::App* l, const std::shared_ptr<LadderArgs>& a, int& exit_code) {
  auto* finals = l->add_subcommand(
      "finals", "Freeze the ladder and play a round robin of its top N here: the result");
  finals->add_option("name", a->name, "The ladder")->required();
  finals->add_option("--top", a->finals.top, "Entrants taken, best first (default 8)")
      ->check(CLI::Range(2, 64));
  finals->add_option("--rounds", a->finals.rounds, "Round robin cycles (default 2)")
      ->check(CLI::Range(1, 100000));
  finals->add_option("--seats", a->finals.seats, "Players per match (default: the ladder's least)")
      ->check(CLI::Range(1, 64));
  finals->add_flag("--no-anchors", a->no_anchors, "Only stored bots' versions, no house anchors");
  add_store_option(finals, a->run);
  add_worker_options_to(finals, a->run);
  add_export_options(finals, a->run);
  finals->add_flag("--quiet,-q", a->run.quiet, "No progress display");
  finals->callback([a, &exit_code] {
    if (!outputs_ok(a->run, exit_code)) return;
    std::int64_t id = 0;
    auto store = open_ladder(*a, id, exit_code);
    if (!store) return;
    a->finals.anchors = !a->no_anchors;
    auto spec = league::draw_finals(*store, id, a->finals);
    if (!spec) {
      report_error(spec.error().message);
      exit_code = kBadInput;
      return;
    }
    auto finals_id = tournament::create_tournament(*store, *spec);
    if (!finals_id) {
      report_error(finals_id.error().message);
      exit_code = kFailed;
      return;
    }
    std::cerr << fmt::format(
                     "arbiter: ladder {} is frozen; its finals are tournament {}: {} "
                     "matches of {} entrants, seed {}",
                     a->name, *finals_id, tournament::planned_matches(*spec), spec->players.size(),
                     spec->seed)
              << std::endl;
    catch_stop_signals();
    exit_code = play_tournament(*store, *finals_id, a->run);  // the standings
    RunArgs cross = a->run;
    cross.crosstable = true;
    cross.csv = cross.json = cross.matches_csv = cross.crosstable_csv = "";
    if (exit_code == 0 && !stop_flag().load())
      exit_code = report_results(*store, *finals_id, cross);
  });
}

void add_ladder_verify(CLI::App* l, const std::shared_ptr<LadderArgs>& a, int& exit_code) {
  auto* verify = l->add_subcommand(
      "verify", "Rate every stored result again from nothing and compare with the stored ratings");
  verify->add_option("name", a->name, "The ladder")->required();
  add_store_option(verify, a->run);
  verify->callback([a, &exit_code] {
    std::int64_t id = 0;
    auto store = open_ladder(*a, id, exit_code);
    if (!store) return;
    auto wrong = league::verify_ratings(*store, id);
    if (!wrong) {
      report_error(wrong.error().message);
      exit_code = kFailed;
      return;
    }
    auto state = store->ladder_state(id);
    for (const auto& line : *wrong) report_error(line);
    if (!wrong->empty()) {
      exit_code = kFailed;
      return;
    }
    fmt::print("ladder {}: the ratings of its {} rated matches agree with a recomputation\n",
               a->name, state ? state->rated() : 0);
  });
}

}  // namespace

void add_ladder_commands(CLI::App& app, int& exit_code) {
  auto* l = app.add_subcommand(
      "ladder", "Continuous rated play among every active version of a game's stored bots");
  l->require_subcommand(1);
  l->footer(
      "Every active version of a stored bot of the ladder's game plays (arbiter bot add); a new\n"
      "version joins within a round, a retired one stops and keeps its history.\n"
      "Examples:\n"
      "  arbiter ladder create course -g battleship --anchor house:hunt\n"
      "  arbiter ladder run course --workers 2          # Ctrl-C stops it; run again resumes\n"
      "  arbiter worker --ladder course --store URL     # more workers, on any machine\n"
      "  arbiter ladder status course\n"
      "  arbiter ladder history course alice@3          # its rating after each match\n"
      "  arbiter ladder pause course; arbiter ladder resume course\n"
      "  arbiter ladder verify course                   # ratings recomputed from the results\n"
      "  arbiter ladder finals course --top 4 --rounds 10   # freeze, then a round robin");
  auto a = std::make_shared<LadderArgs>();
  add_ladder_create(l, a, exit_code);
  add_ladder_run(l, a, exit_code);
  add_ladder_status(l, a, exit_code);
  add_ladder_state_command(l, a, exit_code, "pause", "paused",
                           "Stop adding matches (those under way finish); ratings keep up");
  add_ladder_state_command(l, a, exit_code, "resume", "running", "Start adding matches again");
  add_ladder_history(l, a, exit_code);
  add_ladder_finals(l, a, exit_code);
  add_ladder_verify(l, a, exit_code);
}

}  // namespace arbiter::cli
