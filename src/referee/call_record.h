// The one call record of every referee style that calls players (turn-based, and the lockstep
// style's outside teams): the "call" line of the game log (referee/game_log.h).
// A match writes one for every call, so it is built as JSON text rather than as a Json tree;
// text() is byte for byte what dump() writes for the same record (keys in sorted order).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/ejection.h"
#include "core/json.h"
#include "core/seat.h"

namespace arbiter {

class CallRecord {
 public:
  // {"type": "call", "seat", "call", "args"}: what the referee asked, before the answer.
  // `write_args(std::string&)` appends the arguments' JSON text as dump() writes it, straight
  // into the line; the line is built in `buffer` (GameLog::line_buffer(), to reuse its memory).
  template <class WriteArgs>
  CallRecord(Seat seat, std::string_view call, WriteArgs&& write_args, std::string buffer = {})
      : seat_(seat), call_(call), line_(std::move(buffer)) {
    line_.assign("{\"args\":");
    write_args(line_);
  }

  // A clocked match: "clock_us", the seat's bank when the call started.
  void set_clock(Duration remaining);
  // "reply": the answer as received, as JSON text (dump() form).
  void set_reply(std::string reply) { reply_ = std::move(reply); }

  // The whole line, closed with how the call ended: "verdict" ("ok" or the ejection's reason),
  // its "detail" when it failed, "elapsed_us", and "cpu_us" when the CPU time the player used
  // was measured. Once only: the record gives its line away.
  std::string text(const Ejection* ejection, Duration elapsed,
                   std::optional<Duration> cpu = std::nullopt) &&;

 private:
  Seat seat_;
  std::string_view call_;  // the protocol method's name: a literal
  std::string line_;       // the line so far: its opening and the arguments
  std::optional<std::int64_t> clock_us_;
  std::optional<std::string> reply_;
};

}  // namespace arbiter
