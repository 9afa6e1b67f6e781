#include "core/clock.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

using namespace std::chrono_literals;

TEST(ManualClock, MovesOnlyWhenAdvanced) {
  ManualClock clock;
  const Instant t0 = clock.now();
  EXPECT_EQ(clock.now(), t0);
  clock.advance(5s);
  EXPECT_EQ(clock.now() - t0, 5s);
}

TEST(Deadline, PassesInVirtualTime) {
  ManualClock clock;
  const Deadline d = Deadline::after(clock, 6s);
  EXPECT_FALSE(d.passed());
  EXPECT_EQ(d.remaining(), 6s);
  clock.advance(5999ms);
  EXPECT_FALSE(d.passed());
  clock.advance(1ms);
  EXPECT_TRUE(d.passed());
  EXPECT_EQ(d.remaining(), 0s);
}

TEST(ManualClock, WaitEndsWhenVirtualTimeReachesTheDeadline) {
  ManualClock clock;
  std::mutex mu;
  std::condition_variable cv;
  const Instant until = clock.now() + 10s;
  std::thread mover([&] {
    std::this_thread::sleep_for(5ms);
    clock.advance(10s);
  });
  std::unique_lock lock(mu);
  const bool done = clock.wait_until(lock, cv, until, [] { return false; });
  lock.unlock();
  mover.join();
  EXPECT_FALSE(done);
  EXPECT_GE(clock.now(), until);
}

TEST(SteadyClock, WaitReturnsTrueWhenDone) {
  const SteadyClock& clock = SteadyClock::instance();
  std::mutex mu;
  std::condition_variable cv;
  bool flag = false;
  std::thread setter([&] {
    std::lock_guard g(mu);
    flag = true;
    cv.notify_all();
  });
  std::unique_lock lock(mu);
  EXPECT_TRUE(clock.wait_until(lock, cv, clock.now() + 10s, [&] { return flag; }));
  lock.unlock();
  setter.join();
}

}  // namespace
}  // namespace arbiter
