// StepAlarm: makes a Lua step that outlasts its watchdog meet the sandbox's hook at its next
// line, instead of at the end of its count slice.
//
// The sandbox looks at the watchdog in its count hook, once per slice of instructions, and one
// VM instruction can take tens of milliseconds (comparing strings of many MiB made of '\0').
// So that slices can be long (the hook's price falls with their length) while a loop of such
// instructions still stops soon after the watchdog, a watcher thread rings the stepping
// thread's alarm once its step has run for `limit` of real time (the kernel's coarse monotonic
// clock, looked at every 5 ms). The ring is a signal whose handler turns on the line hook of the
// stepping lua_State, as lua.c does for Ctrl-C (Lua allows lua_sethook in a signal handler). The
// handler gives lua_sethook the countdown it finds, so the count hook fires exactly when it
// would have and budgets stay exact: a ring changes no count and no outcome, only how soon the
// hook looks at the clock. What a ring cannot reach is a run of slow instructions on one line
// with no jump back: that still waits for the end of its slice.
//
// Contract for the stepping thread (Bot::step): arm() before lua_resume, disarm() after it, and
// every lua_sethook of the armed lua_State by the thread itself inside a Hold, so that the
// handler never runs in the middle of one (a ring during a Hold is dropped; the watcher rings
// again 5 ms later until a ring lands). A ring carries the due time of the step it was sent
// for, so one that arrives after that step has ended is ignored by the next.
#pragma once

#include <pthread.h>

#include <chrono>

#include <lua.hpp>

#include "lua/countdown.h"

namespace arbiter::lua {

class StepAlarm {
 public:
  // Rings `L` (a coroutine this thread is about to step) once `limit` has passed, until
  // disarm(). The first use on a thread registers it with the watcher, which starts, with its
  // signal handler, on the first use in the process; if either cannot be set up, nothing rings
  // and the sandbox relies on its slices alone.
  // REQUIRES: `countdown` reads L's count hook countdown and outlives the step; L's count hook
  // is set.
  static void arm(lua_State* L, const Countdown& countdown, std::chrono::milliseconds limit);
  // Rings the armed step again once `delay` has passed (after a ring that found it only kept
  // waiting). Does nothing when no step is armed.
  static void rearm(std::chrono::milliseconds delay);
  // Stops ringing. A rung lua_State may keep its line hook: the caller takes it off (inside a
  // Hold) before stepping it again.
  static void disarm();

  // The signal the watcher rings with (a real-time signal the process does not otherwise use).
  static int signal_number();
  // Rings `thread`'s armed step now, whatever its due time: for tests that ring at random
  // moments. False if the signal could not be sent.
  static bool ring_now(pthread_t thread);

  // Keeps the handler off the armed lua_State while this thread sets its hook.
  class Hold {
   public:
    Hold();
    ~Hold();
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
  };
};

}  // namespace arbiter::lua
