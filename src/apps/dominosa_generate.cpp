#include "apps/dominosa_generate.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace arbiter::dominosa {

std::optional<Generated> generate_parallel(const GenerateOptions& options, int threads,
                                           const StopFn& stop) {
  if (threads <= 1 || options.max_attempts <= 1) return generate(options, stop);
  constexpr auto kNone = std::numeric_limits<std::uint64_t>::max();
  const auto limit = static_cast<std::uint64_t>(std::max<std::int64_t>(0, options.max_attempts));
  std::atomic<std::uint64_t> next{0};
  std::atomic<std::uint64_t> best{kNone};  // the smallest successful index so far
  std::atomic<bool> stopped{false};         // `stop` said so: the answer may be wrong, give none
  auto stop_now = [&] {
    if (stopped.load(std::memory_order_relaxed)) return true;
    if (!stop || !stop()) return false;
    stopped.store(true, std::memory_order_relaxed);
    return true;
  };
  std::mutex mutex;                          // guards result
  std::optional<Generated> result;

  auto worker = [&] {
    for (;;) {
      const std::uint64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= limit || i >= best.load(std::memory_order_acquire)) return;
      if (stop_now()) return;
      // Abandon the attempt once a smaller index has succeeded: it could not be chosen.
      const StopFn abandon = [&, i] { return best.load(std::memory_order_relaxed) < i || stop_now(); };
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

}  // namespace arbiter::dominosa
