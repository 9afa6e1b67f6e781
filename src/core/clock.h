// Clock and Deadline: time is injected so that timeout logic can be tested in virtual time and
// so that no rule ever reads the wall clock. SteadyClock is the real monotonic clock; ManualClock
// only moves when told to.
#pragma once

#include <pthread.h>
#include <time.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>

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

// The CPU time something has used so far: a program player's processes together (its cgroup,
// remote/cgroup.h) or one thread (ThreadCpuMeter). The referee reads it before and after a call,
// and while it waits for one judged on CPU time. Thread-safe: read from any thread.
class CpuMeter {
 public:
  virtual ~CpuMeter() = default;
  // nullopt when it cannot be read (the group is gone); never less than an earlier reading.
  virtual std::optional<Duration> used() const = 0;
  // Whether what it meters competes with itself for CPUs (a program's group throttled by its
  // quota, or running processes besides the program): its waits for a CPU may be its own doing.
  virtual bool contends_with_itself() const { return false; }
};

// The CPU clock of one thread (pthread_getcpuclockid), readable from other threads while the
// thread lives (nullopt after).
class ThreadCpuMeter final : public CpuMeter {
 public:
  static ThreadCpuMeter of(pthread_t thread);
  static ThreadCpuMeter for_this_thread() { return of(::pthread_self()); }
  std::optional<Duration> used() const override;

 private:
  explicit ThreadCpuMeter(clockid_t id) : id_(id) {}
  clockid_t id_;
};

// A point in time by which something must happen, on a given clock; optionally also a CPU
// budget (with_cpu): then it passes at whichever comes first, the wall-clock time (the
// backstop) or the meter reaching its mark.
class Deadline {
 public:
  Deadline(const Clock& clock, Instant at) : clock_(&clock), at_(at) {}
  static Deadline after(const Clock& clock, Duration d) { return {clock, clock.now() + d}; }

  // This deadline, passing also once `meter` reads `cpu_at` or more. REQUIRES: the meter
  // outlives the deadline.
  Deadline with_cpu(const CpuMeter& meter, Duration cpu_at) const {
    Deadline d = *this;
    d.meter_ = &meter;
    d.cpu_at_ = cpu_at;
    return d;
  }

  const Clock& clock() const { return *clock_; }
  Instant at() const { return at_; }  // the wall-clock part
  const CpuMeter* cpu_meter() const { return meter_; }
  Duration cpu_at() const { return cpu_at_; }
  bool passed() const;
  // Zero once passed. With a CPU budget: the lesser of the wall-clock time left and the CPU time
  // left, so a waiter that wakes after it and finds the deadline not passed yet (the program was
  // waiting, not computing) waits again.
  Duration remaining() const;
  // Whether the CPU budget (if any) is spent: the meter reads cpu_at() or more.
  bool cpu_spent() const;

 private:
  const Clock* clock_;
  Instant at_;
  const CpuMeter* meter_ = nullptr;
  Duration cpu_at_{};
};

}  // namespace arbiter
