// CallRunner: where one seat's in-process player code runs. In threaded mode each call runs on a
// worker thread, so the referee can stop waiting at the deadline and abandon a call that never
// returns (the thread is detached and left to itself; cooperative code sees call_abandoned()). In
// inline mode calls run on the caller's thread and a late answer is only noticed after it
// arrives: for trusted house bots in benchmarks and for replays.
//
// Worker threads come from a CallPool, which runners may share: the seats of a turn-based match
// take turns, so one warm worker serves them all and a call costs a handoff between two running
// threads (well under a microsecond) rather than waking a sleeping one (about 15 us). A worker
// whose call is abandoned never returns to the pool; the next call gets a fresh one.
// Not thread-safe: one referee thread uses a runner. A pool may be shared by runners used from
// several threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/clock.h"

namespace arbiter {

enum class Isolation { thread, inline_call };

// Idle worker threads. Destroying the pool stops and joins the idle ones; a worker in use by a
// runner is given back or abandoned by it.
class CallPool {
 public:
  CallPool();
  ~CallPool();
  CallPool(const CallPool&) = delete;
  CallPool& operator=(const CallPool&) = delete;

  struct Handoff;  // what a worker thread and its caller share (call_runner.cpp)
  struct Worker;
  // An idle worker (the one used last, which may still be polling for work), or a new one.
  std::unique_ptr<Worker> take();
  void give_back(std::unique_ptr<Worker> worker);

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<Worker>> idle_;
};

class CallRunner {
 public:
  // Threaded runners without a pool get one of their own.
  explicit CallRunner(Isolation isolation, std::shared_ptr<CallPool> pool = nullptr);
  ~CallRunner();
  CallRunner(const CallRunner&) = delete;
  CallRunner& operator=(const CallRunner&) = delete;

  // Runs `job` and waits for it until `deadline`. Returns true if it finished in time (in inline
  // mode: if it finished before the deadline had passed). After a false return in threaded mode
  // the runner is abandoned and every later run() returns false at once.
  // `cpu_limit`: in threaded mode the call is also given up once the thread running it has used
  // this much CPU time (its thread CPU clock), `deadline` being the wall-clock backstop; inline
  // calls are judged afterwards by whoever measured them.
  // REQUIRES: job does not throw (wrap it; guarded_call does).
  // `watch_cpu`: in threaded mode, read the CPU clock of the thread of a call that is given up
  // (abandoned_cpu()).
  bool run(const std::function<void()>& job, const Deadline& deadline,
           std::optional<Duration> cpu_limit = std::nullopt, bool watch_cpu = false);

  bool abandoned() const { return abandoned_; }
  // With watch_cpu, the CPU clock of the thread of the call given up, read then (the CPU time
  // that thread had used in all; the call's share is this less the clock at its start).
  std::optional<Duration> abandoned_cpu() const { return abandoned_cpu_; }

  // Threads abandoned so far by all runners that have not finished their call since.
  static int stray_threads();

 private:
  Isolation isolation_;
  std::shared_ptr<CallPool> pool_;
  bool abandoned_ = false;
  std::optional<Duration> abandoned_cpu_;
};

}  // namespace arbiter
