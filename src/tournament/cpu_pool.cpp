#include "tournament/cpu_pool.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <chrono>

#include <fmt/format.h>

#include "arena/bot_shelf.h"
#include "arena/registry.h"
#include "tournament/spec.h"

namespace arbiter::tournament {
namespace {

// The CPU numbers this kernel can name (CPU_SETSIZE), a bound on any list.
constexpr int kMaxCpu = CPU_SETSIZE - 1;

Expected<int> cpu_number(std::string_view text, std::string_view list) {
  int n = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n < 0 || n > kMaxCpu)
    return fail(fmt::format("--cpus \"{}\": expected CPU numbers from 0 to {}, as 0,1 or 0-3", list,
                            kMaxCpu));
  return n;
}

}  // namespace

Expected<std::vector<int>> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item = text.substr(at, comma - at);
    const std::size_t dash = item.find('-');
    auto first = cpu_number(item.substr(0, dash), text);
    if (!first) return std::unexpected(first.error());
    int last = *first;
    if (dash != std::string_view::npos) {
      auto end = cpu_number(item.substr(dash + 1), text);
      if (!end) return std::unexpected(end.error());
      if (*end < *first)
        return fail(fmt::format("--cpus \"{}\": the range {} runs backwards", text, item));
      last = *end;
    }
    for (int c = *first; c <= last; ++c) cpus.push_back(c);
    at = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  if (std::adjacent_find(cpus.begin(), cpus.end()) != cpus.end())
    return fail(fmt::format("--cpus \"{}\": a CPU is named twice", text));
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

std::size_t cpus_needed(const GameEntry& game, const TournamentSpec& spec,
                        const std::vector<std::size_t>& seated, std::size_t pool) {
  std::size_t programs = 0;
  for (std::size_t e : seated)
    if (e < spec.players.size() &&
        (spec.players[e].bot.starts_with("cmd:") || is_stored_bot(spec.players[e].bot)))
      ++programs;
  if (programs == 0) return 0;
  // Turn-based games (those that take a chess clock) call one seat at a time.
  const std::size_t at_once = game.clocked ? 1 : programs;
  return std::min(at_once, pool);
}

CpuPool::CpuPool(std::vector<int> cpus) : all_(std::move(cpus)), free_(all_) {}

std::optional<std::vector<int>> CpuPool::take(std::size_t n, const std::function<bool()>& give_up) {
  std::unique_lock lock(mu_);
  n = std::clamp<std::size_t>(n, 1, all_.size());
  while (free_.size() < n) {
    if (give_up()) return std::nullopt;
    freed_.wait_for(lock, std::chrono::milliseconds(50));
  }
  // The lowest free CPUs, so that a machine's first cores are used first.
  std::sort(free_.begin(), free_.end());
  std::vector<int> taken(free_.begin(), free_.begin() + static_cast<std::ptrdiff_t>(n));
  free_.erase(free_.begin(), free_.begin() + static_cast<std::ptrdiff_t>(n));
  peak_ = std::max(peak_, ++holders_);
  return taken;
}

void CpuPool::give_back(const std::vector<int>& cpus) {
  {
    std::lock_guard lock(mu_);
    free_.insert(free_.end(), cpus.begin(), cpus.end());
    --holders_;
  }
  freed_.notify_all();
}

std::size_t CpuPool::peak_holders() const {
  std::lock_guard lock(mu_);
  return peak_;
}

}  // namespace arbiter::tournament
