// CpuPool: the CPUs a worker pins its matches' program seats to (--pin --cpus LIST). A match
// takes the CPUs it needs before it starts (cpus_needed) and gives them back when it ends;
// without enough free CPUs it waits rather than share, so a pinned seat never competes with
// another pinned seat for its core. Each program seat runs in a cpuset group of its own
// (remote/cgroup.h) holding its match's CPUs. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace arbiter {
struct GameEntry;  // arena/registry.h
}  // namespace arbiter

namespace arbiter::tournament {

struct TournamentSpec;

// "0,1", "0-3", "0-1,6": the CPUs named, ascending, each once. One-line errors.
Expected<std::vector<int>> parse_cpu_list(std::string_view text);
std::string format_cpu_list(const std::vector<int>& cpus);  // as the kernel writes one: "0-1,6"
// The CPUs this process may run on (its affinity mask).
std::vector<int> allowed_cpus();

// How many CPUs a match of `spec` seating the entrants `seated` (indexes into its players)
// needs pinned: none without program seats (cmd: or bot:); one for a turn-based game, whose
// seats take turns; one per program seat where seats think at once (lockstep and real-time
// games). At most `pool` (a match that needs more shares what there is).
std::size_t cpus_needed(const GameEntry& game, const TournamentSpec& spec,
                        const std::vector<std::size_t>& seated, std::size_t pool);

class CpuPool {
 public:
  // REQUIRES: cpus is not empty.
  explicit CpuPool(std::vector<int> cpus);

  // `n` free CPUs (1 <= n <= size()), taken; waits until there are, or until `give_up()` holds
  // (looked at every 50 ms): then nothing.
  std::optional<std::vector<int>> take(std::size_t n, const std::function<bool()>& give_up);
  void give_back(const std::vector<int>& cpus);

  std::size_t size() const { return all_.size(); }
  const std::vector<int>& cpus() const { return all_; }
  // The most matches that held CPUs at once so far.
  std::size_t peak_holders() const;

 private:
  const std::vector<int> all_;
  mutable std::mutex mu_;
  std::condition_variable freed_;
  std::vector<int> free_;
  std::size_t holders_ = 0;
  std::size_t peak_ = 0;
};

}  // namespace arbiter::tournament
