// The string library's guarded functions: patterns refused when their backtracking could explode,
// a plain find that stays linear, capped rep and pack, and tostring and string.format without
// addresses; each charges its work to the running bot.
#include "lua/sandbox_internal.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace arbiter::lua {
namespace {

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

}  // namespace

void Sandbox::Library::check_pattern(lua_State* L, bool can_anchor) {
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
std::size_t Sandbox::Library::start_position(lua_Integer pos, std::size_t len) {
  if (pos > 0) return static_cast<std::size_t>(pos);
  if (pos == 0 || pos < -static_cast<lua_Integer>(len)) return 1;
  return len + static_cast<std::size_t>(pos) + 1;
}

// A plain search (plain = true, or a pattern without specials) is done here rather than by
// the library, whose lmemfind is O(subject x needle): 2 MiB of 'a' then 'b' in 8 MiB of 'a'
// ran for hours in one C call. glibc's memmem is linear in the worst case (Two-Way for long
// needles; measured ~10 ns a byte whatever the needle). The subject is searched a window
// of about 1 MiB at a time so the watchdog is looked at between windows.
constexpr std::size_t kFindWindow = std::size_t{1} << 20;

int Sandbox::Library::find(lua_State* L) {
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
int Sandbox::Library::match(lua_State* L) {
  check_pattern(L, true);
  return call_charged(L, lua_rawlen(L, 1), 0);
}
int Sandbox::Library::gmatch(lua_State* L) {
  check_pattern(L, false);
  return call_charged(L, lua_rawlen(L, 1), 0);
}
int Sandbox::Library::gsub(lua_State* L) {
  check_pattern(L, true);
  return call_charged(L, lua_rawlen(L, 1), 0);
}

int Sandbox::Library::rep(lua_State* L) {
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

// string.pack, unpack and packsize read their format one option at a time in C, and pack
// writes a 'cN' field (the string, then zeros up to N bytes) one byte at a time: the format
// is capped at max_pack_format_bytes and pack's 'c' fields at max_rep_bytes in total.
void Sandbox::Library::check_pack_format(lua_State* L, const char* fn, bool fields) {
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
int Sandbox::Library::pack(lua_State* L) {
  check_pack_format(L, "string.pack", true);
  return call_charged(L, lua_rawlen(L, 1), static_cast<std::size_t>(lua_gettop(L)));
}
int Sandbox::Library::unpack(lua_State* L) {
  check_pack_format(L, "string.unpack", false);
  return call_charged(L, lua_rawlen(L, 1), 0);
}
int Sandbox::Library::packsize(lua_State* L) {
  check_pack_format(L, "string.packsize", false);
  return call_charged(L, lua_rawlen(L, 1), 0);
}

// --- tostring and string.format without addresses ---

// Pushes what tostring shows for the value at `idx`: as luaL_tolstring (the __tostring
// metamethod, else the plain value), except that a table, function, thread or userdata shows
// as its __name or its type name alone, never "table: 0x55d0c2a4b2c0".
void Sandbox::Library::push_display_string(lua_State* L, int idx) {
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

int Sandbox::Library::tostring(lua_State* L) {
  luaL_checkany(L, 1);
  push_display_string(L, 1);
  return 1;
}

// string.format: refuses %p (an address) and converts the arguments of %s that would show an
// address (tables, functions, threads, userdata) with push_display_string before calling the
// library's format. Conversions are found as Lua finds them: '%', then flags, width and
// precision ("-+ #0123456789."), then the conversion letter; "%%" is a literal '%'.
int Sandbox::Library::format(lua_State* L) {
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

}  // namespace arbiter::lua
