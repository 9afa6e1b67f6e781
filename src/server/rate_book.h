// RateBook: how many times each key (an author, an address) did something in the last
// `window`, and whether it may once more under `cap`. Keys with nothing left in the window are
// forgotten, and beyond `max_keys` the keys heard from least lately go first (a tenth at a
// time), so a flood of addresses costs bounded memory: at worst one of them is forgiven early.
//
// Thread-safety: none; the caller locks.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <string>

namespace arbiter::server {

class RateBook {
 public:
  using Clock = std::chrono::steady_clock;
  RateBook(std::size_t cap, Clock::duration window, std::size_t max_keys = 20'000)
      : cap_(cap), window_(window), max_keys_(std::max<std::size_t>(max_keys, 10)) {}

  // Counts one for `key` at `now` if it is under the cap; false (nothing counted) if not.
  bool note(const std::string& key, Clock::time_point now);
  // Whether `key` is under the cap at `now`; counts nothing.
  bool under(const std::string& key, Clock::time_point now);
  // Takes back the last count of `key` (what it was counted for did not happen).
  void forget_last(const std::string& key);
  std::size_t keys() const { return times_.size(); }
  std::size_t cap() const { return cap_; }

 private:
  std::size_t count(const std::string& key, Clock::time_point now);
  void forget_old(Clock::time_point now);

  std::size_t cap_;
  Clock::duration window_;
  std::size_t max_keys_;
  std::map<std::string, std::deque<Clock::time_point>> times_;
  std::size_t since_sweep_ = 0;
};

}  // namespace arbiter::server
