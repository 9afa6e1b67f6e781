// The subcommands of the arbiter CLI, one registration function per command group.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/json.h"
#include "core/printable.h"
#include "remote/program_terms.h"
#include "server/live.h"
#include "tournament/spec.h"

namespace arbiter::server {
class ViewerServer;
}
namespace arbiter::tournament {
class Store;
}

namespace arbiter::cli {

// Exit codes: 0 success, 1 the operation failed (e.g. a replay differs), 2 bad usage or input,
// 3 a result store holds damaged rows (tournament/integrity.h), reported as "damaged: ...",
// 4 a search gave up at a limit the user set, so the answer is unknown.
inline constexpr int kFailed = 1;
inline constexpr int kBadInput = 2;
inline constexpr int kDamaged = 3;
inline constexpr int kUnknown = 4;

// Adds `arbiter q ...` (the course harnesses). `exit_code` receives the command's result.
void add_q_commands(CLI::App& app, int& exit_code);

// Adds `arbiter battleship ...` (the bot evaluation).
void add_battleship_commands(CLI::App& app, int& exit_code);

// Adds `arbiter dominosa ...` (generate, solve, grade).
void add_dominosa_commands(CLI::App& app, int& exit_code);

// Adds `arbiter bot ...` (stored, versioned bots).
void add_bot_commands(CLI::App& app, int& exit_code);

// Adds `arbiter author ...` (who may log in to the submission server).
void add_author_commands(CLI::App& app, int& exit_code);

// Adds `arbiter ladder ...` (continuous rated play among stored bots).
void add_ladder_commands(CLI::App& app, int& exit_code);

// Adds `arbiter worker-role ...` and `arbiter workers` (untrusted workers, PostgreSQL).
void add_worker_role_commands(CLI::App& app, int& exit_code);
void add_workers_commands(CLI::App& app, int& exit_code);

// Adds `arbiter serve` (the viewer over a store).
void add_serve_command(CLI::App& app, int& exit_code);

// The viewer beside a running match or tournament (play --serve, tournament run --serve): live
// matches of this process, and the store's when one is given. Stops when destroyed.
class LiveViewer {
 public:
  LiveViewer();
  ~LiveViewer();
  // Listens on `listen` (HOST:PORT) and serves on threads of its own. `store` may be null.
  Expected<void> start(const std::string& listen, tournament::Store* store);
  server::LiveMatches& live() { return live_; }
  const std::string& url() const { return url_; }  // "http://HOST:PORT/"

 private:
  server::LiveMatches live_;
  std::unique_ptr<server::ViewerServer> server_;
  std::string url_;
};

// Adds `arbiter tournament ...` and `arbiter worker` (tournaments in a result store).
void add_tournament_commands(CLI::App& app, int& exit_code);

// Prints "arbiter: <message>" on one line to stderr (printable_line).
void report_error(const std::string& message);

// Writes a file only its owner may read (mode 0600, set before the secret is in it): tokens.
Expected<void> write_secret_file(const std::string& path, const std::string& text);


// Flushes standard output and checks that everything printed was written; if not, reports why
// and returns kFailed (unless `exit_code` already says a failure).
int checked_stdout(int exit_code);

// Option checks that also reject NaN, infinities, signs and overflow (CLI11's own do not).
CLI::Validator number_validator(double lo, double hi, std::string what);  // NaN refused too
CLI::Validator seconds_validator(double lo = 0.001, double hi = 600);
// A per-call limit: seconds, or reference seconds as 1ref (tournament::parse_per_call).
CLI::Validator per_call_validator();
inline constexpr const char* kPerCallHelp =
    "Seconds a player may take per call (default 6), or reference seconds as 1ref, scaled by "
    "each machine's speed (arbiter calibrate)";
CLI::Validator id_validator(std::int64_t lo = 1);  // lo to 2^63-1, decimal digits only
CLI::Validator natural_validator();                // 0 to 2^64-1, decimal digits only

// How cmd players run (remote/program_terms.h), as options of play and tournament run/create:
// --memory --processes --cpu-time --cpus --output --open-files --read-only --env --allow-network
// --unsafe-no-sandbox --workdir. Kept as written; apply_program_options() checks them.
struct ProgramOptions {
  std::string memory, processes, cpu_time, cpus, output, open_files;  // empty: not given
  std::vector<std::string> read_only, env;
  std::string workdir;
  bool network = false;
  bool unsafe_no_sandbox = false;
  bool given() const;  // any of them
};
void add_program_options(CLI::App* command, ProgramOptions& options);

// Sets the given options over `terms` (the defaults, or a tournament file's). One-line errors
// naming the option ("--memory \"5X\": ...").
Expected<void> apply_program_options(const ProgramOptions& options, ProgramTerms& terms);

// --limit-by wall|cpu, --backstop X and --no-load-check (play, tournament run/create, ladder
// create).
struct LimitOptions {
  std::string limit_by;            // empty: not given
  std::optional<double> backstop;  // not given: the default (or a file's)
  bool no_load_check = false;
};
void add_limit_options(CLI::App* command, LimitOptions& options);
// Sets the given ones over `by`, `backstop` and `load_check`; --backstop without --limit-by cpu
// (here or from a file) is an error, as it would change nothing.
Expected<void> apply_limit_options(const LimitOptions& options, LimitBy& by, double& backstop,
                                   bool& load_check);
// The flags that give `by`, `backstop` and `load_check` back (none for the defaults).
std::vector<std::string> limit_flags(LimitBy by, double backstop, bool load_check);

inline constexpr const char* kEntrantHelp =
    "NAME:KEY=VALUE, a setting of one player, as its [[player]] keys in a tournament file: "
    "per_call, clock, dir, stderr, memory, processes, cpu_time, cpus, output, open_files, env, "
    "read_only, network, sandbox (repeat for more; env and read_only add up)";

// --entrant NAME:KEY=VALUE (play and tournament run/create), over the settings the entrant
// named has from a file or other flags: per_call (seconds), clock, and the keys of
// ProgramTerms (kTermKeys; env and read_only add up). The first term set on an entrant without
// terms of its own starts from `base`. One-line errors naming the setting.
Expected<void> apply_entrant_settings(const std::vector<std::string>& settings,
                                      std::vector<tournament::Entrant>& entrants,
                                      const ProgramTerms& base);

// The line printed (and logged) whenever programs run without the sandbox.
inline constexpr const char* kUnsandboxedWarning =
    "warning: cmd players run WITHOUT the sandbox (--unsafe-no-sandbox): they can read and write "
    "everything this user can, use the network and see every process";

}  // namespace arbiter::cli
