// What a referee needs to run a match and what it reports back; shared by every referee style.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/ejection.h"
#include "core/host_load.h"
#include "core/json.h"
#include "core/rng.h"
#include "core/seat.h"
#include "core/seed_tree.h"
#include "core/time_control.h"
#include "referee/call_runner.h"
#include "referee/game_log.h"

namespace arbiter {

// What a player's time limits are judged on: the wall clock (the default), or the CPU time its
// calls used, with a wall-clock backstop of RefereeOptions::backstop times the limit (a program
// that sleeps or waits on I/O is still stopped).
enum class LimitBy { wall, cpu };
std::string_view limit_by_name(LimitBy by);  // "wall", "cpu"

struct RefereeOptions {
  Duration per_call = std::chrono::seconds(6);  // the limit for each single call to a player
  Isolation isolation = Isolation::thread;      // see CallRunner
  const Clock* clock = &SteadyClock::instance();
  GameLog* log = nullptr;               // where the match is recorded, if anywhere
  std::uint64_t max_turns = 1'000'000;  // a guard against games that never end
  // A chess clock per seat on top of per_call (core/time_control.h); turn-based matches only.
  std::optional<TimeControl> time_control;
  // A seat's own limits where they differ from the ones above (a tournament entrant's), indexed
  // by seat; an entry that is missing or empty means the common one. Turn-based matches take
  // both, lockstep matches (Abalone) the per-call limit.
  std::vector<std::optional<Duration>> seat_per_call;
  std::vector<std::optional<TimeControl>> seat_time_control;
  // Turn-based matches: each call's CPU time is measured and logged ("cpu_us") where it can be:
  // a program's own cgroup (Player::cpu_meter), the thread running an in-process player.
  bool measure_cpu = true;
  LimitBy limit_by = LimitBy::wall;
  double backstop = kDefaultBackstop;  // with LimitBy::cpu: the wall-clock limit's multiple

  // Limits given in reference seconds (core/calibration.h) were scaled by this machine's factor:
  // the log's header records it ("speed_factor").
  std::optional<double> speed_factor;
  // Where a timeout learns whether the host was overloaded meanwhile (core/host_load.h): then
  // it is Why::timeout_under_load. Null: never.
  const HostLoad* host_load = nullptr;

  static constexpr double kDefaultBackstop = 3.0;
  Duration backstop_of(Duration cpu_limit) const {
    return std::chrono::duration_cast<Duration>(cpu_limit * backstop);
  }

  Duration per_call_of(Seat seat) const {
    const auto i = static_cast<std::size_t>(seat);
    return i < seat_per_call.size() && seat_per_call[i] ? *seat_per_call[i] : per_call;
  }
  const std::optional<TimeControl>& time_control_of(Seat seat) const {
    const auto i = static_cast<std::size_t>(seat);
    return i < seat_time_control.size() && seat_time_control[i] ? seat_time_control[i]
                                                                 : time_control;
  }
  // Whether some seat's limits differ from the common ones.
  bool seats_differ() const {
    for (const auto& d : seat_per_call)
      if (d && *d != per_call) return true;
    for (const auto& tc : seat_time_control)
      if (tc && tc != time_control) return true;
    return false;
  }
};

struct MatchResult {
  Seats winners;                     // game winners whose win call succeeded, in call order
  std::vector<Ejection> ejections;   // in elimination order
  std::vector<std::int64_t> scores;  // by seat
  bool aborted = false;              // the match hit max_turns; no winners then
};

Json encode_result(const MatchResult& result);

}  // namespace arbiter
