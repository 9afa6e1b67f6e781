// TimeControl: a chess clock for every seat of a match (`--clock 60s+1s`). Each seat starts
// with `bank`; every call it answers draws the time it took from the bank, and every move (a
// take-turn) then adds `increment`; a call may take what is left of the bank (and never more
// than the per-call limit); the first call a seat gets may also use `first_grace` without drawing on the bank
// (for starting an interpreter, loading a dictionary). With a `delay`, the first `delay` of
// every call is free (a call's own allowance, Kaggle's actTimeout, with the bank as its
// overage). A call that runs out of bank is the verdict Why::time_bank ("time-bank-exhausted"). The referee's clock is the injected one, so
// every rule is tested in virtual time.
#pragma once

#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/json.h"

namespace arbiter {

struct TimeControl {
  Duration bank{};
  Duration increment{};
  Duration first_grace{};
  Duration delay{};
  friend bool operator==(const TimeControl&, const TimeControl&) = default;
};

// "60s+1s", "10s+0.1s", "5m" (no increment), "60s+1s/5s" (a first-call grace of 5 s),
// "60s+0s~2s" (every call's first 2 s free). One-line errors that show the form.
Expected<TimeControl> parse_time_control(std::string_view text);
std::string format_time_control(const TimeControl& tc);  // parse_time_control's form

// What a player is told when a clocked call starts: what is left of its bank, and what each
// call adds.
struct CallClock {
  Duration remaining{};
  Duration increment{};
};

// The clock of the player call running on this thread, or nullptr (unclocked, or no call).
const CallClock* call_clock();
void set_call_clock(const CallClock* clock);  // guarded_call does it around a call

}  // namespace arbiter
