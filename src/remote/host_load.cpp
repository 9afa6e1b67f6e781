#include "remote/host_load.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace arbiter {

struct ProcHostLoad::Sample {
  Instant at{};
  std::uint64_t pressure_us = 0;  // PSI "some" total
  std::uint64_t steal = 0;        // ticks
  std::uint64_t total = 0;        // ticks, every column of the cpu line
};

namespace {

constexpr auto kPeriod = std::chrono::milliseconds(50);
constexpr std::size_t kSamples = 20 * 60 * 20;  // 20 minutes

// The first bytes of a small /proc file, or nothing.
std::optional<std::string> read_proc(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[1024];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  return std::string(buf, static_cast<std::size_t>(n));
}

std::optional<ProcHostLoad::Sample> read_sample() {
  ProcHostLoad::Sample s;
  s.at = std::chrono::steady_clock::now();
  const auto pressure = read_proc("/proc/pressure/cpu");
  if (!pressure || !pressure->starts_with("some ")) return std::nullopt;
  const auto total_at = pressure->find("total=");
  if (total_at == std::string::npos) return std::nullopt;
  s.pressure_us = std::strtoull(pressure->c_str() + total_at + 6, nullptr, 10);
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice"; guest time is
  // counted in user already.
  if (const auto stat = read_proc("/proc/stat"); stat && stat->starts_with("cpu ")) {
    const char* p = stat->c_str() + 4;
    for (int column = 0; column < 8; ++column) {
      char* end = nullptr;
      const std::uint64_t v = std::strtoull(p, &end, 10);
      if (end == p) break;
      s.total += v;
      if (column == 7) s.steal = v;
      p = end;
    }
  }
  return s;
}

}  // namespace

struct ProcHostLoad::Ring {
  mutable std::mutex mu;
  std::vector<Sample> samples = std::vector<Sample>(kSamples);
  std::size_t next = 0;   // where the next sample goes
  std::size_t count = 0;  // how many are kept

  void add(const Sample& s) {
    std::lock_guard lock(mu);
    samples[next] = s;
    next = (next + 1) % samples.size();
    count = std::min(count + 1, samples.size());
  }

  // The newest sample taken at or before `t`, else the oldest kept one.
  std::optional<Sample> at_or_before(Instant t) const {
    std::lock_guard lock(mu);
    if (count == 0) return std::nullopt;
    const std::size_t oldest = (next + samples.size() - count) % samples.size();
    // Samples are in time order from the oldest: binary search on the ring.
    std::size_t lo = 0, hi = count;  // the first index (from the oldest) taken after t
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (samples[(oldest + mid) % samples.size()].at <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
    return samples[(oldest + (lo == 0 ? 0 : lo - 1)) % samples.size()];
  }
};

ProcHostLoad::ProcHostLoad() : ring_(new Ring) {
  if (auto first = read_sample()) ring_->add(*first);
  std::thread([ring = ring_] {
    for (;;) {
      std::this_thread::sleep_for(kPeriod);
      if (auto s = read_sample()) ring->add(*s);
    }
  }).detach();
}

Expected<void> ProcHostLoad::available() {
  if (!read_sample())
    return fail("no CPU pressure to read (/proc/pressure/cpu: a kernel without PSI, or psi=0)");
  return {};
}

const ProcHostLoad* ProcHostLoad::instance() {
  static const ProcHostLoad* monitor = available() ? new ProcHostLoad : nullptr;
  return monitor;
}

std::optional<LoadReading> ProcHostLoad::over_last(Duration window) const {
  const auto now = read_sample();
  if (!now) return std::nullopt;
  const auto start = ring_->at_or_before(now->at - window);
  if (!start || now->at <= start->at) return std::nullopt;
  const double wall_us = std::chrono::duration<double, std::micro>(now->at - start->at).count();
  LoadReading r;
  r.pressure =
      std::clamp(static_cast<double>(now->pressure_us - start->pressure_us) / wall_us, 0.0, 1.0);
  if (now->total > start->total)
    r.steal = static_cast<double>(now->steal - start->steal) /
              static_cast<double>(now->total - start->total);
  return r;
}

}  // namespace arbiter
