// The registry: the one explicit list of games, each erased to plain functions so that the CLI
// (and later tournaments) stay ordinary, non-template code. No static-initializer registration:
// adding a game means adding one entry in registry.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json.h"
#include "referee/match.h"
#include "referee/replay.h"

namespace arbiter {

struct Seating {
  std::string name;  // the seat's name in results (letters and digits)
  std::string bot;   // which house bot plays it, in the game's bot syntax (see GameEntry::bots)
};

struct PlaySpec {
  std::vector<Seating> roster;  // in seat order (for Q: turn order)
  std::uint64_t seed = 1;
  Json config;  // game-specific overrides; null for the defaults
  RefereeOptions options;
};

struct PlayOutcome {
  MatchResult result;
  std::vector<std::string> names;  // by seat
};

struct GameEntry {
  std::string name;
  std::string summary;
  std::string bots;  // the bot syntax, one line for --help
  std::function<Expected<PlayOutcome>(const PlaySpec&)> play;
  std::function<Expected<ReplayReport>(const std::vector<Json>&)> replay;
};

const std::vector<GameEntry>& registered_games();
const GameEntry* find_game(std::string_view name);

}  // namespace arbiter
