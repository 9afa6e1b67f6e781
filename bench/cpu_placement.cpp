#include "cpu_placement.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace arbiter::bench {
namespace {

cpu_set_t g_original_cpus;  // the affinity the program started with

[[noreturn]] void placement_failed(const char* call) {
  std::fprintf(stderr, "cpu placement: %s: %s\n", call, std::strerror(errno));
  std::exit(1);
}

}  // namespace

void set_affinity(pid_t who, const std::optional<int>& cpu) {
  cpu_set_t set = g_original_cpus;
  if (cpu) {
    CPU_ZERO(&set);
    CPU_SET(*cpu, &set);
  }
  if (::sched_setaffinity(who, sizeof set, &set) < 0) placement_failed("sched_setaffinity");
}

void place_peer(pid_t pid, const Placement& where) {
  if (!where.peer_cpu) return;
  std::vector<pid_t> todo{pid};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    set_affinity(p, where.peer_cpu);
    std::error_code ec;
    for (const auto& task :
         std::filesystem::directory_iterator(fmt::format("/proc/{}/task", p), ec)) {
      std::ifstream children(task.path() / "children");
      for (pid_t c; children >> c;) todo.push_back(c);
    }
  }
}

std::vector<Placement> placements() {
  if (::sched_getaffinity(0, sizeof g_original_cpus, &g_original_cpus) < 0)
    placement_failed("sched_getaffinity");
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &g_original_cpus)) cpus.push_back(c);
  std::vector<Placement> out;
  out.push_back({fmt::format("one CPU (bench and peer on CPU {})", cpus[0]), cpus[0], {}});
  if (cpus.size() >= 2)
    out.push_back({fmt::format("two CPUs (bench on CPU {}, peer on CPU {})", cpus[0], cpus[1]),
                   cpus[0], cpus[1]});
  out.push_back({"unpinned (the scheduler decides)", {}, {}});
  return out;
}

}  // namespace arbiter::bench
