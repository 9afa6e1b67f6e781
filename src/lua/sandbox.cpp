// The Lua sandbox: the capped allocator, the whitelisted and guarded libraries, the barrier
// library, and the instruction-counting step of a bot.
#include "lua/sandbox.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace arbiter::lua {
namespace {

// The barrier of docs/games/abalone.md §6, shipped with every sandbox. It keeps its own references
// to cas and yield, so a team that reassigns those globals does not break it.
constexpr std::string_view kBarrierSource = R"lua(
local cas, yield, error, type, mathtype = cas, yield, error, type, math.type
local barrier = {}

-- A barrier for n bots. count: arrivals in the current round; generation: rounds completed.
function barrier.new(n)
  if mathtype(n) ~= "integer" or n < 1 then
    error("barrier.new: n must be a positive integer", 2)
  end
  return { n = n, count = 0, generation = 0 }
end

-- Blocks (yielding step after step) until n bots have called wait in this round.
function barrier.wait(b)
  if type(b) ~= "table" or mathtype(b.n) ~= "integer" then
    error("barrier.wait: not a barrier", 2)
  end
  local generation = b.generation
  local count
  -- A bot can be preempted between any two instructions, so the increment must be a cas.
  repeat count = b.count until cas(b, "count", count, count + 1)
  if count + 1 == b.n then
    -- The last to arrive opens the barrier; reset count first so that the next round, which
    -- can start as soon as generation moves, begins from zero.
    b.count = 0
    b.generation = generation + 1
    return
  end
  while b.generation == generation do yield() end
end

return barrier
)lua";

// A Lua value as a one-line message. Never runs Lua code (no __tostring) and never allocates in
// the Lua heap, so it is safe on a dead thread from unprotected host code.
std::string one_line(lua_State* L, int index) {
  std::string msg;
  switch (lua_type(L, index)) {
    case LUA_TSTRING: {
      std::size_t len = 0;
      const char* s = lua_tolstring(L, index, &len);
      msg.assign(s, std::min<std::size_t>(len, 301));  // a message may be the whole heap
      break;
    }
    case LUA_TNUMBER:
      msg = lua_isinteger(L, index) ? fmt::format("{}", lua_tointeger(L, index))
                                    : fmt::format("{}", lua_tonumber(L, index));
      break;
    default:
      msg = fmt::format("error object is a {} value", luaL_typename(L, index));
  }
  for (char& c : msg) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  constexpr std::size_t kMax = 300;
  if (msg.size() > kMax) msg = msg.substr(0, kMax) + "...";
  return msg;
}

// The index just past the set that starts at p[i] == '[' (Lua's classEnd: the first character
// after '[' or "[^" is part of the set even when it is ']').
std::size_t skip_set(std::string_view p, std::size_t i) {
  ++i;
  if (i < p.size() && p[i] == '^') ++i;
  do {
    if (i >= p.size()) return p.size();
    i += p[i] == '%' ? 2 : 1;
  } while (i < p.size() && p[i] != ']');
  return std::min(i + 1, p.size());
}

// An upper estimate of the steps Lua's backtracking matcher can take for pattern `p` on a
// subject of n bytes: each start position (unless anchored) times, for every repeated item
// (`*`, `+`, `-`, `%b`, a back-reference), one choice per subject position, times 2 per `?`,
// times the pattern's length. `.-.-.-x` on 4 KiB gives ~10^15 and is refused; `%d+` is fine.
double pattern_cost(std::string_view p, std::size_t n, bool can_anchor) {
  const double choices = static_cast<double>(n) + 1.0;
  double cost = static_cast<double>(std::max<std::size_t>(p.size(), 1));
  std::size_t i = 0;
  if (can_anchor && !p.empty() && p[0] == '^') {
    i = 1;
  } else {
    cost *= choices;
  }
  while (i < p.size()) {
    const char c = p[i];
    if (c == '(' || c == ')') {
      ++i;
      continue;
    }
    bool quantifiable = true;
    if (c == '%') {
      const char e = i + 1 < p.size() ? p[i + 1] : '\0';
      if (e == 'b') {
        cost *= choices;
        i += 4;
        quantifiable = false;
      } else if (e == 'f') {
        i += 2;
        if (i < p.size() && p[i] == '[') i = skip_set(p, i);
        quantifiable = false;
      } else if (e >= '0' && e <= '9') {
        cost *= choices;
        i += 2;
        quantifiable = false;
      } else {
        i += 2;
      }
    } else if (c == '[') {
      i = skip_set(p, i);
    } else {
      ++i;
    }
    if (quantifiable && i < p.size()) {
      const char q = p[i];
      if (q == '*' || q == '+' || q == '-') {
        cost *= choices;
        ++i;
      } else if (q == '?') {
        cost *= 2;
        ++i;
      }
    }
  }
  return cost;
}

bool has_specials(std::string_view p) {
  return p.find_first_of("^$*+?.([%-") != std::string_view::npos;
}

// Calls the wrapped library function (upvalue 1) with this call's arguments.
int call_original(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

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

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

std::string_view name(StepStatus status) {
  switch (status) {
    case StepStatus::ran_out: return "ran_out";
    case StepStatus::yielded: return "yielded";
    case StepStatus::blocked: return "blocked";
    case StepStatus::finished: return "finished";
    case StepStatus::error: return "error";
    case StepStatus::overrun: return "overrun";
    case StepStatus::out_of_memory: return "out_of_memory";
    case StepStatus::watchdog: return "watchdog";
  }
  return "?";
}

struct Sandbox::HostScope {
  explicit HostScope(Sandbox& s) : sandbox(s) { ++sandbox.host_scopes_; }
  ~HostScope() { --sandbox.host_scopes_; }
  HostScope(const HostScope&) = delete;
  HostScope& operator=(const HostScope&) = delete;
  Sandbox& sandbox;
};

struct Sandbox::Library {
  static const SandboxOptions& options(lua_State* L) { return Sandbox::of(L).options_; }

  static int host_trampoline(lua_State* L) {
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

  static int yield(lua_State* L) {
    Bot* bot = Sandbox::of(L).running_;
    if (bot == nullptr || !lua_isyieldable(L)) {
      return luaL_error(L, "yield: cannot yield here (inside a callback)");
    }
    bot->yield_kind_ = StepStatus::yielded;
    return lua_yield(L, 0);
  }

  // cas(t, k, old, new): raw get and set, so no metamethod (no Lua code) runs in between.
  static int cas(lua_State* L) {
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
  static int setmetatable(lua_State* L) {
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
  static int load(lua_State* L) {
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
  static int random(lua_State* L) {
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

  // --- Charging the work of C functions (docs/security.md, "Lua: what each library function
  // may cost") ---
  //
  // Work done inside one C call is not counted by the hook. Functions whose work grows with
  // their input charge it to the running bot: one instruction per kBytesPerInstruction bytes
  // and per kValuesPerInstruction values touched (rounded down, so short calls cost nothing
  // more than their call instruction).
  static constexpr std::size_t kBytesPerInstruction = 32;
  static constexpr std::size_t kValuesPerInstruction = 8;

  static void charge_work(lua_State* L, long long n) {
    Sandbox::charge(L, static_cast<int>(std::clamp<long long>(n, 0, INT_MAX)));
  }
  static void charge_bytes(lua_State* L, std::size_t bytes) {
    charge_work(L, static_cast<long long>(bytes / kBytesPerInstruction));
  }
  static void charge_values(lua_State* L, std::size_t values) {
    charge_work(L, static_cast<long long>(values / kValuesPerInstruction));
  }

  // For a long loop inside a C function: the watchdog, as the count hook checks it.
  static void check_watchdog(lua_State* L) {
    Sandbox& s = Sandbox::of(L);
    if (Bot* bot = s.running_; bot != nullptr && s.past_watchdog(bot->started_)) {
      bot->condemned_ = Bot::Condemned::watchdog;
      Bot::raise_condemned(L);
    }
  }

  // The bytes of the strings at stack indexes from..to (numbers are not counted).
  static std::size_t string_bytes(lua_State* L, int from, int to) {
    std::size_t n = 0;
    for (int i = from; i <= to; ++i) {
      if (lua_type(L, i) == LUA_TSTRING) n += lua_rawlen(L, i);
    }
    return n;
  }
  // Calls the wrapped function (upvalue 1) and charges `bytes` and `values` plus its results:
  // their string bytes and their number. Nothing is charged if it raises an error. Charged
  // after the call: a call event past overrun_limit (see Bot::hook) would kill the bot.
  static int call_charged(lua_State* L, std::size_t bytes, std::size_t values) {
    const int n = call_original(L);
    charge_bytes(L, bytes + string_bytes(L, 1, n));
    charge_values(L, values + static_cast<std::size_t>(n));
    return n;
  }
  // Wrappers for functions whose work is their results (string.byte, sub, upper, ...) or their
  // arguments and results (string.char, math.max, table.pack, tonumber, select, ...).
  static int charged_results(lua_State* L) { return call_charged(L, 0, 0); }
  static int charged_arguments(lua_State* L) {
    const int n = lua_gettop(L);
    return call_charged(L, string_bytes(L, 1, n), static_cast<std::size_t>(n));
  }

  static void check_pattern(lua_State* L, bool can_anchor) {
    std::size_t n = 0;
    std::size_t plen = 0;
    luaL_checklstring(L, 1, &n);
    const char* p = luaL_checklstring(L, 2, &plen);
    const auto& opts = options(L);
    if (plen > opts.max_pattern_bytes) {
      luaL_error(L, "pattern longer than %d bytes", static_cast<int>(opts.max_pattern_bytes));
    }
    if (pattern_cost({p, plen}, n, can_anchor) > opts.max_pattern_cost) {
      luaL_error(L, "pattern too complex for a subject of %d bytes", static_cast<int>(n));
    }
  }

  // Lua's posrelatI: a 1-based start position, negative counting from the end, clipped to 1.
  static std::size_t start_position(lua_Integer pos, std::size_t len) {
    if (pos > 0) return static_cast<std::size_t>(pos);
    if (pos == 0 || pos < -static_cast<lua_Integer>(len)) return 1;
    return len + static_cast<std::size_t>(pos) + 1;
  }

  // A plain search (plain = true, or a pattern without specials) is done here rather than by
  // the library, whose lmemfind is O(subject x needle): 2 MiB of 'a' then 'b' in 8 MiB of 'a'
  // ran for hours in one C call. glibc's memmem is linear in the worst case (Two-Way for long
  // needles; measured ~10 ns a byte whatever the needle). The subject is searched a window
  // of about 1 MiB at a time so the watchdog is looked at between windows.
  static constexpr std::size_t kFindWindow = std::size_t{1} << 20;

  static int find(lua_State* L) {
    std::size_t ls = 0;
    std::size_t lp = 0;
    const char* s = luaL_checklstring(L, 1, &ls);
    const char* p = luaL_checklstring(L, 2, &lp);
    if (!lua_toboolean(L, 4) && has_specials({p, lp})) {
      check_pattern(L, true);
      return call_charged(L, ls, 0);
    }
    const std::size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
    if (init > ls) {
      luaL_pushfail(L);
      return 1;
    }
    std::size_t pos = init;
    while (ls - pos >= lp) {
      const std::size_t window = std::min(ls - pos, std::max(kFindWindow, 2 * lp));
      const auto* hit = static_cast<const char*>(memmem(s + pos, window, p, lp));
      if (hit != nullptr) {
        charge_bytes(L, static_cast<std::size_t>(hit - (s + pos)) + lp);
        lua_pushinteger(L, static_cast<lua_Integer>(hit - s) + 1);
        lua_pushinteger(L, static_cast<lua_Integer>(hit - s + lp));
        return 2;
      }
      charge_bytes(L, window);
      if (window == ls - pos) break;
      pos += window - lp + 1;  // the next window starts at the first start not yet tried
      check_watchdog(L);
    }
    luaL_pushfail(L);
    return 1;
  }
  // The matcher's own work is bounded by max_pattern_cost; the subject is charged as bytes
  // searched, gsub's result as bytes written.
  static int match(lua_State* L) {
    check_pattern(L, true);
    return call_charged(L, lua_rawlen(L, 1), 0);
  }
  static int gmatch(lua_State* L) {
    check_pattern(L, false);
    return call_charged(L, lua_rawlen(L, 1), 0);
  }
  static int gsub(lua_State* L) {
    check_pattern(L, true);
    return call_charged(L, lua_rawlen(L, 1), 0);
  }

  static int rep(lua_State* L) {
    std::size_t len = 0;
    std::size_t sep = 0;
    luaL_checklstring(L, 1, &len);
    const lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &sep);
    // Nothing to repeat: the library would still loop n times (up to 2^63) to build "".
    if (n <= 0 || len + sep == 0) {
      lua_pushliteral(L, "");
      return 1;
    }
    const double total = n <= 0 ? 0.0
                                : static_cast<double>(len) * static_cast<double>(n) +
                                      static_cast<double>(sep) * static_cast<double>(n - 1);
    if (total > static_cast<double>(options(L).max_rep_bytes)) {
      return luaL_error(L, "string.rep: result larger than %d bytes",
                        static_cast<int>(options(L).max_rep_bytes));
    }
    return call_charged(L, 0, 0);
  }

  // The raw length of table 1; refuses __len, whose answer could change between this check and
  // the library's own call.
  static lua_Integer raw_length(lua_State* L, const char* fn) {
    luaL_checktype(L, 1, LUA_TTABLE);
    if (luaL_getmetafield(L, 1, "__len") != LUA_TNIL) {
      luaL_error(L, "%s: tables with __len are not supported", fn);
    }
    return static_cast<lua_Integer>(lua_rawlen(L, 1));
  }
  static void check_span(lua_State* L, lua_Integer span, const char* fn) {
    if (span > options(L).max_table_span) {
      luaL_error(L, "%s: more than %d elements", fn, static_cast<int>(options(L).max_table_span));
    }
  }
  // A border of a table with a hash part can be far larger than its element count (t[2^k] for
  // every k), so insert and remove could shift ~2^62 absent elements, all in C.
  static int insert(lua_State* L) {
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
  static int remove(lua_State* L) {
    const lua_Integer n = raw_length(L, "table.remove");
    const lua_Integer pos = luaL_optinteger(L, 2, n);
    if (pos >= 1 && pos <= n) {
      check_span(L, n - pos, "table.remove");
      return call_charged(L, 0, static_cast<std::size_t>(n - pos));
    }
    return call_original(L);
  }
  static int move(lua_State* L) {
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
  static int concat(lua_State* L) {
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

  // string.pack, unpack and packsize read their format one option at a time in C, and pack
  // writes a 'cN' field (the string, then zeros up to N bytes) one byte at a time: the format
  // is capped at max_pack_format_bytes and pack's 'c' fields at max_rep_bytes in total.
  static void check_pack_format(lua_State* L, const char* fn, bool fields) {
    std::size_t len = 0;
    const char* f = luaL_checklstring(L, 1, &len);
    const auto& opts = options(L);
    if (len > opts.max_pack_format_bytes) {
      luaL_error(L, "%s: format longer than %d bytes", fn,
                 static_cast<int>(opts.max_pack_format_bytes));
    }
    if (!fields) return;
    double total = 0;
    for (std::size_t k = 0; k < len; ++k) {
      if (f[k] != 'c') continue;
      double size = 0;
      while (k + 1 < len && f[k + 1] >= '0' && f[k + 1] <= '9') size = size * 10 + (f[++k] - '0');
      total += size;
    }
    if (total > static_cast<double>(opts.max_rep_bytes)) {
      luaL_error(L, "%s: 'c' fields longer than %d bytes in total", fn,
                 static_cast<int>(opts.max_rep_bytes));
    }
  }
  static int pack(lua_State* L) {
    check_pack_format(L, "string.pack", true);
    return call_charged(L, lua_rawlen(L, 1), static_cast<std::size_t>(lua_gettop(L)));
  }
  static int unpack(lua_State* L) {
    check_pack_format(L, "string.unpack", false);
    return call_charged(L, lua_rawlen(L, 1), 0);
  }
  static int packsize(lua_State* L) {
    check_pack_format(L, "string.packsize", false);
    return call_charged(L, lua_rawlen(L, 1), 0);
  }

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
  static Instant work_start(lua_State* L) { return Sandbox::of(L).clock_->now(); }
  static void excuse_work(lua_State* L, Instant since) {
    Sandbox& s = Sandbox::of(L);
    if (Bot* bot = s.running_) bot->started_ += s.clock_->now() - since;
  }

  [[noreturn]] static void unordered_key_error(lua_State* L, int idx) {
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
  static constexpr lua_Integer kLowerSlot = 0;
  static constexpr lua_Integer kCountSlot = -1;
  static constexpr lua_Integer kCursorSlot = -2;

  // Pushes a new snapshot of the keys of table 1 greater than the value at `lower` and caches
  // it for table 1 (`cache` is the index of the cache).
  static void build_snapshot(lua_State* L, int lower, int cache) {
    KeyRecord lo{};
    if (!make_record(L, lower, &lo)) unordered_key_error(L, lower);
    const Instant started = work_start(L);
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

  static lua_Integer snapshot_int(lua_State* L, int snap, lua_Integer slot) {
    lua_rawgeti(L, snap, slot);
    const lua_Integer v = lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
  }

  // next(t, nil): the smallest key, found by a linear scan unless t[1] is set.
  static int first_key(lua_State* L, int cache) {
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
    const Instant started = work_start(L);
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

  static int next(lua_State* L) {
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
  static int pairs_continuation(lua_State*, int, lua_KContext) { return 3; }
  static int pairs(lua_State* L) {
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

  // --- tostring and string.format without addresses ---

  // Pushes what tostring shows for the value at `idx`: as luaL_tolstring (the __tostring
  // metamethod, else the plain value), except that a table, function, thread or userdata shows
  // as its __name or its type name alone, never "table: 0x55d0c2a4b2c0".
  static void push_display_string(lua_State* L, int idx) {
    idx = lua_absindex(L, idx);
    if (luaL_callmeta(L, idx, "__tostring") != 0) {
      if (lua_isstring(L, -1) == 0) luaL_error(L, "'__tostring' must return a string");
      lua_tolstring(L, -1, nullptr);  // a number becomes a string, as in luaL_tolstring
      return;
    }
    switch (lua_type(L, idx)) {
      case LUA_TNIL:
      case LUA_TBOOLEAN:
      case LUA_TNUMBER:
      case LUA_TSTRING:
        luaL_tolstring(L, idx, nullptr);  // no __tostring: the value itself, no address
        return;
      default: {
        const int tt = luaL_getmetafield(L, idx, "__name");
        if (tt == LUA_TSTRING) return;
        if (tt != LUA_TNIL) lua_pop(L, 1);
        lua_pushstring(L, luaL_typename(L, idx));
      }
    }
  }

  static int tostring(lua_State* L) {
    luaL_checkany(L, 1);
    push_display_string(L, 1);
    return 1;
  }

  // string.format: refuses %p (an address) and converts the arguments of %s that would show an
  // address (tables, functions, threads, userdata) with push_display_string before calling the
  // library's format. Conversions are found as Lua finds them: '%', then flags, width and
  // precision ("-+ #0123456789."), then the conversion letter; "%%" is a literal '%'.
  static int format(lua_State* L) {
    std::size_t len = 0;
    const char* f = luaL_checklstring(L, 1, &len);
    const int top = lua_gettop(L);
    int arg = 1;
    std::size_t formatted = 0;
    for (std::size_t i = 0; i < len; ++i) {
      if (f[i] != '%') continue;
      if (++i < len && f[i] == '%') continue;
      while (i < len && std::strchr("-+ #0123456789.", f[i]) != nullptr && f[i] != '\0') ++i;
      if (i >= len) break;  // the library reports the incomplete conversion
      if (f[i] == 'p') {
        return luaL_error(L, "string.format: '%%p' is not available (it would show an address)");
      }
      if (++arg > top) break;  // the library reports the missing value
      if ((f[i] == 's' || f[i] == 'q') && lua_type(L, arg) == LUA_TSTRING) {
        formatted += lua_rawlen(L, arg);  // %q writes up to 4 bytes per byte, one at a time
      }
      if (f[i] == 's') {
        const int t = lua_type(L, arg);
        if (t != LUA_TNIL && t != LUA_TBOOLEAN && t != LUA_TNUMBER && t != LUA_TSTRING) {
          push_display_string(L, arg);
          lua_replace(L, arg);
        }
      }
    }
    if (formatted > options(L).max_format_bytes) {
      return luaL_error(L, "string.format: more than %d bytes of strings to format",
                        static_cast<int>(options(L).max_format_bytes));
    }
    return call_charged(L, len, 0);
  }

  // --- table.sort with a deterministic pivot ---
  //
  // Lua 5.4's table.sort (ltablib.c), step for step, so that it calls the comparator exactly as
  // the library does, except for one thing: when a partition comes out badly unbalanced the
  // library picks later pivots with l_randomizePivot, which reads clock() and time(), so the
  // comparator calls (instructions, side effects, and the order of equal elements) could differ
  // between runs. Here that "randomness" is a hash of the sandbox seed and the interval.

  using SortIndex = unsigned int;
  static constexpr SortIndex kRandomPivotLimit = 100;  // RANLIMIT

  static constexpr std::size_t kLongComparison = 4096;  // bytes

  static int sort_less(lua_State* L, int a, int b) {
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

  static void sort_set2(lua_State* L, SortIndex i, SortIndex j) {
    lua_seti(L, 1, i);
    lua_seti(L, 1, j);
  }

  // Pivot P on top of the stack; a[lo] <= P == a[up - 1] <= a[up]. Returns P's final index.
  static SortIndex sort_partition(lua_State* L, SortIndex lo, SortIndex up) {
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

  static unsigned int sort_salt(lua_State* L, SortIndex lo, SortIndex up) {
    const std::uint64_t h = splitmix64(options(L).seed ^
                                       ((static_cast<std::uint64_t>(lo) << 32) | up));
    return static_cast<unsigned int>(h >> 32);
  }

  static void sort_range(lua_State* L, SortIndex lo, SortIndex up, unsigned int rnd) {
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

  static int sort(lua_State* L) {
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

  // xpcall whose message handler never runs for a condemned bot. The hook raises a condemned
  // bot's error with hooks off, and Lua calls the message handler right there: its code would
  // run with no budget and no watchdog. A live bot's handler runs as usual.
  static int xpcall(lua_State* L) {
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
  static int results(lua_State* L, int, lua_KContext) { return lua_gettop(L); }
  static int guarded_handler(lua_State* L) {
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
  static void wrap(lua_State* L, const char* module, const char* name, lua_CFunction fn) {
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
  static void remove_field(lua_State* L, const char* name) {
    lua_pushnil(L);
    lua_setfield(L, -2, name);
  }
};

Sandbox& Sandbox::of(lua_State* L) {
  return **static_cast<Sandbox**>(lua_getextraspace(L));
}

Bot* Sandbox::current_bot(lua_State* L) {
  Sandbox& s = of(L);
  return s.loading_ ? nullptr : s.running_;
}

void Sandbox::charge(lua_State* L, int n) {
  assert(n >= 0);
  if (Bot* bot = of(L).running_) bot->used_ += n;
}

int Sandbox::block(lua_State* L, std::string_view reason) {
  Bot* bot = of(L).running_;
  if (bot == nullptr || !lua_isyieldable(L)) {
    return luaL_error(L, "cannot block here (inside a callback)");
  }
  bot->yield_kind_ = StepStatus::blocked;
  bot->block_reason_.assign(reason);
  return lua_yield(L, 0);
}

void* Sandbox::allocate(void* ud, void* ptr, std::size_t old_size, std::size_t new_size) {
  auto& s = *static_cast<Sandbox*>(ud);
  const std::size_t old = ptr != nullptr ? old_size : 0;  // else old_size is a type tag
  if (new_size == 0) {
    std::free(ptr);
    s.memory_used_ -= old;
    return nullptr;
  }
  if (new_size > old && s.host_scopes_ == 0 &&
      s.memory_used_ - old + new_size > s.options_.memory_limit) {
    s.out_of_memory_ = true;
    return nullptr;
  }
  void* block = std::realloc(ptr, new_size);
  if (block == nullptr) {
    if (new_size > old) return nullptr;
    block = ptr;  // Lua requires shrinking to succeed; keep the larger block
  }
  s.memory_used_ = s.memory_used_ - old + new_size;
  return block;
}

Sandbox::Sandbox(SandboxOptions options)
    : options_(options),
      clock_(options.clock != nullptr ? options.clock : &SteadyClock::instance()),
      rng_(options.seed) {
  HostScope scope(*this);
  L_ = lua_newstate(&Sandbox::allocate, this);
  if (L_ == nullptr) throw std::bad_alloc();
  *static_cast<Sandbox**>(lua_getextraspace(L_)) = this;  // copied into every new thread
  lua_atpanic(L_, [](lua_State* L) -> int {
    std::fprintf(stderr, "arbiter::lua: unprotected Lua error: %s\n", one_line(L, -1).c_str());
    std::abort();
  });
  open_libraries();
}

Sandbox::~Sandbox() {
  lua_close(L_);
}

void Sandbox::open_libraries() {
  lua_State* L = L_;
  luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
  for (const char* name : {"dofile", "loadfile", "collectgarbage", "print", "warn"}) {
    Library::remove_field(L, name);
  }
  lua_pushcfunction(L, &Library::load);
  lua_setfield(L, -2, "load");
  Library::wrap(L, "_G", "setmetatable", &Library::setmetatable);
  Library::wrap(L, "_G", "xpcall", &Library::xpcall);
  Library::wrap(L, "_G", "tonumber", &Library::charged_arguments);
  Library::wrap(L, "_G", "select", &Library::charged_arguments);
  lua_newtable(L);
  lua_setfield(L, -2, "shared");
  lua_pushcfunction(L, &Library::cas);
  lua_setfield(L, -2, "cas");
  lua_pushcfunction(L, &Library::yield);
  lua_setfield(L, -2, "yield");
  // Deterministic next and pairs: next's upvalue is its snapshot cache, weak-keyed so that a
  // snapshot lives no longer than its table; pairs returns that same next.
  lua_newtable(L);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_pushcclosure(L, &Library::next, 1);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "next");
  lua_pushcclosure(L, &Library::pairs, 1);
  lua_setfield(L, -2, "pairs");
  lua_pushcfunction(L, &Library::tostring);
  lua_setfield(L, -2, "tostring");
  lua_pop(L, 1);

  luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
  Library::remove_field(L, "randomseed");
  Library::wrap(L, "math", "max", &Library::charged_arguments);
  Library::wrap(L, "math", "min", &Library::charged_arguments);
  lua_pushcfunction(L, &Library::random);
  lua_setfield(L, -2, "random");
  lua_pop(L, 1);

  luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);  // also the strings' metatable
  Library::remove_field(L, "dump");
  Library::wrap(L, "string", "find", &Library::find);
  Library::wrap(L, "string", "match", &Library::match);
  Library::wrap(L, "string", "gmatch", &Library::gmatch);
  Library::wrap(L, "string", "gsub", &Library::gsub);
  Library::wrap(L, "string", "rep", &Library::rep);
  Library::wrap(L, "string", "format", &Library::format);
  Library::wrap(L, "string", "pack", &Library::pack);
  Library::wrap(L, "string", "unpack", &Library::unpack);
  Library::wrap(L, "string", "packsize", &Library::packsize);
  for (const char* fn : {"byte", "sub", "lower", "upper", "reverse"}) {
    Library::wrap(L, "string", fn, &Library::charged_results);
  }
  Library::wrap(L, "string", "char", &Library::charged_arguments);
  lua_pop(L, 1);

  luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
  Library::wrap(L, "table", "insert", &Library::insert);
  Library::wrap(L, "table", "remove", &Library::remove);
  Library::wrap(L, "table", "move", &Library::move);
  Library::wrap(L, "table", "concat", &Library::concat);
  Library::wrap(L, "table", "unpack", &Library::charged_results);
  Library::wrap(L, "table", "pack", &Library::charged_arguments);
  lua_pushcfunction(L, &Library::sort);
  lua_setfield(L, -2, "sort");
  lua_pop(L, 1);

  // Trusted code, run without a hook on the main thread.
  if (luaL_loadbufferx(L, kBarrierSource.data(), kBarrierSource.size(), "=barrier", "t") !=
          LUA_OK ||
      lua_pcall(L, 0, 1, 0) != LUA_OK) {
    std::fprintf(stderr, "arbiter::lua: barrier library: %s\n", one_line(L, -1).c_str());
    std::abort();
  }
  lua_setglobal(L, "barrier");
}

void Sandbox::define(const std::string& name, HostFunction fn) {
  HostScope scope(*this);
  HostFunction& stored = host_functions_.emplace_back(std::move(fn));
  lua_pushlightuserdata(L_, &stored);
  lua_pushcclosure(L_, &Library::host_trampoline, 1);
  lua_setglobal(L_, name.c_str());
}

std::unique_ptr<Bot> Sandbox::make_bot(lua_State* L, int index, int pid) {
  HostScope scope(*this);
  index = lua_absindex(L, index);
  luaL_checkstack(L, 2, "spawning a bot");
  lua_State* thread = lua_newthread(L);
  lua_pushvalue(L, index);
  lua_xmove(L, thread, 1);
  const int ref = luaL_ref(L, LUA_REGISTRYINDEX);  // pops the thread
  // Count 1: the hook sees every instruction, which makes budgets exact and lets charges and
  // early ends be accounted precisely (Lua has no way to read a partly run count). Calls too:
  // a C function called from C (a metamethod or callback that is itself a library function)
  // runs no instruction, so a C loop calling one would never meet the count hook.
  lua_sethook(thread, &Bot::hook, LUA_MASKCOUNT | LUA_MASKCALL, 1);
  return std::unique_ptr<Bot>(new Bot(*this, thread, ref, pid));
}

std::unique_ptr<Bot> Sandbox::spawn_main(int pid) {
  assert(main_ref_ != LUA_NOREF);
  HostScope scope(*this);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, main_ref_);
  auto bot = make_bot(L_, -1, pid);
  lua_pop(L_, 1);
  return bot;
}

std::unique_ptr<Bot> Sandbox::spawn_function(lua_State* L, int index, int pid) {
  assert(lua_isfunction(L, index));
  return make_bot(L, index, pid);
}

void Sandbox::start_round() {
  if (options_.cpu_time) round_cpu_ = options_.cpu_time();
}

bool Sandbox::past_watchdog(Instant started) const {
  if (clock_->now() - started <= options_.watchdog) return false;
  return !options_.cpu_time || options_.cpu_time() - round_cpu_ > options_.watchdog;
}

std::expected<void, std::string> Sandbox::load_team(std::string_view source,
                                                    std::string_view chunk_name) {
  assert(main_ref_ == LUA_NOREF && running_ == nullptr);
  start_round();
  const std::string chunk = "=" + std::string(chunk_name);
  // Compiled under the cap: the parser is protected and reports running out as an error.
  if (luaL_loadbufferx(L_, source.data(), source.size(), chunk.c_str(), "t") != LUA_OK) {
    std::string msg = one_line(L_, -1);
    lua_pop(L_, 1);
    return std::unexpected(out_of_memory_ ? "out of memory" : msg);
  }
  std::unique_ptr<Bot> loader = make_bot(L_, -1, -1);
  lua_pop(L_, 1);
  loading_ = true;
  const StepResult r = loader->step(options_.load_budget);
  loading_ = false;
  switch (r.status) {
    case StepStatus::finished: {
      lua_State* t = loader->thread_;
      if (loader->results_ < 1 || !lua_isfunction(t, lua_gettop(t) - loader->results_ + 1)) {
        return std::unexpected("the team chunk must return a function");
      }
      HostScope scope(*this);
      lua_pushvalue(t, lua_gettop(t) - loader->results_ + 1);
      lua_xmove(t, L_, 1);
      main_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
      return {};
    }
    case StepStatus::ran_out:
      return std::unexpected(
          fmt::format("the team chunk ran longer than {} instructions", options_.load_budget));
    case StepStatus::yielded:
    case StepStatus::blocked:
      return std::unexpected("the team chunk must not yield or block");
    case StepStatus::error:
      return std::unexpected(r.detail);
    case StepStatus::out_of_memory:
      return std::unexpected("out of memory");
    case StepStatus::overrun:
    case StepStatus::watchdog:
      return std::unexpected(fmt::format("the team chunk was stopped ({})", name(r.status)));
  }
  return std::unexpected("unreachable");
}

Bot::Bot(Sandbox& sandbox, lua_State* thread, int ref, int pid)
    : sandbox_(sandbox), thread_(thread), ref_(ref), pid_(pid) {}

Bot::~Bot() {
  assert(sandbox_.running_ != this);
  Sandbox::HostScope scope(sandbox_);
  luaL_unref(sandbox_.L_, LUA_REGISTRYINDEX, ref_);  // the thread becomes garbage
}

void Bot::raise_condemned(lua_State* L) {
  lua_pushliteral(L, "bot killed by the referee");
  lua_error(L);
  __builtin_unreachable();
}

// Called before every instruction of a bot (count 1) and at every call. A hook may raise an
// error; a count hook may yield only as its last action, and then the instruction is not
// executed and runs again on resume. A call event is not an instruction: it only checks.
void Bot::hook(lua_State* L, lua_Debug* ar) {
  Sandbox& s = Sandbox::of(L);
  Bot* bot = s.running_;
  // A condemned bot is raised at on every instruction, so its own pcall, xpcall handlers and
  // __close methods cannot rescue it: each of them is stopped at its first instruction.
  if (bot->condemned_ != Condemned::no) raise_condemned(L);
  if (s.out_of_memory_) {
    bot->condemned_ = Condemned::out_of_memory;
    raise_condemned(L);
  }
  if ((++bot->ticks_ & 15U) == 0 && s.past_watchdog(bot->started_)) {
    bot->condemned_ = Condemned::watchdog;
    raise_condemned(L);
  }
  if (ar->event != LUA_HOOKCOUNT) {
    // A call: a loop of C calls from C runs no instruction, so work charged in it is judged
    // here as it would be inside a callback.
    if (bot->used_ - bot->allowance_ >= s.options_.overrun_limit) {
      bot->condemned_ = Condemned::overrun;
      raise_condemned(L);
    }
    return;
  }
  if (bot->used_ >= bot->allowance_) {
    if (lua_isyieldable(L)) {
      bot->yield_kind_ = StepStatus::ran_out;
      lua_yield(L, 0);
      return;
    }
    // Inside a callback of C code (sort comparator, gsub function, metamethod called from C):
    // keep going, the excess becomes debt, but not forever.
    if (bot->used_ - bot->allowance_ >= s.options_.overrun_limit) {
      bot->condemned_ = Condemned::overrun;
      raise_condemned(L);
    }
  }
  ++bot->used_;
}

StepResult Bot::finish(StepStatus status, std::string detail) {
  alive_ = false;
  return {status, static_cast<int>(used_), std::move(detail)};
}

StepResult Bot::step(int budget) {
  assert(alive_ && budget > 0 && sandbox_.running_ == nullptr);
  used_ = 0;
  if (sandbox_.out_of_memory_) return finish(StepStatus::out_of_memory);
  if (debt_ >= budget) {
    debt_ -= budget;
    return {StepStatus::ran_out, 0, {}};
  }
  allowance_ = budget - debt_;
  debt_ = 0;
  // After the hook yielded, Lua re-runs the interrupted instruction without calling the hook
  // again (it remembers that the hook already ran for it), so that instruction is counted here.
  used_ = after_hook_yield_ ? 1 : 0;
  after_hook_yield_ = false;
  ticks_ = 0;
  condemned_ = Condemned::no;
  yield_kind_ = StepStatus::ran_out;
  block_reason_.clear();
  started_ = sandbox_.clock_->now();

  sandbox_.running_ = this;
  int results = 0;
  const int status = lua_resume(thread_, nullptr, 0, &results);
  sandbox_.running_ = nullptr;

  const bool too_slow = sandbox_.past_watchdog(started_);
  if (used_ > allowance_) debt_ = used_ - allowance_;
  if (sandbox_.out_of_memory_ || status == LUA_ERRMEM || condemned_ == Condemned::out_of_memory) {
    sandbox_.out_of_memory_ = true;
    return finish(StepStatus::out_of_memory);
  }
  if (condemned_ == Condemned::overrun) return finish(StepStatus::overrun);
  if (condemned_ == Condemned::watchdog || too_slow) return finish(StepStatus::watchdog);
  switch (status) {
    case LUA_YIELD:
      lua_pop(thread_, results);
      after_hook_yield_ = yield_kind_ == StepStatus::ran_out;
      return {yield_kind_, static_cast<int>(used_),
              yield_kind_ == StepStatus::blocked ? block_reason_ : std::string()};
    case LUA_OK:
      results_ = results;
      return finish(StepStatus::finished);
    default:
      return finish(StepStatus::error, one_line(thread_, -1));
  }
}

}  // namespace arbiter::lua
