#include "apps/dominosa_generate.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace arbiter::dominosa {
namespace {

// A fixed pool: run(count, job) calls job(0..count-1) on the pool's threads and the caller and
// returns when all are done. Every worker checks in once per round, so none lingers into the
// next one.
class Pool {
 public:
  explicit Pool(int threads) {
    for (int t = 1; t < threads; ++t) workers_.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      quit_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  void run(int count, const std::function<void(int)>& job) {
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      count_ = count;
      next_.store(0, std::memory_order_relaxed);
      checked_in_ = 0;
      ++round_;
    }
    wake_.notify_all();
    work(job, count);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return checked_in_ == static_cast<int>(workers_.size()); });
  }

 private:
  void work(const std::function<void(int)>& job, int count) {
    for (;;) {
      const int i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= count) return;
      job(i);
    }
  }

  void loop() {
    std::uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return quit_ || round_ != seen; });
      if (quit_) return;
      seen = round_;
      const auto* job = job_;
      const int count = count_;
      lock.unlock();
      work(*job, count);
      lock.lock();
      if (++checked_in_ == static_cast<int>(workers_.size())) done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  int count_ = 0;
  std::atomic<int> next_{0};
  int checked_in_ = 0;
  std::uint64_t round_ = 0;
  bool quit_ = false;
};

std::optional<Generated> by_candidates(const GenerateOptions& options, int threads,
                                       const StopFn& stop) {
  Pool pool(threads);
  Executor executor;
  executor.lanes = threads;
  executor.run = [&pool](int count, const std::function<void(int)>& job) { pool.run(count, job); };
  bool stopped = false;
  const StopFn watch = [&] { return stopped || (stopped = stop && stop()); };
  auto made = generate(options, watch, executor);
  if (stopped) return std::nullopt;
  return made;
}

std::optional<Generated> by_attempts(const GenerateOptions& options, int threads,
                                     const StopFn& stop) {
  constexpr auto kNone = std::numeric_limits<std::uint64_t>::max();
  const auto limit = static_cast<std::uint64_t>(std::max<std::int64_t>(0, options.max_attempts));
  std::atomic<std::uint64_t> next{0};
  std::atomic<std::uint64_t> best{kNone};  // the smallest successful index so far
  std::atomic<bool> stopped{false};        // `stop` said so: the answer may be wrong, give none
  auto stop_now = [&] {
    if (stopped.load(std::memory_order_relaxed)) return true;
    if (!stop || !stop()) return false;
    stopped.store(true, std::memory_order_relaxed);
    return true;
  };
  std::mutex mutex;  // guards result
  std::optional<Generated> result;

  auto worker = [&] {
    for (;;) {
      const std::uint64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= limit || i >= best.load(std::memory_order_acquire)) return;
      if (stop_now()) return;
      // Abandon the attempt once a smaller index has succeeded: it could not be chosen.
      const StopFn abandon = [&, i] {
        return best.load(std::memory_order_relaxed) < i || stop_now();
      };
      auto made = generate_attempt(options, i, abandon);
      if (!made) continue;
      std::lock_guard lock(mutex);
      if (i < best.load(std::memory_order_relaxed)) {
        result = std::move(made);
        best.store(i, std::memory_order_release);
      }
    }
  };

  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (stopped.load()) return std::nullopt;
  return result;
}

}  // namespace

std::optional<Generated> generate_parallel(const GenerateOptions& options, int threads,
                                           const StopFn& stop, ParallelMode mode) {
  if (threads <= 1 || options.max_attempts < 1) {
    bool stopped = false;
    const StopFn watch = [&] { return stopped || (stopped = stop && stop()); };
    auto made = generate(options, watch);
    if (stopped) return std::nullopt;
    return made;
  }
  if (mode == ParallelMode::automatic)
    mode = options.n < 20 ? ParallelMode::attempts : ParallelMode::candidates;
  return mode == ParallelMode::attempts ? by_attempts(options, threads, stop)
                                        : by_candidates(options, threads, stop);
}

}  // namespace arbiter::dominosa
