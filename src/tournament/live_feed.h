// The live feed: the spectator lines (arena/spectator.h) of the matches a worker is playing,
// written to the store (Store::append_live) so that `arbiter serve` in any process reading the
// store shows those matches live. Only spectator lines are written: a store reader sees of a
// running match no more than a spectator may.
//
// A match never waits on the store: its observer queues each line under a short lock, and
// flush() writes every queued line of every match in one store call (the worker calls it every
// WorkerOptions::live_period from a thread of its own). A write that fails is tried again at
// the next flush with the same line numbers; a match whose queue grows past kMaxQueued (the
// store is down) stops feeding, so memory stays bounded. The results are never affected.
//
// Thread-safety: everything here may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/json.h"
#include "referee/observer.h"
#include "tournament/store.h"

namespace arbiter::tournament {

class LiveFeed {
 public:
  static constexpr std::size_t kMaxQueued = 20'000;

  explicit LiveFeed(Store& store);
  ~LiveFeed();
  LiveFeed(const LiveFeed&) = delete;
  LiveFeed& operator=(const LiveFeed&) = delete;

  // An observer of `job`'s game log (a match of `game`) that queues its spectator lines. When
  // it is destroyed (the match ended), its unwritten lines are dropped and any write of them
  // under way has ended, so a result stored after that finds no line still coming. It may
  // outlive the feed (a match abandoned at its limit); it then queues nothing.
  std::unique_ptr<MatchObserver> watch(const std::string& game, const Job& job);

  // Writes every queued line. Returns the lines written, or the store's error (the lines stay
  // queued).
  Expected<std::int64_t> flush();

  // Flushes that failed so far.
  std::int64_t failures() const;

 private:
  struct Shared;
  class Observer;
  std::shared_ptr<Shared> shared_;
};

}  // namespace arbiter::tournament
