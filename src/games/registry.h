// The registry: the one explicit list of games, each erased to plain functions so that the CLI
// (and later tournaments) stay ordinary, non-template code. No static-initializer registration:
// adding a game means adding one entry in registry.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json.h"
#include "referee/match.h"
#include "referee/replay.h"
#include "remote/child_process.h"

namespace arbiter {

struct Seating {
  std::string name;  // the seat's name in results (letters and digits)
  // Who plays it: a house bot in the game's bot syntax (see GameEntry::bots), "cmd:PROGRAM
  // [ARGS...]" (a child process speaking the wire protocol on stdin/stdout; arguments split at
  // spaces; a program that cannot be started is ejected at setup with the reason), or "tcp" (a
  // client that connects to the referee and sends its name first).
  std::string bot;
};

// Where remote players come from.
struct Hosting {
  std::string listen_host = "127.0.0.1";            // for "tcp" seats
  std::uint16_t listen_port = 0;                    // 0: any free port
  std::chrono::milliseconds accept_timeout{60000};  // for each tcp seat to connect and sign up
  std::function<void(std::uint16_t port, std::size_t seats)> on_listen;  // before accepting
  ChildLimits limits;                                                    // for "cmd" seats
  std::filesystem::path stderr_dir;  // "cmd" seats' stderr logs (NAME.stderr); empty: dropped
  // HOST:PORT of a viewer listening for the game's text stream (Abalone's §7 GUI protocol);
  // empty: none. Games without such a stream ignore it.
  std::string gui;
};

struct PlaySpec {
  std::vector<Seating> roster;  // in seat order (for Q: turn order)
  std::uint64_t seed = 1;
  Json config;  // game-specific overrides; null for the defaults
  RefereeOptions options;
  Hosting hosting;
};

struct PlayOutcome {
  MatchResult result;
  std::vector<std::string> names;   // by seat
  std::vector<std::string> report;  // game-specific lines for people (Speed Scrabble: timeline)
  Json details;                     // the same for machines (merged into --json output)
};

struct GameEntry {
  std::string name;
  std::string summary;
  std::string bots;  // the bot syntax, one line for --help
  std::size_t min_seats = 2;  // how many players a match seats (before config overrides)
  std::size_t max_seats = 2;
  std::function<Expected<PlayOutcome>(const PlaySpec&)> play;
  std::function<Expected<ReplayReport>(const std::vector<Json>&)> replay;
};

const std::vector<GameEntry>& registered_games();
const GameEntry* find_game(std::string_view name);

}  // namespace arbiter
