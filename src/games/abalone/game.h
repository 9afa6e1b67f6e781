// A match of Concurrent Abalone between two Lua teams (docs/games/abalone.md §3-§5): the
// lockstep scheduler. Every clock cycle steps each live, unblocked bot once for STEP_BUDGET
// instructions, black's bots in PID order, then white's; every CYCLES_PER_TURN cycles one team's
// commitments are resolved (black first, then alternating). Bots act on the world through the
// bot API of §4, bound here to each team's Sandbox. Single-threaded and deterministic: the same
// seed and team sources give the same events, byte for byte.
#pragma once

#include <array>
#include <cstdint>
#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/ejection.h"
#include "core/foul.h"
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
  // A step is only judged past the watchdog when its thread also used that much CPU time in
  // the cycle (lua::SandboxOptions::cpu_time), so a busy machine does not make honest teams
  // forfeit. Tests that drive the watchdog with a ManualClock turn this off.
  bool cpu_confirmed_watchdog = true;
};

// §8: one piece's move as an external team commits it.
struct Commitment {
  Pid pid = 0;
  Dir dir = kNoDir;
  friend bool operator==(const Commitment&, const Commitment&) = default;
};

// [{"pid": p, "dir": d}, ...]: pid a positive integer, dir 0..6, no other keys. decode checks
// the shape only; check_commitments judges the answer against the world.
Json encode_commitments(const std::vector<Commitment>& commitments);
Expected<std::vector<Commitment>> decode_commitments(const Json& j);
// Why `team` may not commit these now, or nothing: "not-own-piece" (a PID that is not a live
// piece of the team), "repeated-piece" (a PID listed twice).
std::optional<Foul> check_commitments(const World& w, Team team,
                                      const std::vector<Commitment>& commitments);

// §8's View for `team`: encode_world(w) plus {"team", "turn" (resolutions so far), "cycle"}.
Json encode_view(const World& w, Team team, std::int64_t turn, std::int64_t cycle);

// A team played from outside the sandbox (§8), e.g. a program over the wire. The scheduler asks
// it for the number of pieces to spawn before the first cycle and for its commitments at each of
// its team's resolutions. Either call returns the answer or the Ejection that makes the team
// forfeit (the implementation decodes the answer; the scheduler judges it). Called on the
// scheduler's thread, one call at a time.
class ExternalTeam {
 public:
  virtual ~ExternalTeam() = default;
  virtual std::expected<std::int64_t, Ejection> setup(const Json& view) = 0;
  virtual std::expected<std::vector<Commitment>, Ejection> take_turn(const Json& view) = 0;
  // The team forfeited (a failed call or a foul): why, for the team to hear. Called once; no
  // call follows.
  virtual void ejected(const Ejection& ejection) { (void)ejection; }
};

struct TeamProgram {
  std::string name;    // for messages and the log
  std::string source;  // the team's Lua chunk; it returns the team's main function
  // When set, the team is played from outside instead and `source` is unused. Not owned; must
  // outlive play_match.
  ExternalTeam* external = nullptr;
};

struct MatchEvents {
  // One JSON object per event, in order: "start", "spawn", "talk", "end_bot" (with the why),
  // "resolution", "forfeit", "end" (with the final world). Null: not recorded.
  std::function<void(const Json&)> log;
  // What a viewer draws, one frame per cycle in which the picture changed, the first (cycle 0)
  // the whole board: {"type": "frame", "cycle", "gui": [the §7 commands, without newlines]}.
  // Null: not produced (and not computed).
  std::function<void(const Json&)> frame;
};

struct MatchSummary {
  Result result;
  std::array<int, 2> scores{0, 0};  // black, white
  std::array<int, 2> pieces{0, 0};  // live at the end
  std::int64_t cycles = 0;          // cycles run
  std::array<std::string, 2> failure;  // why a team forfeited or could not start, else empty
  // The same as an Ejection of the team's seat (0 black, 1 white): a chunk that does not load
  // is an exception during "setup", running out of memory an exception during "step", the
  // watchdog a timeout during "step"; an external team's failed call as it was; a rule-breaking
  // answer a foul.
  std::array<std::optional<Ejection>, 2> ejections;
};

// Plays the match to its end. A team whose chunk does not load (or does not return a function)
// forfeits before the first cycle; so does one whose state runs out of memory or whose step
// outlasts the watchdog. A bot that errors, returns or overruns dies and the enemy scores.
// An external team answers setup with 0..max_pieces-1 pieces to spawn (each placed as spawn()
// places it, next to the lowest-PID piece with an empty neighbour) and take_turn with its
// commitments; a failed call or an answer against the rules makes it forfeit.
MatchSummary play_match(const Config& config, const Runtime& runtime, std::uint64_t seed,
                        const TeamProgram& black, const TeamProgram& white,
                        const MatchEvents& events = {});

}  // namespace arbiter::abalone
