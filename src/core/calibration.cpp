#include "core/calibration.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace arbiter {
namespace {

constexpr std::size_t kTable = 1 << 14;  // 64 KiB of 32-bit words: the L2 cache of anything
constexpr int kRounds = 138;

std::uint64_t next(std::uint64_t& s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return s;
}

}  // namespace

std::uint64_t calibration_workload() {
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  std::vector<std::uint32_t> table(kTable);
  std::uint64_t digest = 0;
  for (int round = 0; round < kRounds; ++round) {
    for (auto& v : table) v = static_cast<std::uint32_t>(next(state));
    std::sort(table.begin(), table.end());
    // Probes with data-dependent branches, as a search's move ordering and lookups do.
    for (std::size_t i = 0; i < kTable; ++i) {
      const std::uint32_t key = static_cast<std::uint32_t>(next(state));
      const auto at = std::lower_bound(table.begin(), table.end(), key);
      digest = digest * 31 + (at == table.end() ? 0 : *at % 7) + (key & 1 ? i : 0);
    }
  }
  return digest;
}

Calibration calibrate(int runs) {
  Calibration c;
  c.runs = std::max(1, runs);
  Duration best = Duration::max();
  volatile std::uint64_t sink = 0;
  for (int i = 0; i < c.runs; ++i) {
    const Duration start = thread_cpu_time();
    sink = sink + calibration_workload();
    best = std::min(best, thread_cpu_time() - start);
  }
  c.workload = best;
  c.factor = static_cast<double>(best.count()) / static_cast<double>(kReferenceWorkload.count());
  return c;
}

double this_machine_factor() {
  static const double factor = calibrate().factor;
  return factor;
}

}  // namespace arbiter
