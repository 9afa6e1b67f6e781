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
    std::vector<std::string> queued;   // the lines after them, as the log wrote them
    std::vector<std::string> shown;    // the first of them as a spectator sees them (a write
                                       // that failed leaves them here, projected once)
    const GameEntry* game = nullptr;
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
  Observer(std::shared_ptr<Shared> shared, std::uint64_t key)
      : shared_(std::move(shared)), key_(key) {}

  ~Observer() override {
    {
      std::lock_guard lock(shared_->mu);
      shared_->pending.erase(key_);
    }
    // Wait out a write of this match's lines that is under way.
    std::lock_guard wait(shared_->writing);
  }

  // Only the log's own text is kept here: most matches end before the next flush, and their
  // lines are never parsed or projected at all.
  bool wants_text() const override { return true; }
  void on_line(const Json& line) override { on_text(dump(line)); }
  void on_text(std::string_view line) override {
    std::lock_guard lock(shared_->mu);
    auto it = shared_->pending.find(key_);
    if (it == shared_->pending.end() || it->second.overflowed) return;
    if (it->second.queued.size() + it->second.shown.size() >= kMaxQueued) {
      it->second.overflowed = true;
      it->second.queued.clear();
      it->second.shown.clear();
      return;
    }
    it->second.queued.emplace_back(line);
  }

 private:
  std::shared_ptr<Shared> shared_;
  const std::uint64_t key_;
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
  if (shared_->store != nullptr) {
    Shared::Pending p;
    p.job = job.id;
    p.attempt = job.attempts;
    p.game = find_game(game);
    shared_->pending.emplace(key, std::move(p));
  }
  return std::make_unique<Observer>(shared_, key);
}

Expected<std::int64_t> LiveFeed::flush() {
  std::lock_guard writing(shared_->writing);
  std::vector<LiveBatch> batches;
  std::vector<std::uint64_t> keys;
  Store* store = nullptr;
  {
    // Projected under the lock: a match adds its lines meanwhile only after a short wait, and
    // only matches that outlived a flush period get here with lines.
    std::lock_guard lock(shared_->mu);
    store = shared_->store;
    for (auto& [key, p] : shared_->pending) {
      for (const std::string& text : p.queued) {
        // The log wrote this text from JSON; should it not read back, nothing of it is shown.
        auto line = parse_json(text);
        p.shown.push_back(dump(line ? spectator_line(p.game, *line) : Json{{"type", ""}}));
      }
      p.queued.clear();
      if (p.shown.empty()) continue;
      batches.push_back({p.job, p.attempt, p.written, p.shown});
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
    // Only this thread takes from `shown`; lines recorded during the write wait in `queued`.
    const std::size_t n = batches[i].lines.size();
    auto& shown = it->second.shown;
    shown.erase(shown.begin(), shown.begin() + static_cast<std::ptrdiff_t>(std::min(n, shown.size())));
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
