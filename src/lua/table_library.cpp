// The table library's guarded functions: insert, remove and move capped in the elements they
// shift, concat charged, and sort with a deterministic pivot.
#include "lua/sandbox_internal.h"

#include <algorithm>
#include <climits>
#include <cstdint>

namespace arbiter::lua {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

// The raw length of table 1; refuses __len, whose answer could change between this check and
// the library's own call.
lua_Integer Sandbox::Library::raw_length(lua_State* L, const char* fn) {
  luaL_checktype(L, 1, LUA_TTABLE);
  if (luaL_getmetafield(L, 1, "__len") != LUA_TNIL) {
    luaL_error(L, "%s: tables with __len are not supported", fn);
  }
  return static_cast<lua_Integer>(lua_rawlen(L, 1));
}
void Sandbox::Library::check_span(lua_State* L, lua_Integer span, const char* fn) {
  if (span > options(L).max_table_span) {
    luaL_error(L, "%s: more than %d elements", fn, static_cast<int>(options(L).max_table_span));
  }
}
// A border of a table with a hash part can be far larger than its element count (t[2^k] for
// every k), so insert and remove could shift ~2^62 absent elements, all in C.
int Sandbox::Library::insert(lua_State* L) {
  const lua_Integer n = raw_length(L, "table.insert");
  if (lua_gettop(L) == 3) {
    const lua_Integer pos = luaL_checkinteger(L, 2);
    if (pos >= 1 && pos <= n + 1) {
      check_span(L, n - pos + 1, "table.insert");
      return call_charged(L, 0, static_cast<std::size_t>(n - pos + 1));
    }
  }
  return call_original(L);
}
int Sandbox::Library::remove(lua_State* L) {
  const lua_Integer n = raw_length(L, "table.remove");
  const lua_Integer pos = luaL_optinteger(L, 2, n);
  if (pos >= 1 && pos <= n) {
    check_span(L, n - pos, "table.remove");
    return call_charged(L, 0, static_cast<std::size_t>(n - pos));
  }
  return call_original(L);
}
int Sandbox::Library::move(lua_State* L) {
  const lua_Integer first = luaL_checkinteger(L, 2);
  const lua_Integer last = luaL_checkinteger(L, 3);
  if (last >= first) {
    // Compared as doubles: last - first can overflow.
    if (static_cast<double>(last) - static_cast<double>(first) >=
        static_cast<double>(options(L).max_table_span)) {
      check_span(L, options(L).max_table_span + 1, "table.move");
    }
    return call_charged(L, 0, static_cast<std::size_t>(last - first) + 1);
  }
  return call_original(L);
}

// table.concat(t, sep, i, j): charged its elements and the result's bytes. The count is read
// without raising (the library reports bad arguments itself) and without __len.
int Sandbox::Library::concat(lua_State* L) {
  int ok_i = 1;
  int ok_j = 1;
  const lua_Integer i = lua_isnoneornil(L, 3) ? 1 : lua_tointegerx(L, 3, &ok_i);
  lua_Integer j = 0;
  if (!lua_isnoneornil(L, 4)) {
    j = lua_tointegerx(L, 4, &ok_j);
  } else if (lua_type(L, 1) == LUA_TTABLE) {
    j = static_cast<lua_Integer>(lua_rawlen(L, 1));
  }
  const double count = ok_i != 0 && ok_j != 0 && j >= i
                           ? static_cast<double>(j) - static_cast<double>(i) + 1.0
                           : 0.0;
  return call_charged(L, 0, static_cast<std::size_t>(std::min(count, 1e15)));
}

// --- table.sort with a deterministic pivot ---
//
// Lua 5.4's table.sort (ltablib.c), step for step, so that it calls the comparator exactly as
// the library does, except for one thing: when a partition comes out badly unbalanced the
// library picks later pivots with l_randomizePivot, which reads clock() and time(), so the
// comparator calls (instructions, side effects, and the order of equal elements) could differ
// between runs. Here that "randomness" is a hash of the sandbox seed and the interval.

constexpr std::size_t kLongComparison = 4096;  // bytes

int Sandbox::Library::sort_less(lua_State* L, int a, int b) {
  // The comparisons run in C, where the count hook never looks at the clock (comparing long
  // strings, or a huge table): the watchdog is checked here too.
  Sandbox& s = Sandbox::of(L);
  if (Bot* bot = s.running_; bot != nullptr && (++bot->ticks_ & 255U) == 0 &&
                             s.past_watchdog(bot->started_)) {
    bot->condemned_ = Bot::Condemned::watchdog;
    Bot::raise_condemned(L);
  }
  if (lua_isnil(L, 2)) {
    // A comparison in C is charged as a value touched, two strings as the bytes it may read
    // (Lua's l_strcmp reads up to the shorter length, slowly across '\0's); a long one looks
    // at the watchdog first, so at most one runs past it.
    if (++s.sort_comparisons_ % kValuesPerInstruction == 0) Sandbox::charge(L, 1);
    if (lua_type(L, a) == LUA_TSTRING && lua_type(L, b) == LUA_TSTRING) {
      const std::size_t n = std::min(lua_rawlen(L, a), lua_rawlen(L, b));
      charge_bytes(L, n);
      if (n >= kLongComparison) check_watchdog(L);
    }
    return lua_compare(L, a, b, LUA_OPLT);
  }
  lua_pushvalue(L, 2);
  lua_pushvalue(L, a - 1);
  lua_pushvalue(L, b - 2);
  lua_call(L, 2, 1);
  const int res = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return res;
}

void Sandbox::Library::sort_set2(lua_State* L, SortIndex i, SortIndex j) {
  lua_seti(L, 1, i);
  lua_seti(L, 1, j);
}

// Pivot P on top of the stack; a[lo] <= P == a[up - 1] <= a[up]. Returns P's final index.
Sandbox::Library::SortIndex Sandbox::Library::sort_partition(lua_State* L, SortIndex lo,
                                                             SortIndex up) {
  SortIndex i = lo;
  SortIndex j = up - 1;
  for (;;) {
    while ((void)lua_geti(L, 1, ++i), sort_less(L, -1, -2)) {
      if (i == up - 1) luaL_error(L, "invalid order function for sorting");
      lua_pop(L, 1);
    }
    while ((void)lua_geti(L, 1, --j), sort_less(L, -3, -1)) {
      if (j < i) luaL_error(L, "invalid order function for sorting");
      lua_pop(L, 1);
    }
    if (j < i) {
      lua_pop(L, 1);
      sort_set2(L, up - 1, i);
      return i;
    }
    sort_set2(L, i, j);
  }
}

unsigned int Sandbox::Library::sort_salt(lua_State* L, SortIndex lo, SortIndex up) {
  const std::uint64_t h = splitmix64(options(L).seed ^
                                     ((static_cast<std::uint64_t>(lo) << 32) | up));
  return static_cast<unsigned int>(h >> 32);
}

void Sandbox::Library::sort_range(lua_State* L, SortIndex lo, SortIndex up, unsigned int rnd) {
  while (lo < up) {
    lua_geti(L, 1, lo);
    lua_geti(L, 1, up);
    if (sort_less(L, -1, -2)) {
      sort_set2(L, lo, up);
    } else {
      lua_pop(L, 2);
    }
    if (up - lo == 1) return;
    SortIndex p;
    if (up - lo < kRandomPivotLimit || rnd == 0) {
      p = (lo + up) / 2;
    } else {
      const SortIndex r4 = (up - lo) / 4;
      p = rnd % (r4 * 2) + (lo + r4);
    }
    lua_geti(L, 1, p);
    lua_geti(L, 1, lo);
    if (sort_less(L, -2, -1)) {
      sort_set2(L, p, lo);
    } else {
      lua_pop(L, 1);
      lua_geti(L, 1, up);
      if (sort_less(L, -1, -2)) {
        sort_set2(L, p, up);
      } else {
        lua_pop(L, 2);
      }
    }
    if (up - lo == 2) return;
    lua_geti(L, 1, p);
    lua_pushvalue(L, -1);
    lua_geti(L, 1, up - 1);
    sort_set2(L, p, up - 1);
    p = sort_partition(L, lo, up);
    SortIndex n;
    if (p - lo < up - p) {
      sort_range(L, lo, p - 1, rnd);
      n = p - lo;
      lo = p + 1;
    } else {
      sort_range(L, p + 1, up, rnd);
      n = up - p;
      up = p - 1;
    }
    if ((up - lo) / 128 > n) rnd = sort_salt(L, lo, up);  // the library: l_randomizePivot()
  }
}

int Sandbox::Library::sort(lua_State* L) {
  if (lua_type(L, 1) != LUA_TTABLE) {  // as checktab(L, 1, TAB_RW | TAB_L)
    int n = 1;
    bool ok = lua_getmetatable(L, 1) != 0;
    for (const char* field : {"__index", "__newindex", "__len"}) {
      if (!ok) break;
      lua_pushstring(L, field);
      ++n;
      ok = lua_rawget(L, -n) != LUA_TNIL;
    }
    if (!ok) luaL_checktype(L, 1, LUA_TTABLE);
    lua_pop(L, n);
  }
  const lua_Integer n = luaL_len(L, 1);
  if (n > 1) {
    luaL_argcheck(L, n < INT_MAX, 1, "array too big");
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_settop(L, 2);
    luaL_checkstack(L, 10, "table.sort");
    sort_range(L, 1, static_cast<SortIndex>(n), 0);
  }
  return 0;
}

}  // namespace arbiter::lua
