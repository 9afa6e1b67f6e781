// The base functions a team sees (load for text only, setmetatable without __gc, an xpcall whose
// handler never runs for a condemned bot, cas, yield, math.random from the seeded Rng, the host
// functions' trampoline), and what every wrapped library function uses: call_original, wrap, and
// charging the work of C functions to the running bot.
#include "lua/sandbox_internal.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <exception>

namespace arbiter::lua {
int call_original(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

int Sandbox::Library::host_trampoline(lua_State* L) {
  auto* fn = static_cast<HostFunction*>(lua_touserdata(L, lua_upvalueindex(1)));
  char what[200];
  try {
    return (*fn)(L);
  } catch (const std::exception& e) {
    std::snprintf(what, sizeof what, "host function failed: %s", e.what());
  } catch (...) {
    std::snprintf(what, sizeof what, "host function failed");
  }
  // Raised outside the catch block, so no C++ frame with a destructor is jumped over.
  return luaL_error(L, "%s", what);
}

int Sandbox::Library::yield(lua_State* L) {
  Bot* bot = Sandbox::of(L).running_;
  if (bot == nullptr || !lua_isyieldable(L)) {
    return luaL_error(L, "yield: cannot yield here (inside a callback)");
  }
  bot->yield_kind_ = StepStatus::yielded;
  return lua_yield(L, 0);
}

// cas(t, k, old, new): raw get and set, so no metamethod (no Lua code) runs in between.
int Sandbox::Library::cas(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  lua_settop(L, 4);
  lua_pushvalue(L, 2);
  lua_rawget(L, 1);
  const bool equal = lua_rawequal(L, -1, 3) != 0;
  lua_pop(L, 1);
  if (equal) {
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 4);
    lua_rawset(L, 1);
  }
  lua_pushboolean(L, equal);
  return 1;
}

// Finalizers run with hooks off, so a looping __gc could never be stopped. Lua only marks an
// object for finalization when setmetatable sees a raw __gc field, so checking here suffices.
int Sandbox::Library::setmetatable(lua_State* L) {
  if (lua_type(L, 2) == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, 2) != LUA_TNIL) {
      return luaL_error(L, "setmetatable: metatables with __gc are not allowed");
    }
    lua_pop(L, 1);
  }
  return call_original(L);
}

// load(s [, chunkname [, mode [, env]]]): strings of text only.
int Sandbox::Library::load(lua_State* L) {
  if (lua_type(L, 1) != LUA_TSTRING) {
    return luaL_error(L, "load: only a string of source text can be loaded");
  }
  std::size_t len = 0;
  const char* text = lua_tolstring(L, 1, &len);
  const std::size_t max = options(L).max_load_bytes;
  if (len > max) {
    return luaL_error(L, "load: chunk larger than %d bytes", static_cast<int>(max));
  }
  // The parser costs about what a hooked instruction does per byte: charged one per byte.
  charge_work(L, static_cast<long long>(len));
  const char* chunk_name = luaL_optstring(L, 2, "=(load)");
  const bool has_env = !lua_isnone(L, 4);
  if (luaL_loadbufferx(L, text, len, chunk_name, "t") != LUA_OK) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  if (has_env) {
    lua_pushvalue(L, 4);
    if (lua_setupvalue(L, -2, 1) == nullptr) lua_pop(L, 1);
  }
  return 1;
}

// math.random with Lua's interface, drawn from the sandbox's Rng.
int Sandbox::Library::random(lua_State* L) {
  Rng& rng = Sandbox::of(L).rng_;
  lua_Integer low = 1;
  lua_Integer high = 0;
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, static_cast<lua_Number>(rng.next() >> 11) * 0x1.0p-53);
      return 1;
    case 1:
      high = luaL_checkinteger(L, 1);
      if (high == 0) {
        lua_pushinteger(L, static_cast<lua_Integer>(rng.next()));
        return 1;
      }
      break;
    case 2:
      low = luaL_checkinteger(L, 1);
      high = luaL_checkinteger(L, 2);
      break;
    default:
      return luaL_error(L, "wrong number of arguments");
  }
  luaL_argcheck(L, low <= high, lua_gettop(L), "interval is empty");
  const auto span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  const std::uint64_t draw = span == UINT64_MAX ? rng.next() : rng.below(span + 1);
  lua_pushinteger(L, static_cast<lua_Integer>(static_cast<std::uint64_t>(low) + draw));
  return 1;
}

void Sandbox::Library::charge_work(lua_State* L, long long n) {
  Sandbox::charge(L, static_cast<int>(std::clamp<long long>(n, 0, INT_MAX)));
}
void Sandbox::Library::charge_bytes(lua_State* L, std::size_t bytes) {
  charge_work(L, static_cast<long long>(bytes / kBytesPerInstruction));
}
void Sandbox::Library::charge_values(lua_State* L, std::size_t values) {
  charge_work(L, static_cast<long long>(values / kValuesPerInstruction));
}

// For a long loop inside a C function: the watchdog, as the count hook checks it.
void Sandbox::Library::check_watchdog(lua_State* L) {
  Sandbox& s = Sandbox::of(L);
  if (Bot* bot = s.running_; bot != nullptr && s.past_watchdog(bot->started_)) {
    bot->condemned_ = Bot::Condemned::watchdog;
    Bot::raise_condemned(L);
  }
}

// The bytes of the strings at stack indexes from..to (numbers are not counted).
std::size_t Sandbox::Library::string_bytes(lua_State* L, int from, int to) {
  std::size_t n = 0;
  for (int i = from; i <= to; ++i) {
    if (lua_type(L, i) == LUA_TSTRING) n += lua_rawlen(L, i);
  }
  return n;
}
// Calls the wrapped function (upvalue 1) and charges `bytes` and `values` plus its results:
// their string bytes and their number. Nothing is charged if it raises an error. Charged
// after the call: a call event past overrun_limit (see Bot::hook) would kill the bot.
int Sandbox::Library::call_charged(lua_State* L, std::size_t bytes, std::size_t values) {
  const int n = call_original(L);
  charge_bytes(L, bytes + string_bytes(L, 1, n));
  charge_values(L, values + static_cast<std::size_t>(n));
  return n;
}
// Wrappers for functions whose work is their results (string.byte, sub, upper, ...) or their
// arguments and results (string.char, math.max, table.pack, tonumber, select, ...).
int Sandbox::Library::charged_results(lua_State* L) {
  return call_charged(L, 0, 0);
}
int Sandbox::Library::charged_arguments(lua_State* L) {
  const int n = lua_gettop(L);
  return call_charged(L, string_bytes(L, 1, n), static_cast<std::size_t>(n));
}

// xpcall whose message handler never runs for a condemned bot. The hook raises a condemned
// bot's error with hooks off, and Lua calls the message handler right there: its code would
// run with no budget and no watchdog. A live bot's handler runs as usual.
int Sandbox::Library::xpcall(lua_State* L) {
  const int n = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushvalue(L, 2);
  lua_pushcclosure(L, &guarded_handler, 1);
  lua_replace(L, 2);
  lua_pushvalue(L, lua_upvalueindex(1));  // the library's xpcall
  lua_insert(L, 1);
  lua_callk(L, n, LUA_MULTRET, 0, &results);  // callk: the protected function may yield
  return lua_gettop(L);
}
int Sandbox::Library::results(lua_State* L, int, lua_KContext) {
  return lua_gettop(L);
}
int Sandbox::Library::guarded_handler(lua_State* L) {
  const Bot* bot = Sandbox::of(L).running_;
  if (bot != nullptr && bot->condemned_ != Bot::Condemned::no) return 1;  // the error as is
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

// Replaces field `name` of the table on top of the stack by `fn` wrapping the original.
// Lua's messages name a function called from C by finding it in package.loaded ("bad
// argument #1 to 'string.sub'"); the wrapped original is filed there under "_G.<module>",
// which the messages show as "<module>.<name>" (the team cannot reach package.loaded).
void Sandbox::Library::wrap(lua_State* L, const char* module, const char* name, lua_CFunction fn) {
  lua_getfield(L, -1, name);
  char key[32];
  std::snprintf(key, sizeof key, "_G.%s", module);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  luaL_getsubtable(L, -1, key);
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, name);
  lua_pop(L, 2);
  lua_pushcclosure(L, fn, 1);
  lua_setfield(L, -2, name);
}
void Sandbox::Library::remove_field(lua_State* L, const char* name) {
  lua_pushnil(L);
  lua_setfield(L, -2, name);
}

}  // namespace arbiter::lua
