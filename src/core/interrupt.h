// How code running inside a player call learns that the referee has given up on the call (it
// timed out and the referee moved on). Cooperative only: the referee never relies on it, since a
// runaway in-process player cannot be stopped (untrusted code belongs out of process). Our own
// scripted "loops forever" test players use it so abandoned calls do not burn a core.
#pragma once

#include <atomic>

#include "core/clock.h"

namespace arbiter {

// True once the referee abandoned the call running on this thread. False outside calls.
bool call_abandoned();

// Blocks the calling thread until call_abandoned() (forever outside an abandonable call). This is
// how a scripted player "never returns" without spinning.
void hang_until_abandoned();

// How many threads are inside hang_until_abandoned() right now (lets a host of scripted players
// tell "still working" from "hung on purpose").
int hanging_threads();

// For the thread that runs player calls: `flag` becomes this thread's abandonment flag. The
// setter of the flag must notify_all() on it. REQUIRES: flag outlives the thread's calls.
void bind_abandon_flag(const std::atomic<bool>* flag);

// The deadline of the player call running on this thread, or nullptr outside calls. Players
// that do their own I/O (remote players) bound it by this deadline.
const Deadline* call_deadline();

// Sets (or with nullptr clears) this thread's call deadline; guarded_call does it around a call.
void set_call_deadline(const Deadline* deadline);

}  // namespace arbiter
