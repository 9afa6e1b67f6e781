// The course's test harnesses (spec q.md §4) as functions from the JSON values read on stdin to
// the one JSON value to print. `arbiter q <name>` wraps each; tests call them directly.
// Bad input gives an Error with a one-line message, never a crash.
#pragma once

#include <chrono>
#include <ostream>
#include <vector>

#include "core/json.h"

namespace arbiter::q::harness {

// M3: JMap, JTile -> [JCoordinate...], every candidate of the tile, row-major.
Expected<Json> xmap(const std::vector<Json>& in);
// M4: JPub, JPlacements -> the extended JMap (canonical order) or false.
Expected<Json> xlegal(const std::vector<Json>& in);
// M5: JMap (after), JPlacements -> Natural, score with Q bonus 6 and no finish bonus.
Expected<Json> xscore(const std::vector<Json>& in);
// M6: JStrategy and JPub in either order -> "pass" | "replace" | J1Placement (one step).
Expected<Json> xstrategy(const std::vector<Json>& in);

struct GameOptions {
  std::chrono::milliseconds per_call{6000};  // the per-call limit that detects looping players
  std::ostream* observe = nullptr;           // if set, the game log is streamed here as it happens
};

// M7: JState, JActors -> Result; bonuses Q 6, finish 6.
Expected<Json> xgames(const std::vector<Json>& in, const GameOptions& options);
// M8: JState, JActors (+ "a cheat") -> Result; bonuses Q 8, finish 4.
Expected<Json> xgames_with_observer(const std::vector<Json>& in, const GameOptions& options);
// M9: JState, JActorsB (+ looping actors) -> Result; bonuses Q 8, finish 4.
Expected<Json> xbaddies(const std::vector<Json>& in, const GameOptions& options);

}  // namespace arbiter::q::harness
