// The course's test harnesses (docs/games/q.md §4) as functions from the JSON values read on stdin
// to the one JSON value to print. `arbiter q <name>` wraps each; tests call them directly.
// Bad input gives an Error with a one-line message, never a crash.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
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

// M10, the TCP harnesses (docs/games/q.md §5). All durations in the configs are multiplied by
// `time_scale` (1 = exactly the course's timing; the test suite runs them faster).
struct NetOptions {
  double time_scale = 1.0;
  std::string host = "127.0.0.1";       // where xserver listens
  std::ostream* observe = nullptr;      // the game log, if the ref-spec asks to observe
  std::ostream* diagnostics = nullptr;  // sign-up and client messages unless the config is quiet
  // xserver: connections that have not sent their name held at once, in all and from one
  // address; beyond, a new one replaces the one silent longest (remote/tcp.h's SignUpDesk).
  std::size_t max_pending = 64;
  std::size_t max_pending_per_host = 16;
};

// xserver: ServerConfig -> the Result of the one game it runs, or [[],[]] when fewer than 2
// players sign up (or the sign-ups do not match state0). `port` overrides the config's.
Expected<Json> xserver(const Json& server_config, std::optional<std::uint16_t> port,
                       const NetOptions& options);

// xclients: ClientConfig (+ the optional trailing "divergeBeforeSending" / "sendnameloop")
// -> runs one TCP client per actor, `wait` seconds apart, until every client has finished or
// hangs on purpose. `port` overrides the config's. Returns the clients that never got a
// connection ("NAME: REASON"); an Error for a config it cannot read.
Expected<std::vector<std::string>> xclients(const std::vector<Json>& in,
                                            std::optional<std::uint16_t> port,
                                            const NetOptions& options);

}  // namespace arbiter::q::harness
