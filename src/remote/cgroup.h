// ProgramCgroup: a control group of one program player's own, where the kernel lets the referee
// make one: its memory (RAM, including the page cache it causes), its number of processes and
// threads, and the CPU it uses at once are capped by the kernel for the whole process tree, and
// counters tell afterwards whether a cap was hit (an OOM kill; a refused fork). Works on cgroup v1
// (the memory and pids hierarchies) and on cgroup v2 (a delegated subtree with the memory and pids
// controllers). Where neither is writable, ChildProcess falls back to RLIMIT_AS and RLIMIT_NPROC,
// which cap as well but cannot say afterwards that they did.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"

namespace arbiter {

class ProgramCgroup {
 public:
  // A new group under the referee's own, with the given caps (nullopt: none): memory, processes,
  // and CPU in thousandths of a CPU (a quota per 100 ms period, at the same weight as every other
  // program; left out where cpu_available() says no). Fails with a one-line Error when this
  // machine has no writable cgroup with the memory and pids controllers.
  static Expected<std::unique_ptr<ProgramCgroup>> create(
      std::optional<std::uint64_t> memory_bytes, std::optional<std::uint64_t> processes,
      std::optional<std::uint64_t> cpu_millis = {});
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

  // Whether this machine lets the referee make such groups, and if not why (one line).
  static Expected<void> available();
  // Whether their CPU can be capped too (a writable cpu controller), and if not why.
  static Expected<void> cpu_available();

 private:
  ProgramCgroup() = default;
  std::vector<std::string> dirs_;  // created, removed in reverse
  std::vector<int> join_fds_;
  std::string memory_events_;  // the file with the OOM-kill count, and the key before it
  std::string memory_key_;
  std::string pids_events_;
};

}  // namespace arbiter
