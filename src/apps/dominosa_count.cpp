#include "apps/dominosa_count.h"

#include <algorithm>
#include <atomic>
#include <limits>
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
    searches.emplace_back(p, std::max<std::int64_t>(1, options.limit), static_cast<std::uint64_t>(i),
                          count > 1);

  std::atomic<bool> stopped = false;
  const StopFn stop = [&] {
    if (stopped.load(std::memory_order_relaxed)) return true;
    if (options.stop && options.stop()) stopped.store(true, std::memory_order_relaxed);
    return stopped.load(std::memory_order_relaxed);
  };
  // Within a round the answer is the search that finished after the least work of the round
  // (ties: the lower number), kept as work * count + number. A search stops as soon as it can no
  // longer beat the best finish so far. The searches a thread runs take turns in chunks, so a
  // thread finds a finish after about as much work per search as it would alone.
  constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
  std::atomic<std::int64_t> best = kNone;
  const auto key = [count](std::int64_t work, int i) { return work * count + i; };
  std::vector<std::int64_t> begin(count, 0);
  // One chunk of search i's slice; false once the search is out of this round.
  const auto step = [&](int i, std::int64_t slice) {
    const std::int64_t done = searches[i].work() - begin[i];
    if (done >= slice || key(done, i) > best.load() || stopped.load()) return false;
    const StopFn give_way = [&, i] {
      return key(searches[i].work() - begin[i], i) > best.load() || stop();
    };
    const std::int64_t chunk = std::min(slice - done, std::max<std::int64_t>(1, slice / 8));
    if (!searches[i].run(-1, give_way, chunk)) return true;
    const std::int64_t mine = key(searches[i].work() - begin[i], i);
    for (std::int64_t seen = best.load(); mine < seen && !best.compare_exchange_weak(seen, mine);) {
    }
    return false;
  };
  const auto run_round = [&](int last, std::int64_t slice) {
    best.store(kNone);
    for (int i = 0; i < last; ++i) begin[i] = searches[i].work();
    const int threads = std::min(std::max(1, options.threads), last);
    const auto take_turns = [&](int first) {
      std::vector<int> mine;
      for (int i = first; i < last; i += threads) mine.push_back(i);
      while (!mine.empty())
        std::erase_if(mine, [&](int i) { return !step(i, slice); });
    };
    if (threads <= 1) {
      take_turns(0);
      return;
    }
    std::vector<std::jthread> workers;
    for (int t = 0; t < threads; ++t) workers.emplace_back([&, t] { take_turns(t); });
  };

  CountOutcome out;
  for (int round = 0;; ++round) {
    const bool alone = round == 0;
    run_round(alone ? 1 : count, alone ? kFirstSlice : std::max<std::int64_t>(1, options.slice));
    out.effort.rounds = round + 1;
    out.effort.conflicts = 0;
    out.effort.found = 0;
    for (const LearningSearch& s : searches) {
      out.effort.conflicts += s.result().conflicts;
      out.effort.found = std::max(out.effort.found, s.result().count);
    }
    if (best.load() != kNone) {
      out.answered_by = static_cast<int>(best.load() % count);
      out.result = searches[out.answered_by].result();
      return out;
    }
    if (options.progress) options.progress(out.effort);
    const bool out_of_budget =
        options.max_conflicts >= 0 && out.effort.conflicts >= options.max_conflicts;
    if (stop() || out_of_budget) {
      // Unknown: the search that found most says how many there are at least.
      int most = 0;
      for (int i = 1; i < count; ++i)
        if (searches[i].result().count > searches[most].result().count) most = i;
      out.result = searches[most].result();
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
