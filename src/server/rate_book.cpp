#include "server/rate_book.h"

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
// costs memory for one window at most.
void RateBook::forget_old(Clock::time_point now) {
  if (++since_sweep_ < 1024 && since_sweep_ < times_.size()) return;
  since_sweep_ = 0;
  for (auto it = times_.begin(); it != times_.end();) {
    if (it->second.empty() || now - it->second.back() >= window_)
      it = times_.erase(it);
    else
      ++it;
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
