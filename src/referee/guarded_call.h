// guarded_call: the ONE place where arbiter calls a player. It runs the call on the seat's
// CallRunner under a deadline and turns every way the call can go wrong (a throw, a PlayerFault,
// no answer in time) into an Ejection; the caller only ever sees a value or an Ejection.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include <fmt/format.h>

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
  // The CPU time the player used during the call, where it was measured (CpuRule::measure) and
  // could be: its program's cgroup, or the thread that ran it in process.
  std::optional<Duration> cpu;
};

// How a call's CPU time is measured and judged.
struct CpuRule {
  bool measure = true;
  // The player's own meter (a program's cgroup: Player::cpu_meter()); null: the CPU clock of the
  // thread that runs the call (in-process players).
  const CpuMeter* meter = nullptr;
  // Judge the call on CPU time: it may use at most this much, the deadline being the
  // wall-clock backstop; past it the verdict is a timeout.
  std::optional<Duration> limit;
};

struct Unit {};  // the result of a call that returns nothing

// Runs fn() (which must return R or void) for `seat` during protocol method `call`.
// `fn` must own what it uses (capture by value / shared_ptr): after a timeout it may still be
// running on an abandoned thread when guarded_call has long returned.
// `bank`: in a clocked match, what the player is told of its time bank (call_clock()).
// `cpu`: how its CPU time is measured (CallOutcome::cpu) and whether the call is judged on it.
template <class Fn>
auto guarded_call(Seat seat, std::string call, CallRunner& runner, const Deadline& deadline, Fn fn,
                  std::optional<CallClock> bank = std::nullopt, CpuRule cpu = {}) {
  using Raw = std::invoke_result_t<Fn>;
  using R = std::conditional_t<std::is_void_v<Raw>, Unit, Raw>;
  struct Slot {
    std::optional<R> value;
    std::optional<Ejection> ejection;
    std::optional<Duration> cpu;  // measured by the thread that ran the call
    // That thread's CPU clock when the call began (-1: not yet), for a call given up on.
    std::atomic<std::int64_t> cpu_start_ns{-1};
  };
  const bool thread_measures = cpu.meter == nullptr && (cpu.measure || cpu.limit);
  std::optional<Duration> cpu_before;
  if (cpu.meter != nullptr && (cpu.measure || cpu.limit)) cpu_before = cpu.meter->used();
  // A program's I/O waits under this deadline, so it gives up once the CPU budget is spent.
  const Deadline bound =
      cpu.limit && cpu_before ? deadline.with_cpu(*cpu.meter, *cpu_before + *cpu.limit) : deadline;
  auto slot = std::make_shared<Slot>();
  auto job = [slot, fn = std::move(fn), seat, call, bound, bank, thread_measures]() mutable {
    set_call_deadline(&bound);
    set_call_clock(bank ? &*bank : nullptr);
    const Duration cpu_start = thread_measures ? thread_cpu_time() : Duration::zero();
    if (thread_measures) slot->cpu_start_ns.store(cpu_start.count(), std::memory_order_relaxed);
    struct Clear {
      ~Clear() {
        set_call_deadline(nullptr);
        set_call_clock(nullptr);
      }
    } clear;
    struct Measure {
      Slot& slot;
      bool on;
      Duration start;
      ~Measure() {
        if (on) slot.cpu = thread_cpu_time() - start;
      }
    } measure{*slot, thread_measures, cpu_start};
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
  bool in_time =
      runner.run(job, bound, cpu.meter == nullptr ? cpu.limit : std::nullopt, thread_measures);
  CallOutcome<R> out{.value = std::unexpected(Ejection{}), .elapsed = clock.now() - start};
  if (cpu_before) {
    if (const auto after = cpu.meter->used())
      out.cpu = std::max(Duration::zero(), *after - *cpu_before);
  } else if (thread_measures) {
    // A call given up on is still running on its thread: what it used by then.
    if (!runner.abandoned()) {
      out.cpu = slot->cpu;
    } else if (const auto clock_now = runner.abandoned_cpu()) {
      const std::int64_t began = slot->cpu_start_ns.load(std::memory_order_relaxed);
      out.cpu =
          began < 0 ? Duration::zero() : std::max(Duration::zero(), *clock_now - Duration(began));
    }
  }
  const bool wall_passed = clock.now() >= deadline.at();
  // An answer in time took at most the allowance; what the referee's thread took to wake up
  // after it is not the player's time (and a replay holds every answer to the limit).
  if (in_time)
    out.elapsed = std::clamp(out.elapsed, Duration::zero(),
                             std::max(Duration::zero(), deadline.at() - start));
  // Judged on CPU time: an answer that came in time by the wall clock but used more CPU than
  // allowed (several threads, or the last stretch between two looks at the meter) is late.
  const bool over_cpu = cpu.limit && out.cpu && *out.cpu > *cpu.limit;
  const bool answered_late = in_time && over_cpu;
  if (over_cpu) in_time = false;
  if (!in_time) {
    const auto ms = [](Duration d) {
      return std::chrono::round<std::chrono::milliseconds>(d).count();
    };
    std::string detail = fmt::format("no answer within {} ms", ms(deadline.at() - start));
    if (cpu.limit && !wall_passed)
      detail = answered_late ? fmt::format("used {} ms of CPU time, past the limit of {} ms",
                                           ms(*out.cpu), ms(*cpu.limit))
                             : fmt::format("no answer within {} ms of CPU time", ms(*cpu.limit));
    else if (cpu.limit)
      detail = fmt::format(
          "no answer within the wall-clock backstop of {} ms ({} ms of CPU time "
          "allowed)",
          ms(deadline.at() - start), ms(*cpu.limit));
    out.value = std::unexpected(Ejection{seat, Why::timeout, call, std::move(detail)});
  } else if (slot->ejection) {
    out.value = std::unexpected(*slot->ejection);
  } else {
    out.value = std::move(*slot->value);
  }
  return out;
}

}  // namespace arbiter
