// CallRunner: where one seat's in-process player code runs. In threaded mode each call runs on a
// thread owned by the runner, so the referee can stop waiting at the deadline and abandon a call
// that never returns (the thread is detached and left to itself; cooperative code sees
// call_abandoned()). In inline mode calls run on the caller's thread and a late answer is only
// noticed after it arrives: for trusted house bots in benchmarks and for replays.
// Not thread-safe: one referee thread uses a runner.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "core/clock.h"

namespace arbiter {

enum class Isolation { thread, inline_call };

class CallRunner {
 public:
  explicit CallRunner(Isolation isolation);
  ~CallRunner();
  CallRunner(const CallRunner&) = delete;
  CallRunner& operator=(const CallRunner&) = delete;

  // Runs `job` and waits for it until `deadline`. Returns true if it finished in time (in inline
  // mode: if it finished before the deadline had passed). After a false return in threaded mode
  // the runner is abandoned and every later run() returns false at once.
  // REQUIRES: job does not throw (wrap it; guarded_call does).
  bool run(const std::function<void()>& job, const Deadline& deadline);

  bool abandoned() const { return abandoned_; }

  // Threads abandoned so far by all runners that have not finished their call since.
  static int stray_threads();

 private:
  struct Shared;
  Isolation isolation_;
  std::shared_ptr<Shared> shared_;
  std::thread thread_;
  bool abandoned_ = false;
};

}  // namespace arbiter
