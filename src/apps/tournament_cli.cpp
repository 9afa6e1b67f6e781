// The steps the tournament commands share (apps/tournament_cli.h).
#include "apps/tournament_cli.h"

#include <fmt/format.h>

#include "core/file.h"

namespace arbiter::cli {

using namespace arbiter::tournament;

std::string store_flag(const std::string& url) {
  return url == kDefaultStore ? "" : " --store " + url;
}

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

void add_store_option(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("--store", a.store,
                  "Where results live: sqlite:FILE (default sqlite:arbiter.db) or "
                  "postgresql://...");
}

void add_export_options(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("--csv", a.csv, "Write the standings as CSV to this file");
  cmd->add_option("--json", a.json, "Write the standings as JSON to this file");
  cmd->add_option("--matches-csv", a.matches_csv,
                  "Write one CSV line per match (pair, seed, seating, result, reproduce "
                  "command)");
  cmd->add_option("--crosstable-csv", a.crosstable_csv,
                  "Write each entrant's points and games against each other one as CSV");
}

}  // namespace arbiter::cli
