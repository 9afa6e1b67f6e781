// next and pairs in one canonical key order (positive integers, other numbers, strings, false,
// true), so that a traversal does not depend on the state's string-hash seed or on addresses.
#include "lua/sandbox_internal.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace arbiter::lua {
namespace {

// --- The canonical key order of next and pairs ---
//
// Lua's own next visits keys in hash-table order, which depends on the state's random string-hash
// seed (time and addresses) and, for tables and functions as keys, on their addresses: the same
// team could act differently from one run to the next. The sandbox's next visits keys in one
// canonical order instead: positive integers ascending (the array part first, as Lua does), then
// the other numbers ascending (zero, negative integers, non-integral and infinite floats), then
// strings in byte order (shorter first on a common prefix), then false, then true. Keys of other
// types have no such order and make next raise an error.

enum KeyCategory : std::uint8_t { kPositiveInteger, kOtherNumber, kString, kBoolean };

// One key, as the sort sees it. 32 bytes, kept in a Lua userdata while a snapshot is built (so it
// counts against the memory cap and is freed by the GC, even after an error).
struct KeyRecord {
  union {
    lua_Integer i;  // integers; booleans (0, 1)
    double f;       // floats
    const char* s;  // strings: the bytes of a Lua string that stays anchored meanwhile
  };
  std::uint64_t prefix;  // strings: the first 8 bytes, big-endian, zero-padded
  std::size_t len;       // strings: the length
  std::uint32_t index;   // while a snapshot is built: the key's slot before sorting
  KeyCategory category;
  bool is_int;           // numbers: integer (else float)
};
static_assert(sizeof(KeyRecord) <= 32);

// Fills `r` for the value at `idx`; false if the value has no place in the order (tables,
// functions, threads, userdata, nil, NaN). A float with an integral value counts as that integer,
// as it does as a table key.
bool make_record(lua_State* L, int idx, KeyRecord* r) {
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER: {
      lua_Integer i = 0;
      bool is_int = lua_isinteger(L, idx) != 0;
      if (is_int) {
        i = lua_tointeger(L, idx);
      } else {
        const double f = lua_tonumber(L, idx);
        if (std::isnan(f)) return false;
        if (f >= -0x1p63 && f < 0x1p63 && f == std::floor(f)) {
          i = static_cast<lua_Integer>(f);
          is_int = true;
        } else {
          r->f = f;
        }
      }
      r->is_int = is_int;
      if (is_int) r->i = i;
      r->category = is_int && i >= 1 ? kPositiveInteger : kOtherNumber;
      return true;
    }
    case LUA_TSTRING: {
      std::size_t len = 0;
      r->s = lua_tolstring(L, idx, &len);
      r->len = len;
      std::uint64_t prefix = 0;
      for (std::size_t k = 0; k < 8; ++k) {
        prefix = (prefix << 8) | (k < len ? static_cast<unsigned char>(r->s[k]) : 0U);
      }
      r->prefix = prefix;
      r->category = kString;
      return true;
    }
    case LUA_TBOOLEAN:
      r->i = lua_toboolean(L, idx);
      r->category = kBoolean;
      return true;
    default:
      return false;
  }
}

// i < f for an integer and a float (exact: no rounding of i to double).
bool int_less_float(lua_Integer i, double f) {
  if (f >= 0x1p63) return true;
  if (f < -0x1p63) return false;
  return i < static_cast<lua_Integer>(std::ceil(f));  // ceil(f) is in range here
}
bool float_less_int(double f, lua_Integer i) {
  if (f >= 0x1p63) return false;
  if (f < -0x1p63) return true;
  return static_cast<lua_Integer>(std::floor(f)) < i;
}

bool number_less(const KeyRecord& a, const KeyRecord& b) {
  if (a.is_int) return b.is_int ? a.i < b.i : int_less_float(a.i, b.f);
  return b.is_int ? float_less_int(a.f, b.i) : a.f < b.f;
}

// The canonical order (a strict total order on the keys make_record accepts).
bool key_less(const KeyRecord& a, const KeyRecord& b) {
  if (a.category != b.category) return a.category < b.category;
  switch (a.category) {
    case kPositiveInteger:
    case kBoolean:
      return a.i < b.i;
    case kOtherNumber:
      return number_less(a, b);
    case kString: {
      if (a.prefix != b.prefix) return a.prefix < b.prefix;
      const int c = std::memcmp(a.s, b.s, std::min(a.len, b.len));
      return c != 0 ? c < 0 : a.len < b.len;
    }
  }
  return false;
}

// ceil(log2(n)) for n >= 1; 0 for n <= 1.
long long ceil_log2(long long n) {
  return n <= 1 ? 0 : static_cast<long long>(std::bit_width(static_cast<std::uint64_t>(n - 1)));
}

}  // namespace

// --- Deterministic next and pairs (see KeyRecord) ---
//
// next(t, k) returns the key after k in the canonical order. A traversal is O(n log n) in
// total: the first call that cannot be answered cheaply sorts the keys after k once into a
// snapshot, cached per table in a weak-keyed table (upvalue 1 of next), and later calls
// continue from the snapshot's cursor. Cheap answers need no snapshot: next(t, nil) is 1 when
// t[1] is set, and next(t, i) is i + 1 when t[i + 1] is set, so traversing a sequence costs
// what ipairs costs; otherwise next(t, nil) is a linear scan for the smallest key.
// As in Lua, fields may be assigned (including nil) during a traversal: keys removed since the
// snapshot are skipped. Keys added during a traversal may or may not be visited (Lua leaves
// that undefined too), but always in the same way. next(t, nil) drops the table's snapshot,
// so each traversal starts from the table as it is.
//
// The work is charged to the bot (Sandbox::charge), one instruction per unit: a linear scan
// of the table, n; building a snapshot of m of the n keys, n + m (ceil(log2 m) + 1);
// finding a key in a snapshot by binary search when the cursor does not match,
// ceil(log2(m + 1)); each removed key skipped, 1. A full traversal of n keys that are not a
// sequence thus costs about n (log2 n + 3) on top of the loop's own instructions.

// The wall-clock time of next's scans and sorts is excused from the running bot's watchdog:
// the work is bounded (by the memory cap: about a second for the largest table), and it is
// paid for in instructions; otherwise a traversal of a big table (some 50,000 keys and up)
// could end its step by the watchdog or not depending on the machine, which is exactly the
// nondeterminism this order exists to remove.
// Both sides of the watchdog are excused: the wall clock of the running step and the CPU time
// of the round.
Sandbox::Library::WorkMark Sandbox::Library::work_start(lua_State* L) {
  const Sandbox& s = Sandbox::of(L);
  return {s.clock_->now(), s.options_.cpu_time ? s.options_.cpu_time() : Duration{}};
}
void Sandbox::Library::excuse_work(lua_State* L, WorkMark since) {
  Sandbox& s = Sandbox::of(L);
  if (Bot* bot = s.running_) bot->started_ += s.clock_->now() - since.wall;
  if (s.options_.cpu_time) s.round_cpu_ += s.options_.cpu_time() - since.cpu;
}

[[noreturn]] void Sandbox::Library::unordered_key_error(lua_State* L, int idx) {
  if (lua_type(L, idx) == LUA_TNUMBER || lua_type(L, idx) == LUA_TNIL) {
    luaL_error(L, "invalid key to 'next'");
  }
  luaL_error(L,
             "next: a table with %s keys has no deterministic order (only number, string "
             "and boolean keys can be traversed)",
             luaL_typename(L, idx));
  __builtin_unreachable();
}

// Snapshot layout: s[1..m] the keys after the lower bound in canonical order, s[0] the lower
// bound (nil: none), s[-1] = m, s[-2] the cursor (the slot of the key next returned last).
constexpr lua_Integer kLowerSlot = 0;
constexpr lua_Integer kCountSlot = -1;
constexpr lua_Integer kCursorSlot = -2;

// Pushes a new snapshot of the keys of table 1 greater than the value at `lower` and caches
// it for table 1 (`cache` is the index of the cache).
void Sandbox::Library::build_snapshot(lua_State* L, int lower, int cache) {
  KeyRecord lo{};
  if (!make_record(L, lower, &lo)) unordered_key_error(L, lower);
  const WorkMark started = work_start(L);
  lua_newtable(L);
  const int snap = lua_gettop(L);
  // One pass over the table (lua_next is the costly part: a hash lookup per key), appending
  // the keys after `lo` to the snapshot. Appending may run the garbage collector; the keys
  // stay anchored in the table or the snapshot, and lua_next tolerates the entries of a weak
  // table being cleared meanwhile, as it does in any traversal.
  long long total = 0;
  lua_Integer count = 0;
  lua_pushnil(L);
  while (lua_next(L, 1) != 0) {
    lua_pop(L, 1);
    ++total;
    KeyRecord r{};
    if (!make_record(L, -1, &r)) {
      excuse_work(L, started);
      unordered_key_error(L, -1);
    }
    if (!key_less(lo, r)) continue;
    if (count >= INT_MAX / 2) luaL_error(L, "next: table too large");
    lua_pushvalue(L, -1);
    lua_rawseti(L, snap, ++count);
  }
  auto* records = static_cast<KeyRecord*>(lua_newuserdatauv(
      L, static_cast<std::size_t>(std::max<lua_Integer>(count, 1)) * sizeof(KeyRecord), 0));
  // From here to the end of the permutation nothing allocates, so the records' string
  // pointers (into keys anchored in the snapshot) stay valid.
  for (lua_Integer i = 1; i <= count; ++i) {
    lua_rawgeti(L, snap, i);
    KeyRecord& r = records[i - 1];
    make_record(L, -1, &r);
    r.index = static_cast<std::uint32_t>(i);
    lua_pop(L, 1);
  }
  std::sort(records, records + count, key_less);
  // Permute the snapshot in place: slot p gets the key that was at records[p - 1].index.
  // Cycle by cycle; a done record gets index 0.
  for (lua_Integer start = 1; start <= count; ++start) {
    if (records[start - 1].index == 0) continue;
    if (records[start - 1].index == start) {
      records[start - 1].index = 0;
      continue;
    }
    lua_rawgeti(L, snap, start);
    lua_Integer p = start;
    for (;;) {
      const lua_Integer from = records[p - 1].index;
      records[p - 1].index = 0;
      if (from == start) {
        lua_rawseti(L, snap, p);  // the saved s[start]
        break;
      }
      lua_rawgeti(L, snap, from);
      lua_rawseti(L, snap, p);
      p = from;
    }
  }
  lua_pop(L, 1);  // the records
  lua_pushvalue(L, lower);
  lua_rawseti(L, snap, kLowerSlot);
  lua_pushinteger(L, count);
  lua_rawseti(L, snap, kCountSlot);
  lua_pushinteger(L, 0);
  lua_rawseti(L, snap, kCursorSlot);
  lua_pushvalue(L, 1);
  lua_pushvalue(L, snap);
  lua_rawset(L, cache);
  charge_work(L, total + count * (ceil_log2(count) + 1));
  excuse_work(L, started);
}

lua_Integer Sandbox::Library::snapshot_int(lua_State* L, int snap, lua_Integer slot) {
  lua_rawgeti(L, snap, slot);
  const lua_Integer v = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

// next(t, nil): the smallest key, found by a linear scan unless t[1] is set.
int Sandbox::Library::first_key(lua_State* L, int cache) {
  lua_pushvalue(L, 1);
  if (lua_rawget(L, cache) != LUA_TNIL) {  // a new traversal: forget the old snapshot
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    lua_rawset(L, cache);
  }
  lua_pop(L, 1);
  if (lua_rawgeti(L, 1, 1) != LUA_TNIL) {
    lua_pushinteger(L, 1);
    lua_insert(L, -2);
    return 2;
  }
  lua_pop(L, 1);
  const WorkMark started = work_start(L);
  lua_pushnil(L);  // 3: the smallest key so far
  const int best_index = lua_gettop(L);
  KeyRecord best{};
  bool have = false;
  long long n = 0;
  lua_pushnil(L);
  while (lua_next(L, 1) != 0) {
    lua_pop(L, 1);
    ++n;
    KeyRecord r{};
    if (!make_record(L, -1, &r)) {
      excuse_work(L, started);
      unordered_key_error(L, -1);
    }
    if (!have || key_less(r, best)) {
      lua_pushvalue(L, -1);
      lua_replace(L, best_index);
      make_record(L, best_index, &best);  // its bytes are anchored at best_index
      have = true;
    }
  }
  charge_work(L, n);
  excuse_work(L, started);
  if (!have) return 1;  // the nil at best_index: the table is empty
  lua_pushvalue(L, best_index);
  lua_rawget(L, 1);
  return 2;
}

int Sandbox::Library::next(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  luaL_checkstack(L, 8, "next");
  const int cache = lua_upvalueindex(1);
  if (lua_isnil(L, 2)) return first_key(L, cache);
  if (lua_isinteger(L, 2)) {  // within a sequence: the next integer
    const lua_Integer k = lua_tointeger(L, 2);
    if (k >= 1 && k < LUA_MAXINTEGER) {
      lua_pushinteger(L, k + 1);
      if (lua_rawgeti(L, 1, k + 1) != LUA_TNIL) return 2;
      lua_pop(L, 2);
    }
  }
  KeyRecord key{};
  if (!make_record(L, 2, &key)) unordered_key_error(L, 2);
  lua_pushvalue(L, 1);
  bool usable = lua_rawget(L, cache) == LUA_TTABLE;  // 3: the snapshot
  if (usable) {  // it must cover the keys after `key`: its lower bound must not exceed key
    KeyRecord lo{};
    if (lua_rawgeti(L, 3, kLowerSlot) != LUA_TNIL) usable = make_record(L, -1, &lo) &&
                                                            !key_less(key, lo);
    lua_pop(L, 1);
  }
  lua_Integer slot = 1;  // where to continue in the snapshot
  if (!usable) {
    lua_pop(L, 1);
    build_snapshot(L, 2, cache);
  } else {
    const lua_Integer m = snapshot_int(L, 3, kCountSlot);
    const lua_Integer cursor = snapshot_int(L, 3, kCursorSlot);
    bool at_cursor = false;
    if (cursor >= 1 && cursor <= m) {
      lua_rawgeti(L, 3, cursor);
      at_cursor = lua_rawequal(L, -1, 2) != 0;
      lua_pop(L, 1);
    }
    if (at_cursor) {
      slot = cursor + 1;
    } else {  // binary search for the first key greater than `key`
      lua_Integer low = 1;
      lua_Integer high = m + 1;
      while (low < high) {
        const lua_Integer mid = low + (high - low) / 2;
        lua_rawgeti(L, 3, mid);
        KeyRecord r{};
        make_record(L, -1, &r);
        if (key_less(key, r)) {
          high = mid;
        } else {
          low = mid + 1;
        }
        lua_pop(L, 1);
      }
      slot = low;
      charge_work(L, ceil_log2(m + 1));
    }
  }
  const lua_Integer m = snapshot_int(L, 3, kCountSlot);
  long long skipped = 0;
  for (; slot <= m; ++slot) {
    lua_rawgeti(L, 3, slot);
    lua_pushvalue(L, -1);
    if (lua_rawget(L, 1) != LUA_TNIL) {
      lua_pushinteger(L, slot);
      lua_rawseti(L, 3, kCursorSlot);
      charge_work(L, skipped);
      return 2;
    }
    lua_pop(L, 2);  // removed since the snapshot
    ++skipped;
  }
  charge_work(L, skipped);
  lua_pushvalue(L, 1);  // the traversal is over
  lua_pushnil(L);
  lua_rawset(L, cache);
  lua_pushnil(L);
  return 1;
}

// pairs(t): as Lua 5.4's, honouring __pairs (whose function is team code, deterministic as
// everything else the team runs), else the deterministic next (upvalue 1).
int Sandbox::Library::pairs_continuation(lua_State*, int, lua_KContext) {
  return 3;
}
int Sandbox::Library::pairs(lua_State* L) {
  luaL_checkany(L, 1);
  if (luaL_getmetafield(L, 1, "__pairs") == LUA_TNIL) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_pushnil(L);
  } else {
    lua_pushvalue(L, 1);
    lua_callk(L, 1, 3, 0, &Library::pairs_continuation);
  }
  return 3;
}

}  // namespace arbiter::lua
