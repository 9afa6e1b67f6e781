// How code running inside a player call learns that the referee has given up on the call (it
// timed out and the referee moved on). Cooperative only: the referee never relies on it, since a
// runaway in-process player cannot be stopped (untrusted code belongs out of process). Our own
// scripted "loops forever" test players use it so abandoned calls do not burn a core.
#pragma once

#include <atomic>

namespace arbiter {

// True once the referee abandoned the call running on this thread. False outside calls.
bool call_abandoned();

// Blocks the calling thread until call_abandoned() (forever outside an abandonable call). This is
// how a scripted player "never returns" without spinning.
void hang_until_abandoned();

// For the thread that runs player calls: `flag` becomes this thread's abandonment flag. The
// setter of the flag must notify_all() on it. REQUIRES: flag outlives the thread's calls.
void bind_abandon_flag(const std::atomic<bool>* flag);

}  // namespace arbiter
