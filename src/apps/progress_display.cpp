#include "apps/progress_display.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include <fmt/format.h>

namespace arbiter::cli {

std::string duration_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<long>(std::llround(seconds));
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

ProgressDisplay::ProgressDisplay(tournament::Store& store, std::int64_t tournament, bool quiet)
    : store_(store), tournament_(tournament), quiet_(quiet), tty_(isatty(STDERR_FILENO) == 1) {
  auto p = store_.progress(tournament_);
  start_done_ = p ? p->done : 0;
  thread_ = std::thread([this] { loop(); });
}

void ProgressDisplay::finish() {
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  wake_.notify_all();
  thread_.join();
  show(true);
}

void ProgressDisplay::loop() {
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, std::chrono::milliseconds(tty_ ? 200 : 1000),
                         [&] { return stopped_; })) {
    lock.unlock();
    show(false);
    lock.lock();
  }
}

void ProgressDisplay::show(bool last) {
  if (quiet_) return;
  auto p = store_.progress(tournament_);
  if (!p) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(p->done - start_done_) / elapsed : 0;
  const double eta = rate > 0 ? static_cast<double>(p->planned - p->done) / rate : NAN;
  const double share = p->planned > 0 ? static_cast<double>(p->done) / p->planned : 1.0;
  const std::string numbers =
      fmt::format("{}/{} matches  {:.0f}/min  ETA {}", p->done, p->planned, rate * 60,
                  p->done >= p->planned ? "0s" : duration_text(eta));
  if (tty_) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(share * kWidth);
    std::fprintf(stderr, "\r[%s%s] %3.0f%%  %s\033[K%s", std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, '.').c_str(), share * 100, numbers.c_str(),
                 last ? "\n" : "");
    std::fflush(stderr);
    return;
  }
  const int tenth = static_cast<int>(share * 10);
  const auto now = std::chrono::steady_clock::now();
  if (last || tenth > last_tenth_ || now - last_line_ > std::chrono::seconds(30)) {
    std::fprintf(stderr, "progress: %s\n", numbers.c_str());
    last_tenth_ = tenth;
    last_line_ = now;
  }
}

}  // namespace arbiter::cli
