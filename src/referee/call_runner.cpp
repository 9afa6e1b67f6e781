#include "referee/call_runner.h"

#include <algorithm>
#include <chrono>

#include "core/interrupt.h"

namespace arbiter {

// What a worker thread and its caller share. The flags are written under `mu` (so a sleeper's
// predicate never misses a change) and read without it while polling; a side that sleeps says so
// under `mu`, and the other wakes it only then. The thread holds its own reference, so an
// abandoned thread never touches freed memory after the runner, the pool and the referee are gone.
struct CallPool::Handoff {
  std::mutex mu;
  std::condition_variable cv;
  std::function<void()> job;
  std::atomic<bool> has_job{false};
  std::atomic<bool> done{false};
  std::atomic<bool> quit{false};
  bool worker_asleep = false;
  bool caller_asleep = false;
  std::atomic<bool> abandoned{false};
};

namespace {

std::atomic<int> g_strays{0};

// How long each side of a handoff polls before it sleeps. The next call or the answer usually
// comes within microseconds, and a sleep and wake-up costs about 15 us on a 2-core machine; a
// longer wait costs at most this much polling (with yields, so a busy core still runs others).
constexpr auto kSpin = std::chrono::microseconds(50);

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Polls `ready` until it holds (true), or `keep_going` fails or kSpin has passed (false).
template <class Ready, class KeepGoing>
bool spin_until(Ready ready, KeepGoing keep_going) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (unsigned i = 1;; ++i) {
    if (ready()) return true;
    relax();
    if (i % 64 == 0) {
      if (!keep_going() || std::chrono::steady_clock::now() >= until) return ready();
      std::this_thread::yield();
    }
  }
}

void work(const std::shared_ptr<CallPool::Handoff>& h) {
  bind_abandon_flag(&h->abandoned);
  for (;;) {
    spin_until([&] { return h->has_job.load() || h->quit.load(); }, [] { return true; });
    std::unique_lock lock(h->mu);
    if (!h->has_job && !h->quit) {
      h->worker_asleep = true;
      h->cv.wait(lock, [&] { return h->has_job.load() || h->quit.load(); });
      h->worker_asleep = false;
    }
    if (h->quit && !h->has_job) return;
    auto job = std::move(h->job);
    h->has_job = false;
    lock.unlock();
    job();
    lock.lock();
    h->done = true;
    const bool wake = h->caller_asleep;
    // The caller sets `abandoned` while it holds `mu`, so this sees it if the call was given up.
    const bool abandoned = h->abandoned.load();
    lock.unlock();
    if (wake) h->cv.notify_all();
    if (abandoned) {
      g_strays.fetch_sub(1);
      return;
    }
  }
}

}  // namespace

struct CallPool::Worker {
  std::shared_ptr<Handoff> handoff = std::make_shared<Handoff>();
  std::thread thread{[h = handoff] { work(h); }};
  ThreadCpuMeter cpu = ThreadCpuMeter::of(thread.native_handle());

  ~Worker() {
    if (!thread.joinable()) return;
    if (handoff->abandoned) {
      thread.detach();
      return;
    }
    {
      std::lock_guard guard(handoff->mu);
      handoff->quit = true;
    }
    handoff->cv.notify_all();
    thread.join();
  }

  // Hands `job` over and waits until it is done (true) or `wall` passes, or with a `cpu_limit`
  // the thread has used that much CPU time (false: the worker is abandoned and must not be used
  // again).
  bool run(const std::function<void()>& job, const Deadline& wall,
           std::optional<Duration> cpu_limit, bool watch_cpu,
           std::optional<Duration>& abandoned_cpu) {
    std::optional<Duration> cpu_start;
    if (cpu_limit || watch_cpu) cpu_start = cpu.used();
    const Deadline deadline =
        cpu_start && cpu_limit ? wall.with_cpu(cpu, *cpu_start + *cpu_limit) : wall;
    Handoff& h = *handoff;
    bool wake = false;
    {
      std::lock_guard guard(h.mu);
      h.job = job;
      h.done = false;
      h.has_job = true;
      wake = h.worker_asleep;
    }
    if (wake) h.cv.notify_all();
    // Polling stops at the deadline; an answer already there counts, as it does when waking.
    if (spin_until([&] { return h.done.load(); }, [&] { return !deadline.passed(); })) return true;
    std::unique_lock lock(h.mu);
    h.caller_asleep = true;
    // Woken early by a CPU budget not yet spent (the call was waiting, not computing): wait on.
    bool finished = false;
    const Clock& clock = deadline.clock();
    do {
      finished =
          clock.wait_until(lock, h.cv, std::min(deadline.at(), clock.now() + deadline.remaining()),
                           [&] { return h.done.load(); });
    } while (!finished && !deadline.passed());
    h.caller_asleep = false;
    if (finished) return true;
    if (cpu_start)
      if (const auto now = cpu.used())
        abandoned_cpu = std::max(Duration::zero(), *now - *cpu_start);
    g_strays.fetch_add(1);
    h.abandoned.store(true, std::memory_order_release);
    h.abandoned.notify_all();
    return false;
  }
};

CallPool::CallPool() = default;
CallPool::~CallPool() = default;

std::unique_ptr<CallPool::Worker> CallPool::take() {
  {
    std::lock_guard guard(mu_);
    if (!idle_.empty()) {
      auto worker = std::move(idle_.back());
      idle_.pop_back();
      return worker;
    }
  }
  return std::make_unique<Worker>();
}

void CallPool::give_back(std::unique_ptr<Worker> worker) {
  std::lock_guard guard(mu_);
  idle_.push_back(std::move(worker));
}

CallRunner::CallRunner(Isolation isolation, std::shared_ptr<CallPool> pool)
    : isolation_(isolation), pool_(std::move(pool)) {
  if (isolation_ == Isolation::thread && !pool_) pool_ = std::make_shared<CallPool>();
}

CallRunner::~CallRunner() = default;

bool CallRunner::run(const std::function<void()>& job, const Deadline& deadline,
                     std::optional<Duration> cpu_limit, bool watch_cpu) {
  if (abandoned_) return false;
  if (isolation_ == Isolation::inline_call) {
    job();
    return !deadline.passed();
  }
  auto worker = pool_->take();
  if (worker->run(job, deadline, cpu_limit, watch_cpu, abandoned_cpu_)) {
    pool_->give_back(std::move(worker));
    return true;
  }
  abandoned_ = true;
  return false;  // the worker's destructor detaches its thread
}

int CallRunner::stray_threads() {
  return g_strays.load();
}

}  // namespace arbiter
