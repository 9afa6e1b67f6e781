#include "remote/program_terms.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include <fmt/format.h>

#include "core/units.h"

namespace arbiter {
namespace {

constexpr std::uint64_t kMinMemory = std::uint64_t{16} << 20;

// A whole number >= 0 as JSON or TOML gives it (TOML integers are signed).
bool is_count(const Json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

bool is_none(const Json& v) {
  return v.is_null() || (v.is_string() && v.get<std::string>() == "none");
}

Expected<std::optional<std::uint64_t>> size_term(const Json& v, std::uint64_t min,
                                                 const char* min_text) {
  if (is_none(v)) return std::optional<std::uint64_t>();
  std::uint64_t bytes = 0;
  if (is_count(v)) {
    bytes = v.get<std::uint64_t>();
  } else if (v.is_string()) {
    auto parsed = parse_size(v.get<std::string>());
    if (!parsed) return std::unexpected(parsed.error());
    bytes = *parsed;
  } else {
    return fail(fmt::format("expected a size such as \"512M\", got {}", excerpt(v)));
  }
  if (bytes < min)
    return fail(fmt::format("{} is too small (at least {})", format_size(bytes), min_text));
  return std::optional<std::uint64_t>(bytes);
}

Expected<std::optional<std::uint64_t>> count_term(const Json& v, std::uint64_t lo,
                                                  std::uint64_t hi) {
  if (is_none(v)) return std::optional<std::uint64_t>();
  std::uint64_t n = 0;
  if (is_count(v))
    n = v.get<std::uint64_t>();
  else if (v.is_string() && !v.get<std::string>().empty() &&
           v.get<std::string>().find_first_not_of("0123456789") == std::string::npos &&
           v.get<std::string>().size() < 10)
    n = std::stoull(v.get<std::string>());
  else
    return fail(fmt::format("expected a whole number from {} to {}, got {}", lo, hi, excerpt(v)));
  if (n < lo || n > hi)
    return fail(fmt::format("expected a whole number from {} to {}, got {}", lo, hi, n));
  return std::optional<std::uint64_t>(n);
}

Expected<std::vector<std::string>> strings_term(const Json& v) {
  std::vector<std::string> out;
  if (v.is_string()) return std::vector<std::string>{v.get<std::string>()};
  if (!v.is_array()) return fail(fmt::format("expected a list of strings, got {}", excerpt(v)));
  for (const auto& item : v) {
    if (!item.is_string()) return fail(fmt::format("expected strings, got {}", excerpt(item)));
    out.push_back(item.get<std::string>());
  }
  return out;
}

bool valid_env_name(std::string_view name) {
  return !name.empty() && std::isdigit(static_cast<unsigned char>(name[0])) == 0 &&
         name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
             std::string_view::npos;
}

// A real-valued term: "none" (nothing), a number, or text `parse` reads; else "expected WHAT".
template <class Parse>
Expected<std::optional<double>> real_term(const Json& v, std::string_view what, Parse parse) {
  if (is_none(v)) return std::optional<double>();
  if (v.is_number()) return std::optional<double>(v.get<double>());
  if (!v.is_string()) return fail(fmt::format("expected {}, got {}", what, excerpt(v)));
  auto parsed = parse(v.get<std::string>());
  if (!parsed) return std::unexpected(parsed.error());
  return std::optional<double>(*parsed);
}

std::uint64_t machine_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                               : ~std::uint64_t{0};
}

}  // namespace

Expected<void> set_term(ProgramTerms& terms, std::string_view key, const Json& value) {
  ChildLimits& l = terms.limits;
  const auto assign = [](std::optional<std::uint64_t>& field,
                         Expected<std::optional<std::uint64_t>> got) -> Expected<void> {
    if (!got) return std::unexpected(got.error());
    field = *got;
    return {};
  };
  if (key == "memory") return assign(l.memory_bytes, size_term(value, kMinMemory, "16M"));
  if (key == "output") return assign(l.output_bytes, size_term(value, 1024, "1K"));
  if (key == "processes") return assign(l.processes, count_term(value, 1, 65536));
  if (key == "open_files") return assign(l.open_files, count_term(value, 8, 1 << 20));
  if (key == "cpu_time") {
    auto seconds = real_term(value, "a duration such as \"60s\"", [](const std::string& text) {
      auto d = parse_duration(text);
      return d ? Expected<double>(static_cast<double>(d->count()) / 1e6)
               : Expected<double>(std::unexpected(d.error()));
    });
    if (!seconds) return std::unexpected(seconds.error());
    if (!*seconds) return l.cpu_seconds.reset(), Expected<void>();
    if (**seconds < 1 || **seconds > 1e6 || **seconds != std::floor(**seconds))
      return fail(fmt::format("{} s: CPU time is counted in whole seconds, from 1 s to 1000000 s",
                              **seconds));
    l.cpu_seconds = static_cast<std::uint64_t>(**seconds);
    return {};
  }
  if (key == "cpus") {
    auto cpus = real_term(value, "a number of CPUs such as 1 or 0.5", [](const std::string& text) {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      return !text.empty() && end == text.c_str() + text.size()
                 ? Expected<double>(v)
                 : Expected<double>(fail(fmt::format("\"{}\" is not a number", text)));
    });
    if (!cpus) return std::unexpected(cpus.error());
    if (!*cpus) return l.cpu_millis.reset(), Expected<void>();
    if (!(**cpus >= 0.01 && **cpus <= 1024))
      return fail(fmt::format("{} CPUs: from 0.01 to 1024", **cpus));
    l.cpu_millis = static_cast<std::uint64_t>(std::llround(**cpus * 1000));
    return {};
  }
  if (key == "sandbox" || key == "network") {
    if (!value.is_boolean())
      return fail(fmt::format("expected true or false, got {}", excerpt(value)));
    const bool on = value.get<bool>();
    if (key == "sandbox") {
      if (!on) terms.sandbox.reset();
      else if (!terms.sandbox) terms.sandbox = SandboxSpec{};
      return {};
    }
    if (!terms.sandbox) return fail("is a wall of the sandbox, which is off");
    terms.sandbox->network = on;
    return {};
  }
  if (key == "read_only" || key == "env") {
    auto list = strings_term(value);
    if (!list) return std::unexpected(list.error());
    if (!terms.sandbox) return fail("is a wall of the sandbox, which is off");
    if (key == "env") {
      for (const auto& e : *list)
        if (!valid_env_name(std::string_view(e).substr(0, e.find('='))))
          return fail(fmt::format("\"{}\": expected NAME or NAME=VALUE", e));
      terms.sandbox->environment = *list;
    } else {
      terms.sandbox->read_only.assign(list->begin(), list->end());
    }
    return {};
  }
  if (key == "dir" || key == "stderr") {
    std::filesystem::path& into = key == "dir" ? terms.dir : terms.stderr_dir;
    if (is_none(value) || (value.is_string() && value.get<std::string>().empty())) {
      into.clear();
      return {};
    }
    if (!value.is_string())
      return fail(fmt::format("expected a directory, got {}", excerpt(value)));
    // Absolute from here on: a stored spec is read by workers in other directories.
    std::error_code ec;
    into = std::filesystem::absolute(value.get<std::string>(), ec).lexically_normal();
    if (ec) return fail(fmt::format("{}: {}", value.get<std::string>(), ec.message()));
    return {};
  }
  return fail(
      fmt::format("unknown term \"{}\" (known: memory, processes, cpu_time, cpus, "
                  "output, open_files, network, read_only, env, sandbox, dir, stderr)",
                  key));
}

Expected<void> check_terms(const ProgramTerms& terms) {
  if (terms.limits.memory_bytes && *terms.limits.memory_bytes > machine_memory())
    return fail(fmt::format("memory {}: more than this machine has ({:.1f} GiB)",
                            format_size(*terms.limits.memory_bytes),
                            static_cast<double>(machine_memory()) / (1 << 30)));
  if (!terms.dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(terms.dir, ec))
      return fail(fmt::format("dir {}: no such directory", terms.dir.string()));
  }
  if (!terms.stderr_dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(terms.stderr_dir, ec) ||
        ::access(terms.stderr_dir.c_str(), W_OK) != 0)
      return fail(fmt::format("stderr {}: not a directory this process can write in",
                              terms.stderr_dir.string()));
  }
  if (terms.sandbox) {
    for (const auto& p : terms.sandbox->read_only) {
      std::error_code ec;
      if (!std::filesystem::exists(p, ec))
        return fail(fmt::format("read_only {}: no such file or directory", p.string()));
    }
    for (const auto& e : terms.sandbox->environment)
      if (!valid_env_name(std::string_view(e).substr(0, e.find('='))))
        return fail(fmt::format("env \"{}\": expected NAME or NAME=VALUE", e));
  }
  return {};
}

Json encode_terms(const ProgramTerms& terms) {
  const auto cap = [](const std::optional<std::uint64_t>& v) { return v ? Json(*v) : Json(); };
  Json j = {{"memory", cap(terms.limits.memory_bytes)},
            {"processes", cap(terms.limits.processes)},
            {"cpu_time", cap(terms.limits.cpu_seconds)},
            {"cpus", terms.limits.cpu_millis ? Json(*terms.limits.cpu_millis / 1000.0) : Json()},
            {"output", cap(terms.limits.output_bytes)},
            {"open_files", cap(terms.limits.open_files)},
            {"sandbox", terms.sandbox.has_value()}};
  if (!terms.dir.empty()) j["dir"] = terms.dir.string();
  if (!terms.stderr_dir.empty()) j["stderr"] = terms.stderr_dir.string();
  if (terms.sandbox) {
    j["network"] = terms.sandbox->network;
    Json paths = Json::array();
    for (const auto& p : terms.sandbox->read_only) paths.push_back(p.string());
    j["read_only"] = paths;
    j["env"] = terms.sandbox->environment;
  }
  return j;
}

Expected<ProgramTerms> decode_terms(const Json& j) {
  if (!j.is_object()) return fail(fmt::format("program terms: expected an object, got {}", excerpt(j)));
  ProgramTerms terms;
  // "sandbox" first: the walls' own terms need it.
  if (j.contains("sandbox"))
    if (auto ok = set_term(terms, "sandbox", j["sandbox"]); !ok)
      return fail("program terms: sandbox " + ok.error().message);
  for (const auto& [key, value] : j.items()) {
    if (key == "sandbox") continue;
    if (auto ok = set_term(terms, key, value); !ok)
      return fail(fmt::format("program terms: {} {}", key, ok.error().message));
  }
  return terms;
}

std::string describe_terms(const ProgramTerms& terms) {
  const ChildLimits& l = terms.limits;
  std::string caps;
  const auto add = [&](const std::string& s) { caps += (caps.empty() ? "" : ", ") + s; };
  add(l.memory_bytes ? "memory " + format_size(*l.memory_bytes) : "memory uncapped");
  add(l.processes ? fmt::format("{} processes", *l.processes) : "processes uncapped");
  if (l.cpu_seconds) add(fmt::format("{} s CPU", *l.cpu_seconds));
  add(l.cpu_millis ? fmt::format("{:g} CPU", *l.cpu_millis / 1000.0) : "CPU share uncapped");
  add(l.output_bytes ? "output " + format_size(*l.output_bytes) : "output uncapped");
  if (l.open_files) add(fmt::format("{} files", *l.open_files));
  if (!terms.dir.empty()) add("in " + terms.dir.string());
  if (!terms.sandbox) return "UNSANDBOXED (--unsafe-no-sandbox); " + caps;
  return std::string(terms.sandbox->network ? "sandboxed with the host's network; "
                                            : "sandboxed; ") +
         caps;
}

namespace {

// As parse_size reads it back: "512M", "1G", "4K" or bytes.
std::string size_word(std::uint64_t bytes) {
  for (const auto& [shift, unit] : {std::pair{30, 'G'}, std::pair{20, 'M'}, std::pair{10, 'K'}})
    if (bytes != 0 && bytes % (std::uint64_t{1} << shift) == 0)
      return fmt::format("{}{}", bytes >> shift, unit);
  return std::to_string(bytes);
}

}  // namespace

std::optional<std::vector<TermSetting>> term_settings(const ProgramTerms& terms,
                                                      const ProgramTerms& over) {
  std::vector<TermSetting> out;
  const auto cap = [&](const char* key, const std::optional<std::uint64_t>& given,
                       const std::optional<std::uint64_t>& was, bool size, const char* unit) {
    if (given == was) return;
    out.push_back({key, !given ? std::string("none")
                        : size ? size_word(*given)
                               : fmt::format("{}{}", *given, unit)});
  };
  cap("memory", terms.limits.memory_bytes, over.limits.memory_bytes, true, "");
  cap("processes", terms.limits.processes, over.limits.processes, false, "");
  cap("cpu_time", terms.limits.cpu_seconds, over.limits.cpu_seconds, false, "s");
  if (terms.limits.cpu_millis != over.limits.cpu_millis)
    out.push_back({"cpus", terms.limits.cpu_millis
                               ? fmt::format("{:g}", *terms.limits.cpu_millis / 1000.0)
                               : std::string("none")});
  cap("output", terms.limits.output_bytes, over.limits.output_bytes, true, "");
  cap("open_files", terms.limits.open_files, over.limits.open_files, false, "");
  const auto dir = [&](const char* key, const std::filesystem::path& given,
                       const std::filesystem::path& was) {
    if (given != was) out.push_back({key, given.empty() ? "none" : given.string()});
  };
  dir("dir", terms.dir, over.dir);
  dir("stderr", terms.stderr_dir, over.stderr_dir);
  if (!terms.sandbox) {
    if (over.sandbox) out.push_back({"sandbox", "false"});
    return out;
  }
  if (!over.sandbox) out.push_back({"sandbox", "true"});
  const SandboxSpec walls = over.sandbox ? *over.sandbox : SandboxSpec{};
  std::vector<std::string> read_only, was_read_only;
  for (const auto& p : terms.sandbox->read_only) read_only.push_back(p.string());
  for (const auto& p : walls.read_only) was_read_only.push_back(p.string());
  // A list is given whole, item by item: an empty one cannot be given that way.
  const auto list = [&](const char* key, const std::vector<std::string>& given,
                        const std::vector<std::string>& was) {
    if (given == was) return true;
    for (const auto& item : given) out.push_back({key, item});
    return !given.empty();
  };
  if (!list("read_only", read_only, was_read_only) ||
      !list("env", terms.sandbox->environment, walls.environment))
    return std::nullopt;
  if (terms.sandbox->network != walls.network)
    out.push_back({"network", terms.sandbox->network ? "true" : "false"});
  return out;
}

std::vector<std::string> term_flags(const ProgramTerms& terms) {
  static const std::map<std::string, std::string, std::less<>> kFlag = {
      {"memory", "--memory"}, {"processes", "--processes"}, {"cpu_time", "--cpu-time"},
      {"cpus", "--cpus"},     {"output", "--output"},       {"open_files", "--open-files"},
      {"dir", "--workdir"},   {"stderr", "--stderr-dir"},   {"read_only", "--read-only"},
      {"env", "--env"}};
  std::vector<std::string> words;
  // From the defaults, every term can be given (lists start empty).
  const std::vector<TermSetting> settings =
      term_settings(terms, ProgramTerms{}).value_or(std::vector<TermSetting>{});
  for (const auto& [key, value] : settings) {
    if (key == "sandbox") {
      if (value == "false") words.emplace_back("--unsafe-no-sandbox");
    } else if (key == "network") {
      if (value == "true") words.emplace_back("--allow-network");
    } else {
      words.push_back(kFlag.at(key));
      words.push_back(value);
    }
  }
  return words;
}

Expected<void> sandbox_available() {
  static const Expected<void> answer = []() -> Expected<void> {
    const SandboxSupport support = check_sandbox();
    if (support.ok) return {};
    std::string missing = "a wall is missing";
    for (const auto& line : support.lines)
      if (line.starts_with("no")) {
        missing = line.substr(line.find_first_not_of(' ', 2));
        break;
      }
    return fail(fmt::format("the sandbox for program players does not work here ({}); see "
                            "`arbiter sandbox check`, or run them unwalled with "
                            "--unsafe-no-sandbox",
                            missing));
  }();
  return answer;
}

}  // namespace arbiter
