// `arbiter tournament status|results|log|verify`: what a store holds of its tournaments, read
// and checked (every row is checked as it is read: damage is reported, never counted).
#include <iostream>

#include <fmt/format.h>

#include "apps/tournament_cli.h"
#include "core/file.h"
#include "core/printable.h"
#include "tournament/audit.h"
#include "tournament/head_to_head.h"
#include "tournament/standings.h"
#include "tournament/worker.h"

namespace arbiter::cli {

using namespace arbiter::tournament;

namespace {

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

void add_status(CLI::App* t, const std::shared_ptr<RunArgs>& run_args, int& exit_code) {
  auto* status = t->add_subcommand("status", "Progress of one tournament, or of all in the store");
  status->add_option("id", run_args->tournament, "The tournament's id (default: all)")
      ->check(id_validator());
  add_store_option(status, *run_args);
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
      // A ladder never ends: its matches so far, and where to read it (arbiter ladder status).
      const bool ladder = field_or_null(rec.spec, "schedule") == "ladder";
      fmt::print(
          "{:>4}  {:<20} {:<14} {:>15} done  {:>4} playing  {}{}  created {}\n", rec.id, rec.name,
          rec.game, ladder ? std::to_string(p->done) : fmt::format("{}/{}", p->done, p->planned),
          p->leased,
          ladder                  ? "ladder (arbiter ladder status " + rec.name + ")"
          : p->concluded          ? "concluded"
          : p->done >= p->planned ? "finished"
                                  : "open",
          p->duplicates > 0 ? fmt::format(" ({} duplicate results ignored)", p->duplicates) : "",
          rec.created);
    }
    if (!any && run_args->tournament != 0) {
      report_error(fmt::format("no tournament {} in {}", run_args->tournament, run_args->store));
      exit_code = kBadInput;
    } else if (!any) {
      fmt::print("no tournaments in {}\n", run_args->store);
    }
  });
}

void add_results(CLI::App* t, const std::shared_ptr<RunArgs>& run_args, int& exit_code) {
  auto* results = t->add_subcommand("results", "Standings and ratings of a tournament so far");
  results->add_option("id", run_args->tournament, "The tournament's id")
      ->required()
      ->check(id_validator());
  add_store_option(results, *run_args);
  add_export_options(results, *run_args);
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
}

void add_log(CLI::App* t, const std::shared_ptr<RunArgs>& run_args, int& exit_code) {
  auto log_index = std::make_shared<std::int64_t>(0);
  auto* log = t->add_subcommand(
      "log", "Print the game log of one match (for arbiter replay); a damaged one is not printed");
  log->add_option("id", run_args->tournament, "The tournament's id")
      ->required()
      ->check(id_validator());
  log->add_option("match", *log_index, "The match's index (see results --matches)")
      ->required()
      ->check(id_validator(0));
  log->add_flag("--stderr", run_args->show_stderr,
                "Print what the match's programs wrote on stderr (the last 8 KiB of each) "
                "instead of the game log");
  add_store_option(log, *run_args);
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
        report_error(
            fmt::format("unverified: match {}'s log was stored without a checksum", *log_index));
      std::cout << (*text)->text;
      return;
    }
    report_error(
        fmt::format("tournament {} has no result for match {}", run_args->tournament, *log_index));
    exit_code = kBadInput;
  });
}

void add_verify(CLI::App* t, const std::shared_ptr<RunArgs>& run_args, int& exit_code) {
  auto* verify = t->add_subcommand(
      "verify",
      "Audit a tournament's store: replay every stored log and check it gives the stored result");
  verify->add_option("id", run_args->tournament, "The tournament's id")
      ->required()
      ->check(id_validator());
  add_store_option(verify, *run_args);
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
    fmt::print(
        "tournament {}: {} results{}: {} replayed identically, {} "
        "could not be played, {} damaged, {} unverified (stored without a checksum)\n",
        id, report->results,
        spec->schedule == Schedule::ladder
            ? " (a ladder: its ratings are checked by arbiter ladder verify)"
            : fmt::format(" of {} planned matches", progress->planned),
        report->replayed, report->errors, report->damaged.size(), report->unverified);
    if (!report->damaged.empty()) exit_code = kDamaged;
  });
}

}  // namespace

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
    std::cout << matches_csv(*spec, *results, a.store);
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
                 reproduce_command(*spec, results->front().spec, true, a.store));
    fmt::print("every match: arbiter tournament results {} --matches{}\n", id, store_flag(a.store));
  }
  int rc = export_file(a.csv, standings_csv(standings), "--csv");
  if (rc == 0) {
    Json j = standings_json(standings);
    j["tournament"] = id;
    if (duel) j["head_to_head"] = head_to_head_json(*spec, *duel);
    rc = export_file(a.json, dump(j) + "\n", "--json");
  }
  if (rc == 0)
    rc = export_file(a.matches_csv, matches_csv(*spec, *results, a.store), "--matches-csv");
  if (rc == 0) rc = export_file(a.crosstable_csv, crosstable_csv(cross), "--crosstable-csv");
  const int damage = report_damage(*spec, id, *results);
  return rc != 0 ? rc : damage;
}

void add_report_commands(CLI::App* t, const std::shared_ptr<RunArgs>& args, int& exit_code) {
  add_status(t, args, exit_code);
  add_results(t, args, exit_code);
  add_log(t, args, exit_code);
  add_verify(t, args, exit_code);
}

}  // namespace arbiter::cli
