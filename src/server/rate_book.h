// RateBook: how many times each key (an author, an address) did something in the last
// `window`, and whether it may once more under `cap`. Keys with nothing left in the window are
// forgotten, so the book stays as big as its recent callers.
//
// Thread-safety: none; the caller locks.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <string>

namespace arbiter::server {

class RateBook {
 public:
  using Clock = std::chrono::steady_clock;
  RateBook(std::size_t cap, Clock::duration window) : cap_(cap), window_(window) {}

  // Counts one for `key` at `now` if it is under the cap; false (nothing counted) if not.
  bool note(const std::string& key, Clock::time_point now);
  // Whether `key` is under the cap at `now`; counts nothing.
  bool under(const std::string& key, Clock::time_point now);
  std::size_t cap() const { return cap_; }

 private:
  std::size_t count(const std::string& key, Clock::time_point now);
  void forget_old(Clock::time_point now);

  std::size_t cap_;
  Clock::duration window_;
  std::map<std::string, std::deque<Clock::time_point>> times_;
  std::size_t since_sweep_ = 0;
};

}  // namespace arbiter::server
