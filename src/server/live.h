// Live matches: what the viewer's stream of a running match reads. A LiveObserver attached to a
// match's GameLog (referee/observer.h) copies every line into a LiveMatch twice: as recorded,
// and as a spectator may see it (GameEntry::spectate). Viewers read the spectator lines while
// the match runs and the whole log once its result line is in.
//
// Thread-safety: everything here may be called from any thread. Recording a line takes one
// short lock and never waits for a viewer, so a slow or stalled viewer cannot slow a match.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "arena/registry.h"
#include "core/json.h"
#include "referee/observer.h"

namespace arbiter::server {

class LiveMatch {
 public:
  // When a finished match's whole log may be shown (its seed group is over: other matches dealt
  // from its seed are no longer played); asked again at every request. Empty: at its end.
  using Reveal = std::function<bool()>;

  // `game`: a registry name; an unknown one is shown with everything withheld
  // (arena/spectator.h).
  LiveMatch(std::int64_t id, std::string game, Reveal reveal = {});

  std::int64_t id() const { return id_; }
  const std::string& game() const { return game_; }

  // Records one game-log line (the observer calls this).
  void record(const Json& line);
  // Ends the match without a result line (it failed to start, or was stopped): viewers stop
  // waiting. Idempotent.
  void close();

  struct Chunk {
    std::vector<std::string> lines;  // dumped JSON, one per line, from the asked index on
    bool finished = false;           // the result line is among the lines recorded (or closed)
  };
  // The spectator lines from index `from` on; waits up to `wait` for one when there is none
  // yet and the match is still running.
  Chunk spectator_lines(std::size_t from, std::chrono::milliseconds wait) const;
  // The whole log as recorded, or null while the match runs or is held (it would leak what
  // seats may not see). One copy made once, shared by every viewer who asks.
  std::shared_ptr<const std::vector<std::string>> full_log() const;

  bool finished() const;
  // Finished, but its whole log not shown yet (Reveal).
  bool held() const;
  // {"id", "game", "seats", "lines", "finished", "held"} for the live list.
  Json summary() const;

 private:
  const std::int64_t id_;
  const std::string game_;
  const GameEntry* const entry_;
  const Reveal reveal_;
  mutable std::atomic<bool> revealed_{false};  // reveal_ said yes once: it stays yes
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  std::vector<std::string> full_;
  mutable std::shared_ptr<const std::vector<std::string>> whole_;  // full_ once finished
  std::vector<std::string> public_;
  Json seats_ = Json::array();
  bool finished_ = false;
};

// The live matches of this process, newest last. Finished matches stay listed (their logs are
// in memory) until more than `keep_finished` have finished after them.
class LiveMatches {
 public:
  explicit LiveMatches(std::size_t keep_finished = 64) : keep_finished_(keep_finished) {}

  // A new live match of `game` (registry name; its spectate function is looked up there).
  std::shared_ptr<LiveMatch> start(const std::string& game, LiveMatch::Reveal reveal = {});
  std::shared_ptr<LiveMatch> find(std::int64_t id) const;
  std::vector<std::shared_ptr<LiveMatch>> list() const;

 private:
  const std::size_t keep_finished_;
  mutable std::mutex mu_;
  std::int64_t next_id_ = 1;
  std::vector<std::shared_ptr<LiveMatch>> matches_;
};

// Feeds a LiveMatch from a GameLog: log.watch(observer) before the match starts.
class LiveObserver : public MatchObserver {
 public:
  explicit LiveObserver(std::shared_ptr<LiveMatch> match) : match_(std::move(match)) {}
  ~LiveObserver() override { match_->close(); }
  void on_line(const Json& line) override { match_->record(line); }

 private:
  std::shared_ptr<LiveMatch> match_;
};

}  // namespace arbiter::server
