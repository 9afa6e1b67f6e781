// The one call record of every referee style that calls players (turn-based, and the lockstep
// style's outside teams): the "call" line of the game log (referee/game_log.h).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/ejection.h"
#include "core/json.h"
#include "core/seat.h"

namespace arbiter {

// {"type": "call", "seat", "call", "args"}: what the referee asked, before the answer.
inline Json open_call_record(Seat seat, std::string_view call, Json args) {
  return {{"type", "call"}, {"seat", seat}, {"call", std::string(call)}, {"args", std::move(args)}};
}

// Adds how the call ended: "verdict" ("ok" or the ejection's reason), its "detail" when it
// failed, and "elapsed_us". The caller adds "reply" (the answer as received) before closing.
inline void close_call_record(Json& record, const Ejection* ejection, Duration elapsed) {
  record["verdict"] = ejection != nullptr ? std::string(to_string(ejection->why)) : std::string("ok");
  if (ejection != nullptr) record["detail"] = ejection->detail;
  record["elapsed_us"] = std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count();
}

}  // namespace arbiter
