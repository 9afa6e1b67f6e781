// guarded_call: the ONE place where arbiter calls a player. It runs the call on the seat's
// CallRunner under a deadline and turns every way the call can go wrong (a throw, a PlayerFault,
// no answer in time) into an Ejection; the caller only ever sees a value or an Ejection.
#pragma once

#include <algorithm>
#include <chrono>
#include <exception>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "core/clock.h"
#include "core/ejection.h"
#include "core/interrupt.h"
#include "core/player.h"
#include "core/time_control.h"
#include "referee/call_runner.h"

namespace arbiter {

template <class R>
struct CallOutcome {
  std::expected<R, Ejection> value;
  Duration elapsed{};  // answered in time: at most the allowance (deadline - start)
};

struct Unit {};  // the result of a call that returns nothing

// Runs fn() (which must return R or void) for `seat` during protocol method `call`.
// `fn` must own what it uses (capture by value / shared_ptr): after a timeout it may still be
// running on an abandoned thread when guarded_call has long returned.
// `bank`: in a clocked match, what the player is told of its time bank (call_clock()).
template <class Fn>
auto guarded_call(Seat seat, std::string call, CallRunner& runner, const Deadline& deadline,
                  Fn fn, std::optional<CallClock> bank = std::nullopt) {
  using Raw = std::invoke_result_t<Fn>;
  using R = std::conditional_t<std::is_void_v<Raw>, Unit, Raw>;
  struct Slot {
    std::optional<R> value;
    std::optional<Ejection> ejection;
  };
  auto slot = std::make_shared<Slot>();
  auto job = [slot, fn = std::move(fn), seat, call, deadline, bank]() mutable {
    set_call_deadline(&deadline);
    set_call_clock(bank ? &*bank : nullptr);
    struct Clear {
      ~Clear() {
        set_call_deadline(nullptr);
        set_call_clock(nullptr);
      }
    } clear;
    try {
      if constexpr (std::is_void_v<Raw>) {
        fn();
        slot->value.emplace();
      } else {
        slot->value.emplace(fn());
      }
    } catch (const PlayerFault& fault) {
      slot->ejection = Ejection{seat, fault.why(), call, fault.what()};
    } catch (const std::exception& e) {
      slot->ejection = Ejection{seat, Why::exception, call, e.what()};
    } catch (...) {
      slot->ejection = Ejection{seat, Why::exception, call, "unknown exception"};
    }
  };
  const Clock& clock = deadline.clock();
  const Instant start = clock.now();
  const bool in_time = runner.run(job, deadline);
  CallOutcome<R> out{.value = std::unexpected(Ejection{}), .elapsed = clock.now() - start};
  // An answer in time took at most the allowance; what the referee's thread took to wake up
  // after it is not the player's time (and a replay holds every answer to the limit).
  if (in_time)
    out.elapsed = std::clamp(out.elapsed, Duration::zero(),
                             std::max(Duration::zero(), deadline.at() - start));
  if (!in_time) {
    const auto limit = std::chrono::round<std::chrono::milliseconds>(deadline.at() - start).count();
    out.value = std::unexpected(
        Ejection{seat, Why::timeout, call, "no answer within " + std::to_string(limit) + " ms"});
  } else if (slot->ejection) {
    out.value = std::unexpected(*slot->ejection);
  } else {
    out.value = std::move(*slot->value);
  }
  return out;
}

}  // namespace arbiter
