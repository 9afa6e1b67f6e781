#include "league/manifest.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "arena/registry.h"
#include "core/printable.h"
#include "core/seat_name.h"
#include "tournament/toml_json.h"

namespace arbiter::league {
namespace {

constexpr std::size_t kMaxWords = 64;
constexpr std::size_t kMaxWordBytes = 1024;

// Where an absolute word of a command may point: the system the walls show every program.
bool system_path(std::string_view word) {
  for (std::string_view root : {"/usr/", "/bin/", "/lib/", "/lib64/", "/etc/", "/opt/"})
    if (word.starts_with(root)) return true;
  return false;
}

Expected<std::vector<std::string>> command(const Json& j, std::string_view key) {
  if (!j.is_array() || j.empty())
    return fail(
        fmt::format("{}: expected a list of words, e.g. {} = [\"python3\", \"bot.py\"]", key, key));
  if (j.size() > kMaxWords) return fail(fmt::format("{}: more than {} words", key, kMaxWords));
  std::vector<std::string> words;
  for (const Json& w : j) {
    if (!w.is_string()) return fail(fmt::format("{}: every word is a string", key));
    const std::string word = w.get<std::string>();
    const std::string shown = printable_line(word);
    if (word.empty() || word.size() > kMaxWordBytes || word.find('\0') != std::string::npos ||
        !is_utf8(word))
      return fail(fmt::format("{}: \"{}\" is not a word (1 to {} bytes of UTF-8)", key, shown,
                              kMaxWordBytes));
    // A word naming a path outside the bot's files would have the walls show that path.
    std::size_t start = 0;
    while (start <= word.size()) {
      const std::size_t end = std::min(word.find_first_of("/=:", start), word.size());
      if (word.compare(start, end - start, "..") == 0)
        return fail(fmt::format("{}: \"{}\" climbs out of the bot's directory", key, shown));
      start = end + 1;
    }
    if (word.starts_with('/') && !system_path(word))
      return fail(fmt::format("{}: \"{}\" is outside the bot's files and the system", key, shown));
    words.push_back(word);
  }
  return words;
}

Expected<std::string> text(const Json& j, std::string_view key, std::size_t max) {
  if (!j.is_string()) return fail(fmt::format("{}: expected a string", key));
  std::string s = j.get<std::string>();
  if (s.empty() || s.size() > max || !is_utf8(s) || printable_line(s) != s)
    return fail(fmt::format("{}: expected 1 to {} printable characters", key, max));
  return s;
}

}  // namespace

Expected<Manifest> decode_manifest(const Json& j) {
  if (!j.is_object()) return fail("expected a table of settings");
  static const std::set<std::string> known{"name", "game", "language", "build",
                                           "run",  "env",  "limits"};
  for (const auto& [key, value] : j.items())
    if (!known.contains(key))
      return fail(
          fmt::format("unknown key \"{}\" (known: name, game, language, build, run, env, "
                      "limits)",
                      printable_line(key)));
  Manifest m;
  for (std::string_view key : {"name", "game", "run"})
    if (!j.contains(key)) return fail(fmt::format("{}: missing", key));
  auto name = text(j["name"], "name", 20);
  if (!name) return std::unexpected(name.error());
  if (!valid_seat_name(*name)) return fail(fmt::format("name: {}", seat_name_error(*name)));
  m.name = *name;
  auto game = text(j["game"], "game", 40);
  if (!game) return std::unexpected(game.error());
  if (find_game(*game) == nullptr)
    return fail(fmt::format("game: no game \"{}\" (arbiter games lists them)", *game));
  m.game = *game;
  if (j.contains("language")) {
    auto language = text(j["language"], "language", 40);
    if (!language) return std::unexpected(language.error());
    m.language = *language;
  }
  auto run = command(j["run"], "run");
  if (!run) return std::unexpected(run.error());
  m.run = *run;
  if (j.contains("build")) {
    auto build = command(j["build"], "build");
    if (!build) return std::unexpected(build.error());
    m.build = *build;
  }
  if (j.contains("env")) {
    if (!j["env"].is_array()) return fail("env: expected a list of \"NAME=VALUE\"");
    ProgramTerms probe;
    if (auto ok = set_term(probe, "env", j["env"]); !ok) return fail("env: " + ok.error().message);
    for (const Json& e : j["env"]) {
      // A bare NAME would hand the bot the value the worker's environment has.
      if (e.get<std::string>().find('=') == std::string::npos)
        return fail(
            fmt::format("env: \"{}\": give NAME=VALUE", printable_line(e.get<std::string>())));
      m.env.push_back(e.get<std::string>());
    }
  }
  if (j.contains("limits")) {
    if (!j["limits"].is_object()) return fail("limits: expected a table");
    for (const auto& [key, value] : j["limits"].items()) {
      if (std::ranges::find(kManifestLimitKeys, key) == std::end(kManifestLimitKeys))
        return fail(
            fmt::format("limits: unknown key \"{}\" (known: memory, processes, cpu_time, "
                        "cpus, output, open_files)",
                        printable_line(key)));
      ProgramTerms probe;
      if (auto ok = set_term(probe, key, value); !ok)
        return fail(fmt::format("limits.{}: {}", key, ok.error().message));
      m.limits[key] = value;
    }
  }
  return m;
}

Expected<Manifest> parse_manifest(std::string_view text_in, const std::string& source) {
  auto j = tournament::parse_toml(text_in, source);
  if (!j) return std::unexpected(j.error());
  auto m = decode_manifest(*j);
  if (!m) return fail(fmt::format("{}: {}", source, m.error().message));
  return m;
}

Json encode_manifest(const Manifest& m) {
  Json j{{"name", m.name}, {"game", m.game}, {"run", m.run}};
  if (!m.language.empty()) j["language"] = m.language;
  if (!m.build.empty()) j["build"] = m.build;
  if (!m.env.empty()) j["env"] = m.env;
  if (!m.limits.empty()) {
    j["limits"] = Json::object();
    for (const auto& [k, v] : m.limits) j["limits"][k] = v;
  }
  return j;
}

ProgramTerms apply_manifest(const Manifest& m, ProgramTerms organizer) {
  for (const auto& [key, value] : m.limits) {
    ProgramTerms asked = organizer;
    if (!set_term(asked, key, value)) continue;  // checked when stored
    const auto lower = [](std::optional<std::uint64_t>& have, std::optional<std::uint64_t> want) {
      if (want && (!have || *want < *have)) have = want;
    };
    ChildLimits& l = organizer.limits;
    const ChildLimits& a = asked.limits;
    lower(l.memory_bytes, a.memory_bytes);
    lower(l.processes, a.processes);
    lower(l.cpu_seconds, a.cpu_seconds);
    lower(l.cpu_millis, a.cpu_millis);
    lower(l.output_bytes, a.output_bytes);
    lower(l.open_files, a.open_files);
  }
  if (organizer.sandbox)
    for (const auto& e : m.env) organizer.sandbox->environment.push_back(e);
  return organizer;
}

}  // namespace arbiter::league
