// The Concurrent Abalone entry of the registry (docs/games/abalone.md): the game's lockstep
// scheduler hosted by the referee's lockstep style (referee/lockstep.h). Seat 0 is black, seat 1 white.
// A seat's team is a house team compiled in from bots/abalone (`simple`, `team`), a Lua file
// (`PATH.lua` or `lua:PATH`), or a program playing the §8 protocol (`cmd:PROGRAM`, `tcp`).
#pragma once

#include <string>
#include <vector>

#include "arena/registry.h"

namespace arbiter {

// Concurrent Abalone's entry in the game list (arena/registry.h): Lua teams and outside teams in
// lockstep (referee/lockstep.h).
GameEntry abalone_entry();

// The bot syntax, for `arbiter games`: the house teams (games/abalone/bots.h) by name, a Lua
// team file.
std::string abalone_bot_syntax();
// The house teams' names.
std::vector<std::string> abalone_house_bots();

// The registry's checks: a house team or a readable Lua file; a config for 2 seats.
Expected<void> check_abalone_bot(const std::string& bot);
Expected<void> check_abalone_config(const Json& config, std::size_t seats);

// Plays a match. Config keys: the world's (winning_score, max_pieces, cycles_per_turn,
// game_length, black_start, white_start) and the runtime's: step_budget (1..1e6 instructions),
// action_cost (0..1e6), memory_mb (1..4096, per team), watchdog_ms (1..60000). The game log
// records the match header (with every Lua team's source, so that replay needs nothing else),
// the match's events, every call to an external team, and the result.
// spec.hosting.gui (HOST:PORT), when set, receives the §7 text commands as the match goes: an
// observer of the match's frames (referee/observer.h).
Expected<PlayOutcome> play_abalone(const PlaySpec& spec);

// Plays the logged match again from its header (Lua teams from their recorded sources, external
// teams answering from their recorded calls) and compares the logs apart from timing. A match
// that a wall-clock watchdog decided may not replay.
Expected<ReplayReport> replay_abalone(const std::vector<Json>& log);

}  // namespace arbiter
