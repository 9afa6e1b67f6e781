// A match of Concurrent Abalone between two Lua teams (shared/specs/abalone.md §3-§5): the
// lockstep scheduler. Every clock cycle steps each live, unblocked bot once for STEP_BUDGET
// instructions, black's bots in PID order, then white's; every CYCLES_PER_TURN cycles one team's
// commitments are resolved (black first, then alternating). Bots act on the world through the
// bot API of §4, bound here to each team's Sandbox. Single-threaded and deterministic: the same
// seed and team sources give the same events, byte for byte.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "core/clock.h"
#include "core/json.h"
#include "games/abalone/world.h"

namespace arbiter::abalone {

// The bot runtime's constants of §2 and §5.
struct Runtime {
  int step_budget = 500;   // Lua instructions per bot per cycle
  int action_cost = 10;    // instructions each bot API call costs
  std::size_t memory_limit = std::size_t{64} << 20;  // per team
  Duration watchdog = std::chrono::milliseconds(50);   // wall clock of one step
  const Clock* clock = nullptr;                        // for the watchdog; null = SteadyClock
};

struct TeamProgram {
  std::string name;    // for messages and the log
  std::string source;  // the team's Lua chunk; it returns the team's main function
};

struct MatchEvents {
  // One JSON object per event, in order: "start", "spawn", "talk", "end_bot" (with the why),
  // "resolution", "forfeit", "end". Null: not recorded.
  std::function<void(const Json&)> log;
  // The §7 GUI commands (without newlines), as the world changes. Null: not produced.
  std::function<void(const std::string&)> gui;
};

struct MatchSummary {
  Result result;
  std::array<int, 2> scores{0, 0};  // black, white
  std::array<int, 2> pieces{0, 0};  // live at the end
  std::int64_t cycles = 0;          // cycles run
  std::array<std::string, 2> failure;  // why a team forfeited or could not start, else empty
};

// Plays the match to its end. A team whose chunk does not load (or does not return a function)
// forfeits before the first cycle; so does one whose state runs out of memory or whose step
// outlasts the watchdog. A bot that errors, returns or overruns dies and the enemy scores.
MatchSummary play_match(const Config& config, const Runtime& runtime, std::uint64_t seed,
                        const TeamProgram& black, const TeamProgram& white,
                        const MatchEvents& events = {});

}  // namespace arbiter::abalone
