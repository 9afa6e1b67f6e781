#include "tournament/latency.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace arbiter::tournament {
namespace {

constexpr int kPerDoubling = 8;
constexpr int kMaxBucket = 64 * kPerDoubling;  // past any duration in nanoseconds
constexpr std::int64_t kMaxCount = std::int64_t{1} << 40;

int bucket_of(Duration d) {
  const double us = std::max(0.0, std::chrono::duration<double, std::micro>(d).count());
  return std::clamp(static_cast<int>(std::floor(kPerDoubling * std::log2(us + 1))), 0, kMaxBucket);
}

Duration middle_of(int bucket) {
  const double us = std::exp2((bucket + 0.5) / kPerDoubling) - 1;
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double, std::micro>(us));
}

}  // namespace

void LatencyHistogram::add(Duration d) {
  ++counts_[bucket_of(d)];
  ++total_;
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (const auto& [b, n] : other.counts_) counts_[b] += n;
  total_ += other.total_;
}

std::optional<Duration> LatencyHistogram::quantile(double q) const {
  if (total_ == 0) return std::nullopt;
  // Nearest rank, as tournament/worker.h's quantile().
  const auto rank = std::max<std::int64_t>(
      1,
      static_cast<std::int64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(total_))));
  std::int64_t seen = 0;
  for (const auto& [b, n] : counts_) {
    seen += n;
    if (seen >= rank) return middle_of(b);
  }
  return middle_of(counts_.rbegin()->first);
}

Json LatencyHistogram::encode() const {
  Json out = Json::array();
  for (const auto& [b, n] : counts_) out.push_back({b, n});
  return out;
}

Expected<LatencyHistogram> LatencyHistogram::decode(const Json& j) {
  if (!j.is_array() || j.size() > static_cast<std::size_t>(kMaxBucket) + 1)
    return fail("a latency histogram: expected [[bucket, count], ...]");
  LatencyHistogram h;
  for (const Json& pair : j) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
        !pair[1].is_number_integer())
      return fail("a latency histogram: expected [[bucket, count], ...]");
    const auto b = pair[0].get<std::int64_t>();
    const auto n = pair[1].get<std::int64_t>();
    if (b < 0 || b > kMaxBucket || n <= 0 || n > kMaxCount ||
        h.counts_.contains(static_cast<int>(b)))
      return fail("a latency histogram: a bucket or count out of range");
    h.counts_[static_cast<int>(b)] = n;
    h.total_ += n;
  }
  return h;
}

namespace {

// The whole number after the last `"key":` in `line` before `before`, if there is one.
std::optional<std::int64_t> key_int(std::string_view line, std::string_view key, std::size_t before,
                                    std::size_t& at) {
  const std::string pattern = "\"" + std::string(key) + "\":";
  at = line.rfind(pattern, before);
  if (at == std::string_view::npos) return std::nullopt;
  std::int64_t value = 0;
  const char* first = line.data() + at + pattern.size();
  const auto [end, ec] = std::from_chars(first, line.data() + line.size(), value);
  if (ec != std::errc() || end == first) return std::nullopt;
  return value;
}

}  // namespace

Json seat_latency(std::string_view log_text, std::size_t seats) {
  std::vector<LatencyHistogram> wall(seats), cpu(seats);
  std::size_t at = 0;
  while (at < log_text.size()) {
    std::size_t end = log_text.find('\n', at);
    if (end == std::string_view::npos) end = log_text.size();
    const std::string_view line = log_text.substr(at, end - at);
    at = end + 1;
    // A call record's keys are in sorted order (referee/call_record.h), the arguments first:
    // "cpu_us" < "elapsed_us" < ... < "seat" < "type", all after them, found from the end. A
    // player's text in them is a JSON string, its quotes escaped, so it cannot pose as a key.
    if (!line.ends_with("}") ||
        line.find("\"type\":\"call\"", line.size() > 64 ? line.size() - 64 : 0) ==
            std::string_view::npos)
      continue;
    std::size_t seat_at = 0, elapsed_at = 0, cpu_at = 0;
    const auto seat = key_int(line, "seat", line.size(), seat_at);
    if (!seat || *seat < 0 || static_cast<std::size_t>(*seat) >= seats) continue;
    const auto elapsed = key_int(line, "elapsed_us", seat_at, elapsed_at);
    if (!elapsed || *elapsed < 0) continue;
    const auto s = static_cast<std::size_t>(*seat);
    wall[s].add(std::chrono::microseconds(*elapsed));
    if (const auto used = key_int(line, "cpu_us", elapsed_at, cpu_at); used && *used >= 0)
      cpu[s].add(std::chrono::microseconds(*used));
  }
  Json out = Json::array();
  for (std::size_t s = 0; s < seats; ++s) {
    Json entry{{"calls", wall[s].count()}, {"wall", wall[s].encode()}};
    if (cpu[s].count() > 0) entry["cpu"] = cpu[s].encode();
    out.push_back(std::move(entry));
  }
  return out;
}

LatencySummary EntrantLatency::summary(Duration per_call) const {
  LatencySummary s;
  s.calls = wall.count();
  s.median = wall.quantile(0.5);
  s.p99 = wall.quantile(0.99);
  if (const auto judged_p99 = judged.quantile(0.99); judged_p99 && per_call > Duration::zero())
    s.limit_share =
        static_cast<double>(judged_p99->count()) / static_cast<double>(per_call.count());
  s.timeouts = timeouts;
  return s;
}

}  // namespace arbiter::tournament
