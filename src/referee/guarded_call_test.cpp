#include "referee/guarded_call.h"

#include <stdexcept>

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

}  // namespace
}  // namespace arbiter
