// ProgramCgroup: a control group of one program player's own, where the kernel lets the referee
// make one: its memory (RAM, including the page cache it causes), its number of processes and
// threads, and the CPU it uses at once are capped by the kernel for the whole process tree, and
// counters tell afterwards whether a cap was hit (an OOM kill; a refused fork); it may be pinned to
// CPUs of its own (cpuset), and it counts the CPU time the whole tree used. Works on cgroup v1
// (the memory and pids hierarchies; cpu, cpuacct and cpuset where mounted) and on cgroup v2 (a
// delegated subtree with the memory and pids controllers; cpu and cpuset where delegated). Where
// neither is writable, ChildProcess falls back to RLIMIT_AS and RLIMIT_NPROC, which cap as well but
// cannot say afterwards that they did.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/json.h"

namespace arbiter {

// What a program's group caps (nullopt or empty: not capped).
struct CgroupCaps {
  std::optional<std::uint64_t> memory_bytes;
  std::optional<std::uint64_t> processes;
  // CPU in thousandths of a CPU: a quota per 100 ms period, at the same weight as every other
  // program; left out where cpu_available() says no.
  std::optional<std::uint64_t> cpu_millis;
  // The CPUs it may run on, as the kernel writes a list ("2", "0-1,3"): a cpuset group of its
  // own; create() fails where pin_available() says no.
  std::string cpus;
};

// Besides the caps, every group counts the CPU time its processes use (used(): cpuacct.usage on
// cgroup v1, cpu.stat's usage_usec on v2), where accounting_available().
class ProgramCgroup final : public CpuMeter {
 public:
  // A new group under the referee's own, with the given caps. Fails with a one-line Error when
  // this machine has no writable cgroup with the memory and pids controllers.
  static Expected<std::unique_ptr<ProgramCgroup>> create(const CgroupCaps& caps);
  // Removes the group (its processes must be dead by then; ChildProcess kills them first).
  ~ProgramCgroup();
  ProgramCgroup(const ProgramCgroup&) = delete;
  ProgramCgroup& operator=(const ProgramCgroup&) = delete;

  // Descriptors of the groups' cgroup.procs files, open for writing: the child writes "0" to
  // each (async-signal-safe) to enter the group before it drops its privileges.
  const std::vector<int>& join_fds() const { return join_fds_; }

  // Whether the kernel killed a process of the group for memory; whether it refused a fork or
  // a thread for the process cap. Read from the group's event counters.
  bool memory_hit() const;
  bool processes_hit() const;
  // Whether it has a memory or a process cap whose hits those say.
  bool caps_counted() const { return !memory_events_.empty() || !pids_events_.empty(); }

  // The CPU time the group's processes have used so far (all of them, children and threads
  // too); nullopt without accounting. A read of one small file kept open until freeze().
  // Thread-safe.
  std::optional<Duration> used() const override;
  bool counts_cpu() const { return counts_cpu_; }
  // Whether its CPU quota throttled it at some time (cpu.stat's nr_throttled), or it holds more
  // processes than a program and the init of its PID namespace (forked workers of its own).
  bool contends_with_itself() const override;
  // The processes are dead: keeps the last count and closes its file.
  void freeze();
  // Its processes are in the group (the child ran exec): the files it joined by are closed.
  void joined();

  // Whether this machine lets the referee make such groups, and if not why (one line).
  static Expected<void> available();
  // Whether their CPU can be capped too (a writable cpu controller), and if not why.
  static Expected<void> cpu_available();
  // Whether they count the CPU time their processes use (cpuacct, or cgroup v2), and if not why.
  static Expected<void> accounting_available();
  // Whether they can be pinned to CPUs (a writable cpuset controller), and if not why.
  static Expected<void> pin_available();

 private:
  ProgramCgroup() = default;
  std::vector<std::string> dirs_;  // created, removed in reverse
  std::vector<int> join_fds_;
  mutable std::mutex usage_mu_;  // guards the file against freeze() from another thread
  int usage_fd_ = -1;            // cpuacct.usage (nanoseconds) or cpu.stat (usage_usec)
  bool usage_in_stat_ = false;
  bool counts_cpu_ = false;
  std::optional<Duration> frozen_;
  std::string memory_events_;  // the file with the OOM-kill count, and the key before it
  std::string memory_key_;
  std::string pids_events_;
  std::string cpu_stat_;  // the cpu controller's cpu.stat, with a quota; empty: none
};

}  // namespace arbiter
