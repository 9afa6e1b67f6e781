// ProgramTerms: how a program player is run, as an organizer states it (on `arbiter play`, for
// every entrant of a tournament or for one, in the store): its caps (ChildLimits) and its walls
// (SandboxSpec; none only when the organizer says --unsafe-no-sandbox). The same keys everywhere:
//   memory "1G"   processes 64   cpu_time "60s"   cpus 1   output "16M"   open_files 256
//   network false   read_only ["/opt/data"]   env ["OMP_NUM_THREADS=1", "LANG"]   sandbox true
// A cap may be "none". The defaults are in docs/security.md and default_terms().
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "remote/child_process.h"
#include "remote/sandbox.h"

namespace arbiter {

struct ProgramTerms {
  ChildLimits limits{.memory_bytes = std::uint64_t{1} << 30,
                     .open_files = 256,
                     .processes = 64,
                     .output_bytes = std::uint64_t{16} << 20,
                     .cpu_millis = 1000};
  std::optional<SandboxSpec> sandbox = SandboxSpec{};  // nullopt: unwalled (unsafe)
  // Where the program starts and its relative paths point (ChildSpec::cwd); empty: here.
  std::filesystem::path dir;
  // Where its stderr is kept in files (the first MiB of each match) when not where the run keeps
  // every program's (Hosting::stderr_dir); empty: there.
  std::filesystem::path stderr_dir;
  friend bool operator==(const ProgramTerms&, const ProgramTerms&) = default;
};

// The keys set_term() knows, in the order of the docs.
inline constexpr std::string_view kTermKeys[] = {"memory", "processes",  "cpu_time", "cpus",
                                                 "output", "open_files", "network",  "read_only",
                                                 "env",    "sandbox",    "dir",      "stderr"};

// Sets one term from what was written: a size or duration as text ("512M", "60s") or a number
// (bytes, seconds), "none" for no cap, a bool, or a list of strings. The Error is one line
// without the key (the caller says where it was written).
Expected<void> set_term(ProgramTerms& terms, std::string_view key, const Json& value);

// What can be checked before any program starts: the caps are possible (memory at least 16 MiB
// and at most this machine's RAM, ...), read-only paths exist, env names are names.
Expected<void> check_terms(const ProgramTerms& terms);

// For the store: every term, and back (a stored row is checked like written input).
Json encode_terms(const ProgramTerms& terms);
Expected<ProgramTerms> decode_terms(const Json& j);

// One line for people: "sandboxed; memory 1 GiB, 64 processes, output 16 MiB, 256 files".
std::string describe_terms(const ProgramTerms& terms);

// The KEY=VALUE settings (kTermKeys, in an order set_term takes them) that turn `over` into
// `terms`: caps as "512M", "60s" or "none", dir and stderr ("none" for none), sandbox and network
// as true/false, and a list (read_only, env) that differs item by item, each item one setting
// (--entrant settings of a list add up). Nothing when a list would have to become empty.
struct TermSetting {
  std::string key;
  std::string value;
};
std::optional<std::vector<TermSetting>> term_settings(const ProgramTerms& terms,
                                                      const ProgramTerms& over);

// The `arbiter play` options that give a program these terms, one word each ("--memory",
// "512M", ...), only for what differs from the defaults; a cap removed is "none".
std::vector<std::string> term_flags(const ProgramTerms& terms);

// Whether the sandbox works here, asked once per process: check_sandbox() is a walled child.
// The Error says what is missing and how to go on.
Expected<void> sandbox_available();

}  // namespace arbiter
