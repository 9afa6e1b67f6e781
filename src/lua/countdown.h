// How many instructions a Lua thread has left before its count hook fires.
//
// Lua keeps this countdown private (lua_State::hookcount); the public API can only set it
// (lua_sethook). Reading it lets the sandbox arm the count hook once per budget slice instead of
// once per instruction and still know, at any moment, exactly how many instructions a bot has
// run (for charges and for steps that end early).
//
// The field's place in lua_State is found once per process by probing a scratch Lua state:
// the countdown must take the values lua_sethook gives it and fall by exactly one per
// instruction, as a count-1 hook counts them on the same code. If the probe fails (another Lua
// build or layout), countdown_readable() is false and the sandbox arms its hook on every
// instruction, as exact as before and slower.
#pragma once

#include <lua.hpp>

namespace arbiter::lua {

// Whether countdown() can be used with this Lua library. Probes on first use; thread-safe.
bool countdown_readable();

// Instructions left before `L`'s count hook is called: lua_sethook's count right after it is set,
// less one per instruction since (the hook is called when it reaches zero, and the count starts
// again). REQUIRES: countdown_readable().
int countdown(lua_State* L);

}  // namespace arbiter::lua
