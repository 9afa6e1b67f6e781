// ProgressDisplay: a tournament's progress as it is played, read from its store: a bar redrawn
// in place on a terminal, a plain line at every tenth (and at least every 30 s) otherwise.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "tournament/store.h"

namespace arbiter::cli {

// "42s", "3m07s", "1h05m"; "?" for what is not a time.
std::string duration_text(double seconds);

// Shows the progress on stderr from a thread of its own, until finish() (or destruction), which
// shows it a last time. Nothing when `quiet`.
class ProgressDisplay {
 public:
  ProgressDisplay(tournament::Store& store, std::int64_t tournament, bool quiet);
  ~ProgressDisplay() { finish(); }
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;
  void finish();

 private:
  void loop();
  void show(bool last);

  tournament::Store& store_;
  std::int64_t tournament_;
  bool quiet_;
  bool tty_;
  std::int64_t start_done_ = 0;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_line_ = start_;
  int last_tenth_ = 0;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace arbiter::cli
