// The Lua sandbox: the capped allocator, the whitelisted and guarded libraries, the barrier
// library, and the instruction-counting step of a bot.
#include "lua/sandbox.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace arbiter::lua {
namespace {

// Spec §6, shipped with every sandbox. It keeps its own references to cas and yield, so a team
// that reassigns those globals does not break it.
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
      msg.assign(s, len);
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

  static int find(lua_State* L) {
    std::size_t plen = 0;
    const char* p = luaL_checklstring(L, 2, &plen);
    if (!lua_toboolean(L, 4) && has_specials({p, plen})) check_pattern(L, true);
    return call_original(L);
  }
  static int match(lua_State* L) {
    check_pattern(L, true);
    return call_original(L);
  }
  static int gmatch(lua_State* L) {
    check_pattern(L, false);
    return call_original(L);
  }
  static int gsub(lua_State* L) {
    check_pattern(L, true);
    return call_original(L);
  }

  static int rep(lua_State* L) {
    std::size_t len = 0;
    std::size_t sep = 0;
    luaL_checklstring(L, 1, &len);
    const lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &sep);
    const double total = n <= 0 ? 0.0
                                : static_cast<double>(len) * static_cast<double>(n) +
                                      static_cast<double>(sep) * static_cast<double>(n - 1);
    if (total > static_cast<double>(options(L).max_rep_bytes)) {
      return luaL_error(L, "string.rep: result larger than %d bytes",
                        static_cast<int>(options(L).max_rep_bytes));
    }
    return call_original(L);
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
      if (pos >= 1 && pos <= n + 1) check_span(L, n - pos + 1, "table.insert");
    }
    return call_original(L);
  }
  static int remove(lua_State* L) {
    const lua_Integer n = raw_length(L, "table.remove");
    const lua_Integer pos = luaL_optinteger(L, 2, n);
    if (pos >= 1 && pos <= n) check_span(L, n - pos, "table.remove");
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
    }
    return call_original(L);
  }

  // Replaces field `name` of the table on top of the stack by `fn` wrapping the original.
  static void wrap(lua_State* L, const char* name, lua_CFunction fn) {
    lua_getfield(L, -1, name);
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
  Library::wrap(L, "setmetatable", &Library::setmetatable);
  lua_newtable(L);
  lua_setfield(L, -2, "shared");
  lua_pushcfunction(L, &Library::cas);
  lua_setfield(L, -2, "cas");
  lua_pushcfunction(L, &Library::yield);
  lua_setfield(L, -2, "yield");
  lua_pop(L, 1);

  luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
  Library::remove_field(L, "randomseed");
  lua_pushcfunction(L, &Library::random);
  lua_setfield(L, -2, "random");
  lua_pop(L, 1);

  luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);  // also the strings' metatable
  Library::remove_field(L, "dump");
  Library::wrap(L, "find", &Library::find);
  Library::wrap(L, "match", &Library::match);
  Library::wrap(L, "gmatch", &Library::gmatch);
  Library::wrap(L, "gsub", &Library::gsub);
  Library::wrap(L, "rep", &Library::rep);
  lua_pop(L, 1);

  luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
  Library::wrap(L, "insert", &Library::insert);
  Library::wrap(L, "remove", &Library::remove);
  Library::wrap(L, "move", &Library::move);
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
  // early ends be accounted precisely (Lua has no way to read a partly run count).
  lua_sethook(thread, &Bot::hook, LUA_MASKCOUNT, 1);
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

std::expected<void, std::string> Sandbox::load_team(std::string_view source,
                                                    std::string_view chunk_name) {
  assert(main_ref_ == LUA_NOREF && running_ == nullptr);
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

// Called before every instruction of a bot (count 1). A hook may raise an error; it may yield
// only as its last action, and then the instruction is not executed and runs again on resume.
void Bot::hook(lua_State* L, lua_Debug*) {
  Sandbox& s = Sandbox::of(L);
  Bot* bot = s.running_;
  // A condemned bot is raised at on every instruction, so its own pcall, xpcall handlers and
  // __close methods cannot rescue it: each of them is stopped at its first instruction.
  if (bot->condemned_ != Condemned::no) raise_condemned(L);
  if (s.out_of_memory_) {
    bot->condemned_ = Condemned::out_of_memory;
    raise_condemned(L);
  }
  if ((++bot->ticks_ & 15U) == 0 && s.clock_->now() - bot->started_ > s.options_.watchdog) {
    bot->condemned_ = Condemned::watchdog;
    raise_condemned(L);
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

  const bool too_slow = sandbox_.clock_->now() - started_ > sandbox_.options_.watchdog;
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
