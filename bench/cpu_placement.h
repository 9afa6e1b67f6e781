// Where a benchmark and its peer process run. On a VM a round trip costs very different amounts
// depending on whether the peer runs on the same CPU (a context switch) or on another one (a
// cross-CPU wake-up, slow when that virtual CPU was idle), and unpinned the scheduler mixes
// both, so a median flips between the two from run to run. Benchmarks that time round trips run
// each case pinned to one CPU, pinned to two different CPUs, and unpinned.
//
// Every function prints the failing call and exits on error: a benchmark cannot go on unpinned
// while its table says pinned.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace arbiter::bench {

struct Placement {
  std::string name;
  std::optional<int> self_cpu;  // the measuring thread (children inherit it)
  std::optional<int> peer_cpu;  // the peer process or thread, if different
};

// The three placements over the CPUs this program may use (the second only with two CPUs).
// Remembers the starting affinity so that an unpinned placement restores it.
std::vector<Placement> placements();

// Pins thread or process `who` (0 = the calling thread) to `cpu`, or restores the starting
// affinity when `cpu` is empty. REQUIRES: placements() was called.
void set_affinity(pid_t who, const std::optional<int>& cpu);

// The peer at `pid` (a child process) and everything under it go where the placement says: a
// ChildProcess in its own PID namespace is an init that forks the program, so pinning `pid`
// alone would leave the program where it was born. REQUIRES: the tree is complete (the peer
// has answered once).
void place_peer(pid_t pid, const Placement& where);

}  // namespace arbiter::bench
