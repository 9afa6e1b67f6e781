#include "lua/countdown.h"

#include <cstdlib>
#include <cstring>
#include <optional>

namespace arbiter::lua {
namespace {

// The probe reads a window of the thread object; every block of the scratch state is padded by
// this much, so the window never leaves memory the probe allocated.
constexpr std::size_t kWindow = 512;

void* padded_alloc(void*, void* ptr, std::size_t, std::size_t new_size) {
  if (new_size == 0) {
    std::free(ptr);
    return nullptr;
  }
  void* grown = std::realloc(ptr, new_size + kWindow);
  // Zeroed only when new: Lua never reads past new_size, and the probe only compares values.
  if (ptr == nullptr && grown != nullptr) std::memset(grown, 0, new_size + kWindow);
  return grown;
}

int read_int(lua_State* L, std::size_t offset) {
  int v;
  std::memcpy(&v, reinterpret_cast<const char*>(L) + offset, sizeof v);
  return v;
}

void do_nothing(lua_State*, lua_Debug*) {}

struct Probe {
  std::size_t offset = 0;  // the candidate under test
  int seen = -1;           // the countdown seen by mark()
  long long counted = 0;   // instructions a count-1 hook saw before mark()
  bool counting = true;
};

Probe& probe_of(lua_State* L) {
  return **static_cast<Probe**>(lua_getextraspace(L));
}

void count_one(lua_State* L, lua_Debug*) {
  Probe& p = probe_of(L);
  if (p.counting) ++p.counted;
}

int mark(lua_State* L) {
  Probe& p = probe_of(L);
  p.seen = read_int(L, p.offset);
  p.counting = false;
  return 0;
}

// Runs a fixed chunk on a fresh thread of `L` up to its call of mark(), with a count hook of
// `count` (and `hook`). False if it did not run as expected.
bool run_to_mark(lua_State* L, lua_Hook hook, int count) {
  lua_State* t = lua_newthread(L);
  if (luaL_loadstring(t, "local s = 0 for i = 1, 37 do s = s + i * 2 end mark() return s") !=
      LUA_OK)
    return false;
  lua_sethook(t, hook, LUA_MASKCOUNT, count);
  int results = 0;
  const bool ok = lua_resume(t, L, 0, &results) == LUA_OK;
  lua_pop(L, 1);
  return ok;
}

std::optional<std::size_t> find_offset() {
  lua_State* L = lua_newstate(&padded_alloc, nullptr);
  if (L == nullptr) return std::nullopt;
  Probe p;
  *static_cast<Probe**>(lua_getextraspace(L)) = &p;
  lua_register(L, "mark", &mark);
  lua_State* t = lua_newthread(L);
  std::optional<std::size_t> found;

  // How many instructions the chunk runs before mark(), counted one hook call at a time.
  if (!run_to_mark(L, &count_one, 1) || p.counted < 50) {
    lua_close(L);
    return std::nullopt;
  }
  const long long instructions = p.counted;
  constexpr int kFirst = 0x1234567, kSecond = 0x2345678;
  for (std::size_t offset = 0; offset + sizeof(int) <= kWindow && !found; offset += sizeof(int)) {
    lua_sethook(t, &do_nothing, LUA_MASKCOUNT, kFirst);
    if (read_int(t, offset) != kFirst) continue;
    lua_sethook(t, &do_nothing, LUA_MASKCOUNT, kSecond);
    if (read_int(t, offset) != kSecond) continue;
    // Either the countdown or the count it restarts from: only the countdown falls, by one an
    // instruction.
    p.offset = offset;
    p.seen = -1;
    if (!run_to_mark(L, &do_nothing, kFirst)) continue;
    if (p.seen == kFirst - instructions) found = offset;
  }
  lua_sethook(t, nullptr, 0, 0);
  lua_close(L);
  return found;
}

}  // namespace

std::optional<Countdown> Countdown::find() {
  static const std::optional<std::size_t> offset = find_offset();
  if (!offset) return std::nullopt;
  return Countdown(*offset);
}

}  // namespace arbiter::lua
