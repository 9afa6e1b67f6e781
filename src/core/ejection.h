// Ejection: a player removed from a match by the referee, with a named reason. The referee turns
// every kind of misbehaviour at its one call point into exactly one Ejection.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/seat.h"

namespace arbiter {

enum class Why {
  exception,  // the call threw (in-process) or the remote side reported an error
  timeout,    // no answer within the per-call limit
  malformed,  // the answer does not decode to the game's Action (wrong JSON shape, garbage)
  foul,       // the answer decodes but breaks a rule (see Foul::code)
  hang_up,    // the channel closed or the process died
  // A program's caps (remote/child_process.h), and the time bank of a clocked match:
  memory_limit,   // the kernel killed it for using more memory than allowed
  process_limit,  // it tried to run more processes or threads than allowed
  output_limit,   // it wrote more than allowed on stdout or stderr
  cpu_limit,      // it used up its CPU time
  time_bank,      // its clock ran out ("time-bank-exhausted")
  // A timeout (or an empty bank) while the host was overloaded (core/host_load.h): not the
  // player's doing; a tournament plays such a match again (at most twice, then it counts).
  timeout_under_load,
};

std::string_view to_string(Why why);
std::optional<Why> why_from_string(std::string_view text);

// The most of a detail an Ejection keeps: a detail may quote what a player sent (a 1 MB number
// in a parse error), and it is written into the log, the result and the notice to the player.
constexpr std::size_t kMaxDetailBytes = 300;

// `detail` cut to kMaxDetailBytes (at a character boundary) with the size it had, or as it is.
std::string bounded_detail(std::string detail);

struct Ejection {
  Ejection() = default;
  Ejection(Seat seat, Why why, std::string call, std::string detail)
      : seat(seat), why(why), call(std::move(call)), detail(bounded_detail(std::move(detail))) {}
  Seat seat = -1;
  Why why = Why::exception;
  std::string call;    // the protocol method during which it happened: "setup", "take_turn", ...
  std::string detail;  // the exception message, the Foul code and detail, ... (bounded)
  friend bool operator==(const Ejection&, const Ejection&) = default;
};

}  // namespace arbiter
