#include "apps/dominosa_count.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace arbiter::dominosa {
namespace {

constexpr std::int64_t kFirstSlice = 200'000;  // search 0 alone: puzzles that need little search

}  // namespace

CountOutcome count_solutions(const Puzzle& p, const CountOptions& options) {
  const int count = std::max(1, options.searches);
  std::vector<LearningSearch> searches;
  searches.reserve(count);
  for (int i = 0; i < count; ++i)
    searches.emplace_back(p, std::max<std::int64_t>(1, options.limit), static_cast<std::uint64_t>(i));

  std::atomic<bool> stopped = false;
  const StopFn stop = [&] {
    if (stopped.load(std::memory_order_relaxed)) return true;
    if (options.stop && options.stop()) stopped.store(true, std::memory_order_relaxed);
    return stopped.load(std::memory_order_relaxed);
  };
  const auto run_round = [&](int first, int last, std::int64_t slice) {
    const int threads = std::min(std::max(1, options.threads), last - first);
    if (threads <= 1) {
      for (int i = first; i < last; ++i) searches[i].run(-1, stop, slice);
      return;
    }
    std::vector<std::jthread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        for (int i = first + t; i < last; i += threads) searches[i].run(-1, stop, slice);
      });
  };

  CountOutcome out;
  for (int round = 0;; ++round) {
    const bool alone = round == 0;
    run_round(0, alone ? 1 : count, alone ? kFirstSlice : std::max<std::int64_t>(1, options.slice));
    out.effort.rounds = round + 1;
    out.effort.conflicts = 0;
    out.effort.found = 0;
    for (const LearningSearch& s : searches) {
      out.effort.conflicts += s.result().conflicts;
      out.effort.found = std::max(out.effort.found, s.result().count);
    }
    for (int i = 0; i < count; ++i)
      if (searches[i].result().complete) {
        out.result = searches[i].result();
        out.answered_by = i;
        return out;
      }
    if (options.progress) options.progress(out.effort);
    const bool out_of_budget =
        options.max_conflicts >= 0 && out.effort.conflicts >= options.max_conflicts;
    if (stopped.load() || out_of_budget) {
      // Unknown: the search that found most says how many there are at least.
      int best = 0;
      for (int i = 1; i < count; ++i)
        if (searches[i].result().count > searches[best].result().count) best = i;
      out.result = searches[best].result();
      out.result.complete = false;
      return out;
    }
    if (alone || count == 1) continue;
    std::vector<std::vector<SharedClause>> learned(count);
    for (int i = 0; i < count; ++i) learned[i] = searches[i].take_shared();
    for (int i = 0; i < count; ++i) {
      std::vector<SharedClause> from_others;
      for (int j = 0; j < count; ++j)
        if (j != i) from_others.insert(from_others.end(), learned[j].begin(), learned[j].end());
      if (!from_others.empty()) searches[i].add_shared(from_others);
    }
  }
}

}  // namespace arbiter::dominosa
