// Latency: how long each entrant's calls took, for the standings (as fastchess's -show-latency):
// the median and 99th percentile response time, the share of its per-call limit its slow calls
// used, and its timeouts. A match's result carries, per seat, histograms of its calls' wall time
// and (judged on CPU time) CPU time, read from its game log (seat_latency); the standings merge
// them per entrant. Buckets are an eighth of a doubling wide, so a quantile is within 5 %.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/json.h"

namespace arbiter::tournament {

class LatencyHistogram {
 public:
  void add(Duration d);
  void merge(const LatencyHistogram& other);
  std::int64_t count() const { return total_; }
  // The q-quantile (0..1), as the middle of its bucket; nothing when empty.
  std::optional<Duration> quantile(double q) const;

  Json encode() const;  // [[bucket, count], ...]
  // A stored histogram, checked (buckets in range, counts positive and bounded): a result row
  // is not taken on trust.
  static Expected<LatencyHistogram> decode(const Json& j);

 private:
  std::map<int, std::int64_t> counts_;
  std::int64_t total_ = 0;
};

// The "latency" of a match's result: one entry per seat, {"calls", "wall": histogram} and, for
// calls whose CPU time was measured, "cpu": histogram. From the game log's call records; `seats`
// entries (empty histograms for seats without calls).
Json seat_latency(std::string_view log_text, std::size_t seats);

// What the standings show of an entrant's calls.
struct LatencySummary {
  std::int64_t calls = 0;
  std::optional<Duration> median;
  std::optional<Duration> p99;
  // The 99th percentile of what its limit judges (wall or CPU time) as a share of its per-call
  // limit (0..1, above 1 for calls past it).
  std::optional<double> limit_share;
  std::int64_t timeouts = 0;  // matches it ran out of time in (timeout, clock, under load)
};

// The accumulated latency of one entrant.
struct EntrantLatency {
  LatencyHistogram wall;
  LatencyHistogram judged;  // CPU time where the tournament judges it, else wall
  std::int64_t timeouts = 0;
  LatencySummary summary(Duration per_call) const;
};

}  // namespace arbiter::tournament
