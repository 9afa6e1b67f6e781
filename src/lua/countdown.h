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
// build or layout), Countdown::find() gives nothing and the sandbox arms its hook on every
// instruction, as exact as before and slower.
#pragma once

#include <cstddef>
#include <cstring>
#include <optional>

#include <lua.hpp>

namespace arbiter::lua {

// Reads the countdown of any lua_State of this Lua library: instructions left before the
// state's count hook is called. That is lua_sethook's count right after it is set, less one per
// instruction since (the hook is called when it reaches zero, and the count starts again).
class Countdown {
 public:
  // The reader, or nothing where the countdown cannot be found. Probes on first use;
  // thread-safe.
  static std::optional<Countdown> find();

  int operator()(lua_State* L) const {
    int v;
    std::memcpy(&v, reinterpret_cast<const char*>(L) + offset_, sizeof v);
    return v;
  }

 private:
  explicit Countdown(std::size_t offset) : offset_(offset) {}
  std::size_t offset_;
};

}  // namespace arbiter::lua
