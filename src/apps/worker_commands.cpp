// `arbiter worker-role ...` (database roles for workers nobody has to trust) and `arbiter
// workers` (what each worker did, and the checker of their results): PostgreSQL stores only.
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "apps/commands.h"
#include "apps/tournament_cli.h"
#include "core/entropy.h"
#include "tournament/checker.h"
#include "tournament/worker.h"
#include "tournament/worker_roles.h"

namespace arbiter::cli {
namespace {

using tournament::WorkerRoles;

struct RoleArgs {
  std::string store;
  std::string name;
  std::string url_file;
  bool json = false;
  bool until_finished = false;
  bool quiet = false;
};

bool is_postgres(const std::string& url) {
  return url.starts_with("postgresql://") || url.starts_with("postgres://");
}

// The organizer's store and its worker roles, or nulls after reporting why not.
struct Opened {
  std::unique_ptr<tournament::Store> store;
  std::unique_ptr<WorkerRoles> roles;
};
Opened open_roles(const RoleArgs& a, int& exit_code) {
  if (!is_postgres(a.store)) {
    report_error(
        fmt::format("--store {}: worker roles live in PostgreSQL (a postgresql:// URL); "
                    "an SQLite store has one machine's workers only",
                    a.store.empty() ? std::string("is missing") : a.store));
    exit_code = kBadInput;
    return {};
  }
  Opened o;
  o.store = open_or_report(a.store, tournament::OpenMode::existing, exit_code);
  if (!o.store) return {};
  if (o.store->worker_only()) {
    report_error(
        "--store: this URL logs in as a worker's role; worker roles are the "
        "organizer's to manage (use the organizer's URL)");
    exit_code = kBadInput;
    return {};
  }
  auto roles = tournament::open_worker_roles(a.store);
  if (!roles) {
    report_error(roles.error().message);
    exit_code = kFailed;
    return {};
  }
  o.roles = std::move(*roles);
  return o;
}

void add_store(CLI::App* cmd, RoleArgs& a) {
  cmd->add_option("--store", a.store, "The organizer's PostgreSQL store, postgresql://...")
      ->required();
}

void add_role_create(CLI::App* top, const std::shared_ptr<RoleArgs>& a, int& exit_code) {
  auto* create = top->add_subcommand(
      "create",
      "Make a database role for one worker: it can claim, play and report matches and nothing "
      "else; prints its connection URL (with a fresh password) once");
  create->add_option("NAME", a->name, "The role: a lower-case letter, then letters, digits, _")
      ->required();
  create->add_option("--url-file", a->url_file,
                     "Write the worker's URL to this new file (mode 0600) instead of printing it");
  add_store(create, *a);
  create->callback([a, &exit_code] {
    if (auto ok = tournament::check_role_name(a->name); !ok)
      return report_error(ok.error().message), void(exit_code = kBadInput);
    auto o = open_roles(*a, exit_code);
    if (!o.roles) return;
    auto password = o.roles->create(a->name);
    if (!password) return report_error(password.error().message), void(exit_code = kFailed);
    const std::string url = o.roles->worker_url(a->name, *password);
    if (!a->url_file.empty()) {
      if (auto ok = write_secret_file(a->url_file, url + "\n"); !ok) {
        report_error(
            fmt::format("{} (the role {} was made: arbiter worker-role block {} and "
                        "make another)",
                        ok.error().message, a->name, a->name));
        exit_code = kFailed;
        return;
      }
      fmt::print("worker role {}: its URL is in {}\n", a->name, a->url_file);
    } else {
      fmt::print("{}\n", url);
    }
    std::cerr << fmt::format(
        "Keep it: the password is shown only this once. On the worker's machine: arbiter worker "
        "--store URL. The server must ask it for a password (pg_hba.conf: scram-sha-256), and "
        "the organizer must run arbiter workers check --store ORGANIZER-URL (docs/scaling.md).\n");
  });
}

void print_roles(const std::vector<tournament::WorkerRole>& roles) {
  fmt::print("{:<16} {:<8} {:>8} {:>8} {:>7} {:>8} {:>9} {:>7} {:>7} {:<20}\n", "worker", "state",
             "results", "pending", "agreed", "disputes", "overruled", "failed", "voided",
             "last result");
  for (const auto& r : roles)
    fmt::print("{:<16} {:<8} {:>8} {:>8} {:>7} {:>8} {:>9} {:>7} {:>7} {:<20}\n", r.name, r.state,
               r.standing, r.pending, r.agreed, r.disputes, r.overruled, r.failures, r.voided,
               r.last_result.empty() ? "-" : r.last_result);
  if (roles.empty()) fmt::print("(no worker roles yet: arbiter worker-role create NAME)\n");
}

void add_manage(CLI::App* top, const std::shared_ptr<RoleArgs>& a, int& exit_code) {
  auto* list = top->add_subcommand("list", "Every worker role: state and what it stored");
  add_store(list, *a);
  list->callback([a, &exit_code] {
    auto o = open_roles(*a, exit_code);
    if (!o.roles) return;
    auto roles = o.roles->list();
    if (!roles) return report_error(roles.error().message), void(exit_code = kFailed);
    print_roles(*roles);
  });
  for (const bool blocked : {true, false}) {
    auto* cmd = top->add_subcommand(
        blocked ? "block" : "unblock",
        blocked ? "Block a worker: it cannot log in, claim or report, and its leases end now"
                : "Let a blocked worker log in and claim again");
    cmd->add_option("NAME", a->name, "The worker role")->required();
    add_store(cmd, *a);
    cmd->callback([a, blocked, &exit_code] {
      auto o = open_roles(*a, exit_code);
      if (!o.roles) return;
      if (auto ok = o.roles->set_blocked(a->name, blocked); !ok)
        return report_error(ok.error().message), void(exit_code = kBadInput);
      fmt::print("{}: {}\n", a->name, blocked ? "blocked" : "active");
    });
  }
  auto* voided = top->add_subcommand(
      "void",
      "Take every result a worker stored out of the standings and play its matches again "
      "on other workers");
  voided->add_option("NAME", a->name, "The worker role")->required();
  add_store(voided, *a);
  voided->callback([a, &exit_code] {
    auto o = open_roles(*a, exit_code);
    if (!o.roles) return;
    auto n = o.roles->void_results(a->name);
    if (!n) return report_error(n.error().message), void(exit_code = kBadInput);
    fmt::print("{}: {} results voided, their matches queued again for other workers\n", a->name,
               *n);
  });
}

// Each role's outlier score: its worst over the tournaments it played in.
Expected<std::map<std::string, tournament::Outlier>> outliers(tournament::Store& store) {
  std::map<std::string, tournament::Outlier> worst;
  auto all = store.tournaments();
  if (!all) return std::unexpected(all.error());
  for (const auto& t : *all) {
    auto spec = tournament::decode_spec(t.spec);
    if (!spec) continue;
    auto results = store.results(t.id);
    if (!results) return std::unexpected(results.error());
    for (const auto& [role, o] : tournament::outlier_scores(*spec, *results))
      if (std::abs(o.z) >= std::abs(worst[role].z) || worst[role].matches == 0) {
        const auto matches = worst[role].matches + o.matches;
        worst[role] = o;
        worst[role].matches = matches;
      }
  }
  return worst;
}

void show_workers(const RoleArgs& a, int& exit_code) {
  auto o = open_roles(a, exit_code);
  if (!o.roles) return;
  auto roles = o.roles->list();
  if (!roles) return report_error(roles.error().message), void(exit_code = kFailed);
  auto scores = outliers(*o.store);
  if (!scores) return report_error(scores.error().message), void(exit_code = kFailed);
  if (a.json) {
    Json out = Json::array();
    for (const auto& r : *roles) {
      const auto& s = (*scores)[r.name];
      out.push_back({{"worker", r.name},
                     {"state", r.state},
                     {"results", r.standing},
                     {"pending", r.pending},
                     {"agreed", r.agreed},
                     {"disputes", r.disputes},
                     {"overruled", r.overruled},
                     {"failures", r.failures},
                     {"voided", r.voided},
                     {"outlier_z", s.z},
                     {"outlier_entrant", s.entrant},
                     {"outlier_matches", s.matches},
                     {"flagged", r.overruled > 0 || r.failures > 0 ||
                                     (s.matches >= tournament::kOutlierMinMatches &&
                                      std::abs(s.z) > tournament::kOutlierZ)},
                     {"last_result", r.last_result}});
    }
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("{:<16} {:<8} {:>8} {:>7} {:>8} {:>9} {:>7} {:>7} {:>8}  {}\n", "worker", "state",
             "results", "agreed", "disputes", "overruled", "failed", "voided", "outlier", "flag");
  for (const auto& r : *roles) {
    const auto& s = (*scores)[r.name];
    std::string flag;
    if (r.overruled > 0) flag += "lied (overruled) ";
    if (r.failures > 0) flag += "bad results ";
    if (s.matches >= tournament::kOutlierMinMatches && std::abs(s.z) > tournament::kOutlierZ)
      flag += fmt::format("outlier for {} ", s.entrant);
    fmt::print("{:<16} {:<8} {:>8} {:>7} {:>8} {:>9} {:>7} {:>7} {:>8}  {}\n", r.name, r.state,
               r.standing, r.agreed, r.disputes, r.overruled, r.failures, r.voided,
               s.matches > 0 ? fmt::format("{:+.1f}", s.z) : std::string("-"),
               flag.empty() ? "-" : flag);
  }
  if (roles->empty()) fmt::print("(no worker roles yet: arbiter worker-role create NAME)\n");
}

// Every tournament finished, and nothing waits for a check.
Expected<bool> all_settled(tournament::Store& store, WorkerRoles& roles) {
  auto all = store.tournaments();
  if (!all) return std::unexpected(all.error());
  for (const auto& t : *all) {
    auto done = tournament::finished(store, t.id);
    if (!done) return done;
    auto open = roles.unsettled(t.id);
    if (!open) return std::unexpected(open.error());
    if (!*done || *open > 0) return false;
  }
  return true;
}

void run_checker(const RoleArgs& a, int& exit_code) {
  catch_stop_signals();
  auto o = open_roles(a, exit_code);
  if (!o.roles) return;
  tournament::Checker checker(*o.store, *o.roles, unguessable_seed());
  tournament::CheckReport total;
  std::cerr << fmt::format("arbiter: checking workers' results on {}", a.store) << std::endl;
  auto failing_since = std::chrono::steady_clock::time_point::max();
  while (!stop_flag().load()) {
    auto report = checker.check();
    if (!report) {
      // A server that restarts is back within seconds; one away for a minute is reported.
      const auto now = std::chrono::steady_clock::now();
      if (failing_since == std::chrono::steady_clock::time_point::max()) failing_since = now;
      if (now - failing_since > std::chrono::seconds(60))
        return report_error(report.error().message), void(exit_code = kFailed);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      continue;
    }
    failing_since = std::chrono::steady_clock::time_point::max();
    for (const auto& note : report->notes) std::cerr << "arbiter: " << note << std::endl;
    total.seen += report->seen;
    total.passed += report->passed;
    total.failed += report->failed;
    total.replays += report->replays;
    total.agreed += report->agreed;
    total.disputes += report->disputes;
    total.decided += report->decided;
    if (report->seen > 0) continue;
    if (a.until_finished) {
      auto settled = all_settled(*o.store, *o.roles);
      if (settled && *settled) break;  // a failure shows in the next check()
    }
    o.roles->wait_for_arrivals(std::chrono::milliseconds(500));
  }
  fmt::print(
      "checked {} results: {} stand, {} failed their check, {} played again ({} agreed, "
      "{} disputed, {} disputes decided)\n",
      total.seen, total.passed, total.failed, total.replays, total.agreed, total.disputes,
      total.decided);
}

}  // namespace

void add_worker_role_commands(CLI::App& app, int& exit_code) {
  auto* top = app.add_subcommand(
      "worker-role",
      "Database roles for workers on machines nobody has to trust (PostgreSQL): create, list, "
      "block, unblock, void");
  top->require_subcommand(1);
  top->footer(
      "A worker role may only call the functions of the schema arbiter_worker: claim a job, renew "
      "its lease, fetch a bot's files, store a result for a job it holds, post live lines. It "
      "cannot read or write any table.\n"
      "Examples:\n"
      "  arbiter worker-role create lab1 --store postgresql://organizer@db/arbiter\n"
      "  arbiter worker --store postgresql://lab1:PASSWORD@db/arbiter     # on lab1\n"
      "  arbiter workers check --store postgresql://organizer@db/arbiter  # the organizer\n"
      "  arbiter worker-role block lab1 --store ...; arbiter worker-role void lab1 --store ...");
  auto a = std::make_shared<RoleArgs>();
  add_role_create(top, a, exit_code);
  add_manage(top, a, exit_code);
}

void add_workers_commands(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<RoleArgs>();
  auto* top = app.add_subcommand(
      "workers",
      "Each untrusted worker's results, agreements, disputes, failures, outlier score and "
      "state; `workers check` checks their results");
  top->require_subcommand(0, 1);
  top->add_option("--store", a->store, "The organizer's PostgreSQL store, postgresql://...");
  top->add_flag("--json", a->json, "One JSON array");
  auto* check = top->add_subcommand(
      "check",
      "Check workers' results as they arrive (replay each log, have a share played again, "
      "settle disputes) and add Swiss rounds and SPRT verdicts; runs until stopped");
  add_store(check, *a);
  check->add_flag("--until-finished", a->until_finished,
                  "Exit once every tournament is finished and every result settled");
  check->callback([a, &exit_code] { run_checker(*a, exit_code); });
  top->callback([a, top, &exit_code] {
    if (!top->get_subcommands().empty()) return;
    if (a->store.empty()) return report_error("--store is required"), void(exit_code = kBadInput);
    show_workers(*a, exit_code);
  });
}

}  // namespace arbiter::cli
