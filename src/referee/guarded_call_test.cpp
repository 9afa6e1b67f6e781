#include "referee/guarded_call.h"

#include <atomic>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "core/interrupt.h"

namespace arbiter {
namespace {

using namespace std::chrono_literals;

TEST(GuardedCall, ReturnsTheValue) {
  CallRunner runner(Isolation::thread);
  auto out = guarded_call(3, "take_turn", runner, Deadline::after(SteadyClock::instance(), 5s),
                          [] { return 42; });
  ASSERT_TRUE(out.value);
  EXPECT_EQ(*out.value, 42);
}

TEST(GuardedCall, AnExceptionBecomesAnEjection) {
  CallRunner runner(Isolation::thread);
  auto out = guarded_call(1, "setup", runner, Deadline::after(SteadyClock::instance(), 5s),
                          []() -> void { throw std::runtime_error("division by zero"); });
  ASSERT_FALSE(out.value);
  EXPECT_EQ(out.value.error(), (Ejection{1, Why::exception, "setup", "division by zero"}));
}

TEST(GuardedCall, NonStandardExceptionsAreCaughtToo) {
  CallRunner runner(Isolation::inline_call);
  auto out = guarded_call(0, "win", runner, Deadline::after(SteadyClock::instance(), 5s),
                          []() -> void { throw 17; });
  ASSERT_FALSE(out.value);
  EXPECT_EQ(out.value.error().why, Why::exception);
}

TEST(GuardedCall, APlayerFaultKeepsItsReason) {
  CallRunner runner(Isolation::thread);
  auto out = guarded_call(2, "take_turn", runner, Deadline::after(SteadyClock::instance(), 5s),
                          []() -> int { throw PlayerFault(Why::malformed, "not JSON"); });
  ASSERT_FALSE(out.value);
  EXPECT_EQ(out.value.error(), (Ejection{2, Why::malformed, "take_turn", "not JSON"}));
}

TEST(GuardedCall, AHangIsATimeoutAtTheDeadline) {
  CallRunner runner(Isolation::thread);
  auto out = guarded_call(0, "take_turn", runner, Deadline::after(SteadyClock::instance(), 30ms),
                          []() -> int {
                            hang_until_abandoned();
                            return 1;
                          });
  ASSERT_FALSE(out.value);
  EXPECT_EQ(out.value.error().why, Why::timeout);
  EXPECT_EQ(out.value.error().detail, "no answer within 30 ms");
  EXPECT_GE(out.elapsed, 30ms);
}

TEST(GuardedCall, TimeoutInVirtualTime) {
  // The player "takes" seven virtual seconds against a six-second limit.
  ManualClock clock;
  CallRunner runner(Isolation::thread);
  auto out = guarded_call(0, "take_turn", runner, Deadline::after(clock, 6s), [&clock]() -> int {
    clock.advance(7s);
    hang_until_abandoned();
    return 1;
  });
  ASSERT_FALSE(out.value);
  EXPECT_EQ(out.value.error().why, Why::timeout);
}

TEST(GuardedCall, ALateAnswerInlineIsATimeout) {
  ManualClock clock;
  CallRunner runner(Isolation::inline_call);
  auto out = guarded_call(0, "take_turn", runner, Deadline::after(clock, 6s), [&clock] {
    clock.advance(6s);
    return 1;
  });
  ASSERT_FALSE(out.value);
  EXPECT_EQ(out.value.error().why, Why::timeout);
}

// Burns the calling thread's CPU until it has used `d` (or the call is given up).
void spin_for(Duration d) {
  const Duration until = thread_cpu_time() + d;
  while (thread_cpu_time() < until && !call_abandoned()) {
  }
}

TEST(GuardedCallCpu, AnInProcessCallIsMeasuredOnItsThread) {
  CallRunner runner(Isolation::thread);
  auto out = guarded_call(0, "take_turn", runner, Deadline::after(SteadyClock::instance(), 5s), [] {
    spin_for(20ms);
    return 1;
  });
  ASSERT_TRUE(out.value);
  ASSERT_TRUE(out.cpu);
  EXPECT_GE(*out.cpu, 20ms);
  EXPECT_LT(*out.cpu, 2s);
}

TEST(GuardedCallCpu, NotMeasuredWhenToldNot) {
  CallRunner runner(Isolation::inline_call);
  auto out = guarded_call(
      0, "take_turn", runner, Deadline::after(SteadyClock::instance(), 5s), [] { return 1; },
      std::nullopt, CpuRule{.measure = false});
  ASSERT_TRUE(out.value);
  EXPECT_FALSE(out.cpu);
}

// Judged on CPU time, a call that waits (sleeps, blocks on I/O) past its limit is in time, and
// the wall clock stops it only at the backstop.
TEST(GuardedCallCpu, WaitingPastTheLimitIsInTimeBeforeTheBackstop) {
  CallRunner runner(Isolation::thread);
  auto out = guarded_call(
      0, "take_turn", runner, Deadline::after(SteadyClock::instance(), 2s),
      [] {
        std::this_thread::sleep_for(80ms);
        return 7;
      },
      std::nullopt, CpuRule{.limit = 30ms});
  ASSERT_TRUE(out.value) << out.value.error().detail;
  EXPECT_EQ(*out.value, 7);
  EXPECT_GE(out.elapsed, 80ms);
  ASSERT_TRUE(out.cpu);
  EXPECT_LT(*out.cpu, 30ms);
}

TEST(GuardedCallCpu, ComputingPastTheLimitIsATimeoutLongBeforeTheBackstop) {
  CallRunner runner(Isolation::thread);
  auto out = guarded_call(
      2, "take_turn", runner, Deadline::after(SteadyClock::instance(), 5s),
      [] {
        spin_for(10s);
        return 7;
      },
      std::nullopt, CpuRule{.limit = 40ms});
  ASSERT_FALSE(out.value);
  EXPECT_EQ(out.value.error().why, Why::timeout);
  EXPECT_EQ(out.value.error().detail, "no answer within 40 ms of CPU time");
  EXPECT_LT(out.elapsed, 2s);  // stopped by its CPU time, not by the 5 s backstop
}

TEST(GuardedCallCpu, AnAnswerThatUsedTooMuchCpuIsLateInline) {
  CallRunner runner(Isolation::inline_call);
  auto out = guarded_call(
      1, "take_turn", runner, Deadline::after(SteadyClock::instance(), 5s),
      [] {
        spin_for(30ms);
        return 7;
      },
      std::nullopt, CpuRule{.limit = 10ms});
  ASSERT_FALSE(out.value);
  EXPECT_EQ(out.value.error().why, Why::timeout);
  EXPECT_TRUE(out.value.error().detail.starts_with("used ")) << out.value.error().detail;
}

TEST(GuardedCallCpu, TheBackstopStopsACallThatNeverComputes) {
  CallRunner runner(Isolation::thread);
  auto out = guarded_call(
      0, "take_turn", runner, Deadline::after(SteadyClock::instance(), 60ms),
      []() -> int {
        hang_until_abandoned();
        return 1;
      },
      std::nullopt, CpuRule{.limit = 20ms});
  ASSERT_FALSE(out.value);
  EXPECT_EQ(out.value.error().detail,
            "no answer within the wall-clock backstop of 60 ms (20 ms of CPU time allowed)");
}

// A meter the test moves by hand (a program's cgroup count, in virtual time).
class HandMeter final : public CpuMeter {
 public:
  std::optional<Duration> used() const override { return used_.load(); }
  void add(Duration d) { used_.store(used_.load() + d); }

 private:
  std::atomic<Duration> used_{Duration::zero()};
};

TEST(DeadlineCpu, PassesAtTheWallClockOrTheCpuMarkWhicheverComesFirst) {
  ManualClock clock;
  HandMeter meter;
  const Deadline d = Deadline::after(clock, 10s).with_cpu(meter, 2s);
  EXPECT_FALSE(d.passed());
  EXPECT_EQ(d.remaining(), 2s);  // no more CPU than wall time can pass before the mark
  clock.advance(5s);             // waited, not computed
  EXPECT_FALSE(d.passed());
  EXPECT_EQ(d.remaining(), 2s);
  meter.add(1500ms);
  EXPECT_EQ(d.remaining(), 500ms);
  meter.add(500ms);
  EXPECT_TRUE(d.passed());
  EXPECT_TRUE(d.cpu_spent());
  EXPECT_EQ(d.remaining(), Duration::zero());
  const Deadline wall_only = Deadline::after(clock, 1s).with_cpu(meter, 100s);
  clock.advance(1s);
  EXPECT_TRUE(wall_only.passed());
  EXPECT_FALSE(wall_only.cpu_spent());
}

// A program's meter: the deadline its I/O waits under passes when the meter does.
TEST(GuardedCallCpu, AProgramIsJudgedByItsOwnMeter) {
  ManualClock clock;
  HandMeter meter;
  CallRunner runner(Isolation::inline_call);
  auto out = guarded_call(
      0, "take_turn", runner, Deadline::after(clock, 30s),
      [&meter]() -> int {
        meter.add(3s);  // the program computed for 3 s of CPU time...
        if (!call_deadline()->passed()) return 1;
        throw PlayerFault(Why::timeout, "no message before the deadline");
      },
      std::nullopt, CpuRule{.meter = &meter, .limit = 2s});
  ASSERT_FALSE(out.value);
  EXPECT_EQ(out.value.error().detail, "no answer within 2000 ms of CPU time");
  ASSERT_TRUE(out.cpu);
  EXPECT_EQ(*out.cpu, 3s);
}

}  // namespace
}  // namespace arbiter
