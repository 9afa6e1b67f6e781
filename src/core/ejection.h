// Ejection: a player removed from a match by the referee, with a named reason. The referee turns
// every kind of misbehaviour at its one call point into exactly one Ejection.
#pragma once

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
};

std::string_view to_string(Why why);
std::optional<Why> why_from_string(std::string_view text);

struct Ejection {
  Seat seat = -1;
  Why why = Why::exception;
  std::string call;    // the protocol method during which it happened: "setup", "take_turn", ...
  std::string detail;  // the exception message, the Foul code and detail, ...
  friend bool operator==(const Ejection&, const Ejection&) = default;
};

}  // namespace arbiter
