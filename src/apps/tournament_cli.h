// What the tournament commands share (apps/tournament_commands.cpp: run, create, resume,
// worker; apps/tournament_reports.cpp: status, results, log, verify): their arguments as
// parsed, and the steps more than one of them takes.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "tournament/store.h"
#include "tournament/worker.h"

namespace arbiter::cli {

inline constexpr const char* kDefaultStore = "sqlite:arbiter.db";

struct SpecArgs {
  std::string file;
  std::string game;
  std::vector<std::string> players;
  std::string schedule;
  std::int64_t seats = 0;
  std::int64_t rounds = 0;
  std::string seed;
  std::string config;
  std::string per_call;  // empty: not given
  std::string hero;
  std::string name;
  ProgramOptions program;
  LimitOptions limits;
  std::string clock;
  bool no_pairing = false;
  std::optional<double> replay_share;  // checks of untrusted workers' results
  std::optional<std::int64_t> replay_first;
  bool no_arrival_check = false;
  std::vector<double> sprt;                   // ELO0 ELO1
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
  std::string listen;          // HOST:PORT where tcp entrants connect; empty: none
  double accept_timeout = 30;  // seconds a match waits for its tcp entrants
  std::string tokens_file;     // the tcp entrants' tokens: read if it exists, else written
  std::string serve;           // HOST:PORT of the live viewer; empty: none
  bool no_live = false;        // write no spectator lines to the store
  double linger = 0;           // seconds the viewer stays up after the run
  std::string bot_cache;       // where stored bots' files are unpacked; empty: the default
  bool pin = false;            // pin program seats to CPUs (WorkerOptions::pin)
  std::string pin_cpus;        // --cpus with --pin: the CPUs; empty: all this process may use
};

// SIGINT/SIGTERM set stop_flag(): commands that play stop claiming new matches; matches under
// way have WorkerOptions::stop_grace (3 s) to finish and be stored, the rest are released for a
// resume. A second signal ends the process at once (the default action).
void catch_stop_signals();
const std::atomic<bool>& stop_flag();

// Where this process keeps stored bots' files (--bot-cache, or the default).
std::filesystem::path bot_cache(const RunArgs& a);

// The worker settings every command that plays matches takes from its flags (stop: stop_flag).
// One-line errors: --pin where the machine cannot pin, --cpus naming CPUs this process may not
// use, or given without --pin.
Expected<tournament::WorkerOptions> worker_options(const RunArgs& a);

// --workers, --batch, --lease, --match-limit, --bot-cache, --no-live.
void add_worker_options_to(CLI::App* cmd, RunArgs& a);

// " --store URL" for a command to print, or nothing for the default store.
std::string store_flag(const std::string& url);

// The files and folders a command will write, checked before anything is created or played,
// so that a typo costs an error line and not a tournament's exports.
bool outputs_ok(const RunArgs& a, int& exit_code);

// The store, or null after reporting why it cannot be opened (exit code 2).
std::unique_ptr<tournament::Store> open_or_report(const std::string& url, tournament::OpenMode mode,
                                                  int& exit_code);

// The options every tournament command that reads or writes a store takes, and the exports.
void add_store_option(CLI::App* cmd, RunArgs& a);
void add_export_options(CLI::App* cmd, RunArgs& a);

// Plays tournament `id`'s missing matches in this process with a progress display, then reports
// its results as `tournament run` does; the exit code.
int play_tournament(tournament::Store& store, std::int64_t id, const RunArgs& a);

// Prints the standings of tournament `id` (damaged rows left out and reported) and writes the
// exports `a` asks for; the exit code.
int report_results(tournament::Store& store, std::int64_t id, const RunArgs& a);

// `arbiter tournament status|results|log|verify` (apps/tournament_reports.cpp), on `t`.
void add_report_commands(CLI::App* t, const std::shared_ptr<RunArgs>& args, int& exit_code);

}  // namespace arbiter::cli
