#include "server/rate_book.h"

#include <vector>

namespace arbiter::server {

std::size_t RateBook::count(const std::string& key, Clock::time_point now) {
  const auto it = times_.find(key);
  if (it == times_.end()) return 0;
  auto& times = it->second;
  while (!times.empty() && now - times.front() >= window_) times.pop_front();
  const std::size_t n = times.size();
  if (n == 0) times_.erase(it);
  return n;
}

// Now and then, every key whose times have all left the window: a flood of one-off addresses
// costs memory for one window at most. Beyond max_keys_, the tenth heard from least lately.
void RateBook::forget_old(Clock::time_point now) {
  if (times_.size() >= max_keys_) since_sweep_ = 1024;
  if (++since_sweep_ < 1024 && since_sweep_ < times_.size()) return;
  since_sweep_ = 0;
  for (auto it = times_.begin(); it != times_.end();) {
    if (it->second.empty() || now - it->second.back() >= window_)
      it = times_.erase(it);
    else
      ++it;
  }
  if (times_.size() < max_keys_) return;
  std::vector<std::pair<Clock::time_point, std::string>> heard;
  heard.reserve(times_.size());
  for (const auto& [key, times] : times_) heard.emplace_back(times.back(), key);
  const auto cut = heard.begin() + static_cast<std::ptrdiff_t>(heard.size() / 10);
  std::nth_element(heard.begin(), cut, heard.end());
  for (auto it = heard.begin(); it != cut; ++it) times_.erase(it->second);
}

void RateBook::forget_last(const std::string& key) {
  if (auto it = times_.find(key); it != times_.end() && !it->second.empty()) {
    it->second.pop_back();
    if (it->second.empty()) times_.erase(it);
  }
}

bool RateBook::note(const std::string& key, Clock::time_point now) {
  forget_old(now);
  if (count(key, now) >= cap_) return false;
  times_[key].push_back(now);
  return true;
}

bool RateBook::under(const std::string& key, Clock::time_point now) {
  return count(key, now) < cap_;
}

}  // namespace arbiter::server
