#include "server/live.h"

#include <algorithm>

#include "arena/registry.h"
#include "arena/spectator.h"

namespace arbiter::server {

LiveMatch::LiveMatch(std::int64_t id, std::string game, Reveal reveal)
    : id_(id), game_(std::move(game)), entry_(find_game(game_)), reveal_(std::move(reveal)) {}

void LiveMatch::record(const Json& line) {
  std::string full = dump(line);
  std::string shown_text = dump(spectator_line(entry_, line));
  {
    std::lock_guard lock(mu_);
    if (finished_) return;
    if (line.is_object() && string_or(line, "type") == "match") seats_ = field_or_null(line, "seats");
    full_.push_back(std::move(full));
    public_.push_back(std::move(shown_text));
    if (line.is_object() && string_or(line, "type") == "result") finished_ = true;
  }
  changed_.notify_all();
}

void LiveMatch::close() {
  {
    std::lock_guard lock(mu_);
    finished_ = true;
  }
  changed_.notify_all();
}

LiveMatch::Chunk LiveMatch::spectator_lines(std::size_t from,
                                            std::chrono::milliseconds wait) const {
  std::unique_lock lock(mu_);
  changed_.wait_for(lock, wait, [&] { return finished_ || public_.size() > from; });
  Chunk chunk;
  chunk.finished = finished_;
  for (std::size_t i = from; i < public_.size(); ++i) chunk.lines.push_back(public_[i]);
  return chunk;
}

std::shared_ptr<const std::vector<std::string>> LiveMatch::full_log() const {
  // Asked without the lock: it may read the store.
  if (!finished() || held()) return nullptr;
  std::lock_guard lock(mu_);
  if (!whole_) whole_ = std::make_shared<const std::vector<std::string>>(full_);
  return whole_;
}

bool LiveMatch::finished() const {
  std::lock_guard lock(mu_);
  return finished_;
}

bool LiveMatch::held() const {
  if (!finished() || !reveal_ || revealed_.load()) return false;
  // A group once over stays over: the store is asked until it says so, never after.
  if (reveal_()) {
    revealed_.store(true);
    return false;
  }
  return true;
}

Json LiveMatch::summary() const {
  const bool is_held = held();
  std::lock_guard lock(mu_);
  return {{"id", id_},
          {"game", game_},
          {"seats", seats_},
          {"lines", public_.size()},
          {"finished", finished_},
          {"held", is_held}};
}

std::shared_ptr<LiveMatch> LiveMatches::start(const std::string& game, LiveMatch::Reveal reveal) {
  std::lock_guard lock(mu_);
  auto match = std::make_shared<LiveMatch>(next_id_++, game, std::move(reveal));
  matches_.push_back(match);
  // Forget the oldest finished matches beyond keep_finished_.
  std::size_t finished = 0;
  for (const auto& m : matches_)
    if (m->finished()) ++finished;
  for (auto it = matches_.begin(); it != matches_.end() && finished > keep_finished_;) {
    if ((*it)->finished()) {
      it = matches_.erase(it);
      --finished;
    } else {
      ++it;
    }
  }
  return match;
}

std::shared_ptr<LiveMatch> LiveMatches::find(std::int64_t id) const {
  std::lock_guard lock(mu_);
  for (const auto& m : matches_)
    if (m->id() == id) return m;
  return nullptr;
}

std::vector<std::shared_ptr<LiveMatch>> LiveMatches::list() const {
  std::lock_guard lock(mu_);
  return matches_;
}

}  // namespace arbiter::server
