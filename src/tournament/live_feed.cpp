#include "tournament/live_feed.h"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "arena/registry.h"
#include "arena/spectator.h"

namespace arbiter::tournament {

struct LiveFeed::Shared {
  struct Pending {
    std::int64_t job = 0;
    std::int64_t attempt = 0;
    std::int64_t written = 0;          // lines of this match already in the store
    std::vector<std::string> queued;   // the lines after them
    bool overflowed = false;           // stopped feeding: the store fell too far behind
  };
  explicit Shared(Store& s) : store(&s) {}

  Store* store;                 // null once the feed is gone
  mutable std::mutex mu;        // guards everything but the store
  std::mutex writing;           // held while lines are written to the store
  std::map<std::uint64_t, Pending> pending;  // by observer
  std::uint64_t next_key = 1;
  std::int64_t failures = 0;
};

class LiveFeed::Observer final : public MatchObserver {
 public:
  Observer(std::shared_ptr<Shared> shared, std::uint64_t key, const GameEntry* game)
      : shared_(std::move(shared)), key_(key), game_(game) {}

  ~Observer() override {
    {
      std::lock_guard lock(shared_->mu);
      shared_->pending.erase(key_);
    }
    // Wait out a write of this match's lines that is under way.
    std::lock_guard wait(shared_->writing);
  }

  void on_line(const Json& line) override {
    std::string shown = dump(spectator_line(game_, line));
    std::lock_guard lock(shared_->mu);
    auto it = shared_->pending.find(key_);
    if (it == shared_->pending.end() || it->second.overflowed) return;
    if (it->second.queued.size() >= kMaxQueued) {
      it->second.overflowed = true;
      it->second.queued.clear();
      return;
    }
    it->second.queued.push_back(std::move(shown));
  }

 private:
  std::shared_ptr<Shared> shared_;
  const std::uint64_t key_;
  const GameEntry* const game_;
};

LiveFeed::LiveFeed(Store& store) : shared_(std::make_shared<Shared>(store)) {}

LiveFeed::~LiveFeed() {
  std::lock_guard wait(shared_->writing);
  std::lock_guard lock(shared_->mu);
  shared_->store = nullptr;
  shared_->pending.clear();
}

std::unique_ptr<MatchObserver> LiveFeed::watch(const std::string& game, const Job& job) {
  std::lock_guard lock(shared_->mu);
  const std::uint64_t key = shared_->next_key++;
  if (shared_->store != nullptr)
    shared_->pending.emplace(key, Shared::Pending{job.id, job.attempts, 0, {}, false});
  return std::make_unique<Observer>(shared_, key, find_game(game));
}

Expected<std::int64_t> LiveFeed::flush() {
  std::lock_guard writing(shared_->writing);
  std::vector<LiveBatch> batches;
  std::vector<std::uint64_t> keys;
  Store* store = nullptr;
  {
    std::lock_guard lock(shared_->mu);
    store = shared_->store;
    for (const auto& [key, p] : shared_->pending) {
      if (p.queued.empty()) continue;
      batches.push_back({p.job, p.attempt, p.written, p.queued});
      keys.push_back(key);
    }
  }
  if (batches.empty() || store == nullptr) return 0;
  auto stored = store->append_live(batches);
  std::lock_guard lock(shared_->mu);
  if (!stored) {
    ++shared_->failures;
    return std::unexpected(stored.error());
  }
  std::int64_t lines = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto it = shared_->pending.find(keys[i]);
    if (it == shared_->pending.end()) continue;
    // Lines queued during the write stay queued, behind the ones written.
    const std::size_t n = batches[i].lines.size();
    auto& q = it->second.queued;
    q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(std::min(n, q.size())));
    it->second.written += static_cast<std::int64_t>(n);
    lines += static_cast<std::int64_t>(n);
  }
  return lines;
}

std::int64_t LiveFeed::failures() const {
  std::lock_guard lock(shared_->mu);
  return shared_->failures;
}

}  // namespace arbiter::tournament
