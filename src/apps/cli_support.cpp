// What every command family of the CLI shares: one-line errors, printable text, option checks
// that refuse what CLI11 lets through, the options of program players, and checked output.
#include "apps/commands.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "core/file.h"
#include "core/printable.h"
#include "core/units.h"

namespace arbiter::cli {

Expected<void> write_secret_file(const std::string& path, const std::string& text) {
  // Not through a symbolic link: one planted in a shared directory would take the secret.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  const bool private_file = fd >= 0 && ::fchmod(fd, 0600) == 0;
  const int err = errno;
  if (fd >= 0) ::close(fd);
  if (!private_file) return fail(fmt::format("{}: {}", path, std::strerror(err)));
  return write_file(path, text);
}

void report_error(const std::string& message) {
  std::cerr << "arbiter: " << printable_line(message) << std::endl;
}


CLI::Validator number_validator(double lo, double hi, std::string what) {
  return CLI::Validator(
      [lo, hi, what](std::string& text) -> std::string {
        try {
          std::size_t used = 0;
          const double v = std::stod(text, &used);
          if (used == text.size() && v >= lo && v <= hi) return "";  // false for NaN
        } catch (const std::exception&) {
        }
        return fmt::format("expected {} between {} and {}, got {}", what, lo, hi, text);
      },
      "NUMBER");
}

CLI::Validator seconds_validator(double lo, double hi) {
  return number_validator(lo, hi, "seconds");
}

CLI::Validator per_call_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        auto ok = tournament::parse_per_call(text);
        return ok ? std::string() : ok.error().message;
      },
      "SECONDS|Nref");
}

CLI::Validator id_validator(std::int64_t lo) {
  return CLI::Validator(
      [lo](std::string& text) -> std::string {
        constexpr std::string_view kMax = "9223372036854775807";
        const bool digits = !text.empty() && text.size() <= kMax.size() &&
                            text.find_first_not_of("0123456789") == std::string::npos;
        if (digits && (text.size() < kMax.size() || text <= kMax) && std::stoll(text) >= lo)
          return "";
        return fmt::format("expected a whole number from {} to {}, got {}", lo, kMax, text);
      },
      "N");
}

bool ProgramOptions::given() const {
  return !memory.empty() || !processes.empty() || !cpu_time.empty() || !cpus.empty() ||
         !output.empty() || !open_files.empty() || !read_only.empty() || !env.empty() || network ||
         unsafe_no_sandbox || !workdir.empty();
}

void add_limit_options(CLI::App* command, LimitOptions& o) {
  command
      ->add_option("--limit-by", o.limit_by,
                   "What the per-call limit and the clock are judged on: wall (the default) or "
                   "cpu, the CPU time each call used (a program's processes together, measured "
                   "by its cgroup), with a wall-clock backstop")
      ->check(CLI::IsMember({"wall", "cpu"}));
  command
      ->add_option("--backstop", o.backstop,
                   fmt::format("With --limit-by cpu: the wall-clock limit of a call, as a "
                               "multiple of its CPU-time limit (default {:g})",
                               RefereeOptions::kDefaultBackstop))
      ->check(CLI::Range(tournament::kMinBackstop, tournament::kMaxBackstop));
  command->add_flag("--no-load-check", o.no_load_check,
                    "Count every timeout, even one while the host was overloaded (by default "
                    "such a timeout is timeout-under-load and a tournament plays its match "
                    "again, at most twice)");
}

Expected<void> apply_limit_options(const LimitOptions& o, LimitBy& by, double& backstop,
                                   bool& load_check) {
  if (o.no_load_check) load_check = false;
  if (!o.limit_by.empty()) {
    auto parsed = tournament::parse_limit_by(o.limit_by);
    if (!parsed) return fail("--" + parsed.error().message);
    by = *parsed;
  }
  if (o.backstop) {
    if (by != LimitBy::cpu) return fail("--backstop: only with --limit-by cpu");
    backstop = *o.backstop;
  }
  return {};
}

std::vector<std::string> limit_flags(LimitBy by, double backstop, bool load_check) {
  std::vector<std::string> flags;
  if (by == LimitBy::cpu) flags.insert(flags.end(), {"--limit-by", "cpu"});
  if (by == LimitBy::cpu && backstop != RefereeOptions::kDefaultBackstop)
    flags.insert(flags.end(), {"--backstop", fmt::format("{}", backstop)});
  if (!load_check) flags.push_back("--no-load-check");
  return flags;
}

void add_program_options(CLI::App* command, ProgramOptions& o) {
  const ProgramTerms defaults;
  const auto group = "Program players (cmd:)";
  command->add_option("--memory", o.memory,
                      fmt::format("Memory cap per program, e.g. 512M or none (default {})",
                                  format_size(*defaults.limits.memory_bytes)))
      ->group(group);
  command->add_option("--processes", o.processes,
                      fmt::format("Processes and threads per program (default {})",
                                  *defaults.limits.processes))
      ->group(group);
  command->add_option("--cpu-time", o.cpu_time,
                      "CPU time per program for the whole match, e.g. 60s (default: none)")
      ->group(group);
  command
      ->add_option("--cpus", o.cpus,
                   fmt::format("CPUs a program may use at once, all its processes together, "
                               "e.g. 0.5 or none (default {:g}): one that forks spinners "
                               "slows only itself",
                               *defaults.limits.cpu_millis / 1000.0))
      ->group(group);
  command->add_option("--output", o.output,
                      fmt::format("Bytes a program may write on stdout and on stderr, e.g. 4M "
                                  "(default {})",
                                  format_size(*defaults.limits.output_bytes)))
      ->group(group);
  command->add_option("--open-files", o.open_files,
                      fmt::format("Open files per program (default {})",
                                  *defaults.limits.open_files))
      ->group(group);
  command->add_option("--read-only", o.read_only,
                      "Also show PATH to programs, read-only (their program and the files their "
                      "arguments name are shown already)")
      ->group(group);
  command->add_option("--env", o.env, "Pass NAME (its value here) or NAME=VALUE to programs")
      ->group(group);
  command->add_flag("--allow-network", o.network, "Let programs use the host's network")
      ->group(group);
  command->add_option("--workdir", o.workdir,
                      "Start programs in DIR, where their relative paths point (shown to them "
                      "read-only; default: here, and their scratch /tmp inside the sandbox)")
      ->group(group);
  command->add_flag("--unsafe-no-sandbox", o.unsafe_no_sandbox,
                    "Run programs WITHOUT the sandbox (their own root, uid, /proc, loopback-only "
                    "network, clean environment; see arbiter sandbox check); only for programs "
                    "you trust")
      ->group(group);
}

Expected<void> apply_program_options(const ProgramOptions& o, ProgramTerms& terms) {
  const auto set = [&](const char* option, std::string_view key, const Json& value) {
    if (auto ok = set_term(terms, key, value); !ok)
      return Expected<void>(
          fail(fmt::format("{}: {}", option, ok.error().message)));
    return Expected<void>();
  };
  if (o.unsafe_no_sandbox) {
    if (o.network || !o.read_only.empty() || !o.env.empty())
      return fail("--allow-network, --read-only and --env are walls of the sandbox, which "
                  "--unsafe-no-sandbox turns off");
    terms.sandbox.reset();
  }
  const std::pair<const char*, std::pair<const std::string*, std::string_view>> caps[] = {
      {"--memory", {&o.memory, "memory"}},       {"--processes", {&o.processes, "processes"}},
      {"--cpu-time", {&o.cpu_time, "cpu_time"}}, {"--cpus", {&o.cpus, "cpus"}},
      {"--output", {&o.output, "output"}},       {"--open-files", {&o.open_files, "open_files"}}};
  for (const auto& [option, field] : caps)
    if (!field.first->empty())
      if (auto ok = set(option, field.second, *field.first); !ok) return ok;
  if (o.network)
    if (auto ok = set("--allow-network", "network", true); !ok) return ok;
  if (!o.read_only.empty())
    if (auto ok = set("--read-only", "read_only", o.read_only); !ok) return ok;
  if (!o.env.empty())
    if (auto ok = set("--env", "env", o.env); !ok) return ok;
  if (!o.workdir.empty())
    if (auto ok = set("--workdir", "dir", o.workdir); !ok) return ok;
  if (auto ok = check_terms(terms); !ok) {
    // check_terms names the terms as a tournament file does; here they are options.
    std::string message = ok.error().message;
    for (const auto& [term, option] : {std::pair{"memory ", "--memory "},
                                       std::pair{"read_only ", "--read-only "},
                                       std::pair{"env ", "--env "},
                                       std::pair{"dir ", "--workdir "}})
      if (message.starts_with(term)) message = option + message.substr(std::strlen(term));
    return fail(message);
  }
  return {};
}

CLI::Validator natural_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 20 &&
                            text.find_first_not_of("0123456789") == std::string::npos;
        if (digits && (text.size() < 20 || text <= "18446744073709551615")) return "";
        return "expected a whole number from 0 to 18446744073709551615, got " + text;
      },
      "N");
}

int checked_stdout(int exit_code) {
  // What we printed is part of what we did: output lost to a full disk is a failure.
  errno = 0;
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout) {
    int err = errno;
    if (err == 0) {
      // An earlier flush failed and stdio keeps no reason; the output is lost already, so one
      // more byte may be tried to learn why.
      std::clearerr(stdout);
      std::fputc('\n', stdout);
      if (std::fflush(stdout) != 0) err = errno;
    }
    report_error(
        fmt::format("standard output: {}", err == 0 ? "a write failed" : std::strerror(err)));
    if (exit_code == 0) exit_code = kFailed;
  }
  return exit_code;
}

Expected<void> apply_entrant_settings(const std::vector<std::string>& settings,
                                      std::vector<tournament::Entrant>& entrants,
                                      const ProgramTerms& base) {
  std::map<std::pair<std::string, std::string>, Json> lists;  // env and read_only add up
  for (const std::string& text : settings) {
    const auto colon = text.find(':');
    const auto equals = text.find('=', colon == std::string::npos ? 0 : colon);
    if (colon == std::string::npos || equals == std::string::npos || colon == 0 ||
        equals == colon + 1)
      return fail(fmt::format("--entrant \"{}\": expected NAME:KEY=VALUE, e.g. new:per_call=0.5",
                              text));
    const std::string name = text.substr(0, colon);
    const std::string key = text.substr(colon + 1, equals - colon - 1);
    const std::string value = text.substr(equals + 1);
    auto it = std::find_if(entrants.begin(), entrants.end(),
                           [&](const tournament::Entrant& e) { return e.name == name; });
    if (it == entrants.end())
      return fail(fmt::format("--entrant \"{}\": no entrant is named {}", text, name));
    const auto where = [&](const std::string& why) {
      return fail(fmt::format("--entrant {}:{}: {}", name, key, why));
    };
    if (key == "per_call") {
      char* end = nullptr;
      const double seconds = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(seconds >= 0.001 && seconds <= 600))
        return where("expected seconds between 0.001 and 600");
      it->per_call_ms = std::llround(seconds * 1000);
      continue;
    }
    if (key == "clock") {
      auto tc = parse_time_control(value);
      if (!tc) return where(tc.error().message);
      it->clock = *tc;
      continue;
    }
    if (std::find(std::begin(kTermKeys), std::end(kTermKeys), key) == std::end(kTermKeys))
      return where(
          "unknown key (known: per_call, clock, dir, stderr, memory, processes, "
          "cpu_time, cpus, output, open_files, env, read_only, network, sandbox)");
    Json j = value == "true" ? Json(true) : value == "false" ? Json(false) : Json(value);
    if (key == "env" || key == "read_only") {
      Json& list = lists[{name, key}];
      if (list.is_null()) list = Json::array();
      list.push_back(value);
      j = list;
    }
    if (!it->program) it->program = base;
    if (auto ok = set_term(*it->program, key, j); !ok) return where(ok.error().message);
  }
  return {};
}

}  // namespace arbiter::cli
