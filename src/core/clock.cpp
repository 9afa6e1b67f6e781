#include "core/clock.h"

#include <pthread.h>
#include <time.h>

#include <algorithm>

namespace arbiter {

const SteadyClock& SteadyClock::instance() {
  static const SteadyClock clock;
  return clock;
}

Instant ManualClock::now() const {
  std::lock_guard guard(mu_);
  return now_;
}

void ManualClock::advance(Duration d) {
  std::lock_guard guard(mu_);
  now_ += d;
}

bool ManualClock::wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                             Instant until, const std::function<bool()>& done) const {
  // Polling keeps ManualClock independent of whoever waits on it; tests only.
  while (!done()) {
    if (now() >= until) return done();
    cv.wait_for(lock, std::chrono::milliseconds(1));
  }
  return true;
}

Duration Deadline::remaining() const {
  Duration left =
      std::max(Duration::zero(), std::chrono::duration_cast<Duration>(at_ - clock_->now()));
  if (meter_ != nullptr)
    if (const auto used = meter_->used())
      left = std::min(left, std::max(Duration::zero(), cpu_at_ - *used));
  return left;
}

bool Deadline::cpu_spent() const {
  if (meter_ == nullptr) return false;
  const auto used = meter_->used();
  return used && *used >= cpu_at_;
}

bool Deadline::passed() const {
  return clock_->now() >= at_ || cpu_spent();
}

ThreadCpuMeter ThreadCpuMeter::of(pthread_t thread) {
  clockid_t id{};
  if (::pthread_getcpuclockid(thread, &id) != 0) id = CLOCK_THREAD_CPUTIME_ID;
  return ThreadCpuMeter(id);
}

std::optional<Duration> ThreadCpuMeter::used() const {
  timespec ts{};
  if (::clock_gettime(id_, &ts) != 0) return std::nullopt;
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

Duration thread_cpu_time() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

}  // namespace arbiter
