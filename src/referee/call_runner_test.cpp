#include "referee/call_runner.h"

#include <atomic>
#include <chrono>

#include <gtest/gtest.h>

#include "core/interrupt.h"

namespace arbiter {
namespace {

using namespace std::chrono_literals;

TEST(CallRunner, ThreadedRunsJobsInOrderOnOneThread) {
  CallRunner runner(Isolation::thread);
  std::thread::id first;
  int calls = 0;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(runner.run(
        [&] {
          if (calls == 0) first = std::this_thread::get_id();
          EXPECT_EQ(std::this_thread::get_id(), first);
          ++calls;
        },
        Deadline::after(SteadyClock::instance(), 5s)));
  }
  EXPECT_EQ(calls, 3);
  EXPECT_NE(first, std::this_thread::get_id());
}

TEST(CallRunner, AbandonsAJobThatNeverReturnsAndTellsIt) {
  auto saw_abandon = std::make_shared<std::atomic<bool>>(false);
  {
    CallRunner runner(Isolation::thread);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(runner.run(
        [saw_abandon] {
          hang_until_abandoned();
          saw_abandon->store(call_abandoned());
        },
        Deadline::after(SteadyClock::instance(), 50ms)));
    EXPECT_GE(std::chrono::steady_clock::now() - start, 50ms);
    EXPECT_TRUE(runner.abandoned());
    EXPECT_FALSE(runner.run([] {}, Deadline::after(SteadyClock::instance(), 5s)));
  }
  for (int i = 0; i < 500 && !saw_abandon->load(); ++i) std::this_thread::sleep_for(2ms);
  EXPECT_TRUE(saw_abandon->load());
}

TEST(CallRunner, SurvivesAJobThatIgnoresAbandonment) {
  // A truly runaway call: it never looks at call_abandoned(). The runner must still return at the
  // deadline and its destructor must not wait for the job.
  static auto* gate = new std::atomic<bool>(false);  // leaked on purpose: the job may outlive us
  {
    CallRunner runner(Isolation::thread);
    EXPECT_FALSE(
        runner.run([] { gate->wait(false); }, Deadline::after(SteadyClock::instance(), 20ms)));
  }
  EXPECT_GE(CallRunner::stray_threads(), 1);
  gate->store(true);
  gate->notify_all();
}

TEST(CallRunner, InlineNoticesLatenessAfterTheFact) {
  ManualClock clock;
  CallRunner runner(Isolation::inline_call);
  bool ran = false;
  EXPECT_TRUE(runner.run([&] { ran = true; }, Deadline::after(clock, 1s)));
  EXPECT_TRUE(ran);
  EXPECT_FALSE(runner.run([&] { clock.advance(2s); }, Deadline::after(clock, 1s)));
}

}  // namespace
}  // namespace arbiter
