// Clock and Deadline: time is injected so that timeout logic can be tested in virtual time and
// so that no rule ever reads the wall clock. SteadyClock is the real monotonic clock; ManualClock
// only moves when told to.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

namespace arbiter {

using Duration = std::chrono::nanoseconds;
using Instant = std::chrono::steady_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Instant now() const = 0;

  // Waits on `cv` (with `lock` held on entry and exit) until `done()` holds or the clock reaches
  // `until`. Returns done(). Thread-safe.
  virtual bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          Instant until, const std::function<bool()>& done) const = 0;
};

// The process's monotonic clock.
class SteadyClock final : public Clock {
 public:
  Instant now() const override { return std::chrono::steady_clock::now(); }
  bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, Instant until,
                  const std::function<bool()>& done) const override {
    return cv.wait_until(lock, until, done);
  }
  static const SteadyClock& instance();
};

// Virtual time for tests: starts at the epoch and moves only by advance(). Waiters notice an
// advance within about a millisecond of real time. Thread-safe.
class ManualClock final : public Clock {
 public:
  Instant now() const override;
  void advance(Duration d);
  bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, Instant until,
                  const std::function<bool()>& done) const override;

 private:
  mutable std::mutex mu_;
  Instant now_{};
};

// CPU time the calling thread has used so far (CLOCK_THREAD_CPUTIME_ID). A few hundred
// nanoseconds a call: for confirming that slow wall time was spent working, not waiting for a
// core.
Duration thread_cpu_time();

// A point in time by which something must happen, on a given clock.
class Deadline {
 public:
  Deadline(const Clock& clock, Instant at) : clock_(&clock), at_(at) {}
  static Deadline after(const Clock& clock, Duration d) { return {clock, clock.now() + d}; }

  const Clock& clock() const { return *clock_; }
  Instant at() const { return at_; }
  bool passed() const { return clock_->now() >= at_; }
  Duration remaining() const;  // zero once passed

 private:
  const Clock* clock_;
  Instant at_;
};

}  // namespace arbiter
