// Speed Scrabble's tile distributor under contention (docs/games/speed_scrabble.md §2): threads
// hammer try_get_tile on one shared distributor. The lock-free seed design (one acquire load per
// call) against the same interface guarded by a std::mutex and by a std::shared_mutex (readers take
// it shared). See docs/benchmarks.md.
#include <benchmark/benchmark.h>

#include <mutex>
#include <optional>
#include <random>
#include <shared_mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/seat.h"
#include "games/speed_scrabble/distributor.h"

namespace arbiter::speed_scrabble {
namespace {

// The same interface and semantics as Distributor, every call under one std::mutex.
class MutexDistributor {
 public:
  MutexDistributor(std::vector<std::string> dealt, int start)
      : dealt_(std::move(dealt)),
        players_(static_cast<int>(dealt_.size())),
        hand_(static_cast<int>(dealt_.front().size())),
        start_(start),
        valid_(hand_ + 1, false) {}

  std::optional<char> try_get_tile(int k, Seat p) const {
    std::lock_guard lock(mutex_);
    if (k < 1 || k > hand_ || p < 0 || p >= players_) return std::nullopt;
    if (k > start_ && !valid_[k - 1]) return std::nullopt;
    return dealt_[p][k - 1];
  }
  bool unlock(int k) {
    std::lock_guard lock(mutex_);
    if (k < 1 || k > hand_ || valid_[k]) return false;
    valid_[k] = true;
    return true;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> dealt_;
  int players_, hand_, start_;
  std::vector<bool> valid_;
};

// The same with a reader-writer lock: try_get_tile takes it shared, unlock exclusive.
class SharedMutexDistributor {
 public:
  SharedMutexDistributor(std::vector<std::string> dealt, int start)
      : dealt_(std::move(dealt)),
        players_(static_cast<int>(dealt_.size())),
        hand_(static_cast<int>(dealt_.front().size())),
        start_(start),
        valid_(hand_ + 1, false) {}

  std::optional<char> try_get_tile(int k, Seat p) const {
    std::shared_lock lock(mutex_);
    if (k < 1 || k > hand_ || p < 0 || p >= players_) return std::nullopt;
    if (k > start_ && !valid_[k - 1]) return std::nullopt;
    return dealt_[p][k - 1];
  }
  bool unlock(int k) {
    std::unique_lock lock(mutex_);
    if (k < 1 || k > hand_ || valid_[k]) return false;
    valid_[k] = true;
    return true;
  }

 private:
  mutable std::shared_mutex mutex_;
  std::vector<std::string> dealt_;
  int players_, hand_, start_;
  std::vector<bool> valid_;
};

// glibc takes a cheaper, non-atomic path for a mutex while the process has never started a
// thread, which made the single-threaded mutex figures depend on whether a multi-threaded
// benchmark ran before them. A referee is always multi-threaded: start (and join) one thread
// before any benchmark runs.
const bool kProcessIsMultiThreaded = [] {
  std::thread([] {}).join();
  return true;
}();

constexpr int kPlayers = 8;
constexpr int kHand = 15;
constexpr int kStart = 7;
constexpr int kUnlockedThrough = 10;  // valid[7..10] set: ordinals 1..11 available, 12..15 not

// One distributor per implementation, shared by all benchmark threads: 8 players, a standard
// hand of 15, start 7, mid-game (four valid boards accepted, 7- to 10-boards).
std::vector<std::string> random_deal() {
  std::mt19937 rng(2007);
  std::vector<std::string> dealt(kPlayers);
  for (std::string& tiles : dealt) {
    for (int k = 0; k < kHand; ++k) tiles += static_cast<char>('A' + rng() % 26);
  }
  return dealt;
}

template <class D>
D& shared_distributor() {
  static D d(random_deal(), kStart);
  return d;
}

template <class D>
void prepare() {
  D& d = shared_distributor<D>();
  for (int k = kStart; k <= kUnlockedThrough; ++k) d.unlock(k);
}

// Each thread plays one seat (thread i reads seat i mod 8) and asks for every ordinal in turn,
// 1..15, so 11 of 15 calls return a tile and 4 find it locked. One iteration is 15 calls;
// items_per_second is try_get_tile calls per second summed over all threads (real time).
template <class D>
void BM_TryGetTile(benchmark::State& state) {
  if (state.thread_index() == 0) prepare<D>();
  const D& d = shared_distributor<D>();
  const Seat seat = state.thread_index() % kPlayers;
  int hits = 0;
  for (auto _ : state) {
    for (int k = 1; k <= kHand; ++k) {
      const std::optional<char> tile = d.try_get_tile(k, seat);
      benchmark::DoNotOptimize(tile);
      hits += tile.has_value();
    }
  }
  state.SetItemsProcessed(state.iterations() * kHand);
  state.counters["hit_rate"] = benchmark::Counter(
      static_cast<double>(hits) / static_cast<double>(state.iterations() * kHand),
      benchmark::Counter::kAvgThreads);
}

BENCHMARK_TEMPLATE(BM_TryGetTile, Distributor)
    ->Name("BM_TryGetTile/lock_free")
    ->Threads(1)
    ->Threads(2)
    ->Threads(4)
    ->Threads(8)
    ->UseRealTime();
BENCHMARK_TEMPLATE(BM_TryGetTile, MutexDistributor)
    ->Name("BM_TryGetTile/mutex")
    ->Threads(1)
    ->Threads(2)
    ->Threads(4)
    ->Threads(8)
    ->UseRealTime();
BENCHMARK_TEMPLATE(BM_TryGetTile, SharedMutexDistributor)
    ->Name("BM_TryGetTile/shared_mutex")
    ->Threads(1)
    ->Threads(2)
    ->Threads(4)
    ->Threads(8)
    ->UseRealTime();

}  // namespace
}  // namespace arbiter::speed_scrabble
