// The manifest of a bot, arbiter-bot.toml at the top of its files:
//   name = "alice"                 # the bot's name (core/seat_name.h's rule)
//   game = "q"                     # a game of the registry
//   language = "python"            # for people: which starter kit, which toolchain
//   build = ["javac", "Bot.java"]  # optional: run once, in the sandbox, when it is stored
//   run = ["java", "Bot"]          # how a match starts it, in its own directory
//   env = ["JAVA_TOOL_OPTIONS=-Xss8m"]  # optional: NAME=VALUE it is given
//   [limits]                       # optional: what it needs at most, as program terms
//   memory = "256M"   processes = 16   cpu_time = "60s"   cpus = 1   output = "4M"   open_files =
//   64
// A limit can only lower what the organizer gives (apply_manifest): an author asks for less,
// never for more. Commands are argument lists; a word may not climb out of the bot's directory
// ("..") or name an absolute path outside the system (/usr, /bin, /lib, /etc, /opt).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "remote/program_terms.h"

namespace arbiter::league {

struct Manifest {
  std::string name;
  std::string game;
  std::string language;
  std::vector<std::string> build;  // empty: nothing to build
  std::vector<std::string> run;
  std::vector<std::string> env;        // NAME=VALUE
  std::map<std::string, Json> limits;  // term key -> as written
  friend bool operator==(const Manifest&, const Manifest&) = default;
};

// The term keys a manifest's [limits] may set.
inline constexpr std::string_view kManifestLimitKeys[] = {"memory", "processes", "cpu_time",
                                                          "cpus",   "output",    "open_files"};

// Reads and checks a manifest (TOML text; `source` names it in errors). Every error is one line
// naming the key: an unknown key, a missing name/game/run, an unknown game, a bad limit.
Expected<Manifest> parse_manifest(std::string_view text, const std::string& source);

// For the store, and back (a stored row is checked like an upload).
Json encode_manifest(const Manifest& m);
Expected<Manifest> decode_manifest(const Json& j);

// The terms a stored bot runs under: `organizer`'s, each cap lowered to the manifest's where
// the manifest asks for less, its env added; `dir` is where its files are.
ProgramTerms apply_manifest(const Manifest& m, ProgramTerms organizer);

}  // namespace arbiter::league
