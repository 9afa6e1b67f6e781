// The Lua sandbox: the capped allocator, the libraries a team's state opens (their functions are
// Sandbox::Library, sandbox_internal.h), the barrier library, and the instruction-counting step
// of a bot.
#include "lua/sandbox.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <utility>

#include <fmt/format.h>

#include "lua/countdown.h"
#include "lua/sandbox_internal.h"
#include "lua/step_alarm.h"

namespace arbiter::lua {
namespace {

constexpr int kHookMask = LUA_MASKCOUNT | LUA_MASKCALL;
// CLOCK_MONOTONIC_COARSE in nanoseconds: a few nanoseconds to read, advancing every few ms.
long long coarse_tick() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<long long>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec;
}

// The most instructions between two calls of the count hook, where the watchdog is looked at.
// One instruction can take milliseconds (comparing strings of many MiB), so a step past its
// watchdog is also rung (lua/step_alarm.h): the hook looks at the clock at its next line or jump
// back. Only slow instructions on one line with no jump back still run to the end of their
// slice. Each halving of the slice costs a busy bot about a tenth of its speed
// (abalone_bench hooked_vs_plain: 0.72 at 16, 0.78 at 32, 0.87 at 64).
constexpr long long kMaxSlice = 64;
// A rung step that was not condemned is rung again after this.
constexpr auto kRingAgain = std::chrono::milliseconds(10);

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

Sandbox& Sandbox::of(lua_State* L) {
  return **static_cast<Sandbox**>(lua_getextraspace(L));
}

Bot* Sandbox::current_bot(lua_State* L) {
  Sandbox& s = of(L);
  return s.loading_ ? nullptr : s.running_;
}

void Sandbox::charge(lua_State* L, int n) {
  assert(n >= 0);
  if (Bot* bot = of(L).running_) {
    bot->mark_ = bot->used_now() + n;
    bot->arm();
  }
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
      countdown_(options.hook_every_instruction ? std::nullopt : Countdown::find()),
      clock_(options.clock != nullptr ? options.clock : &SteadyClock::instance()),
      rings_(countdown_.has_value() && options.clock == nullptr),
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
  // Calls too: a C function called from C (a metamethod or callback that is itself a library
  // function) runs no instruction, so a C loop calling one would never meet the count hook.
  // The count is set by each step (Bot::arm).
  lua_sethook(thread, &Bot::hook, kHookMask, 1);
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
  // From here on the hook must see every instruction, so that no pcall, handler or __close of
  // the bot's gets to run.
  if (Bot* bot = Sandbox::of(L).running_) bot->arm_every_instruction();
  lua_pushliteral(L, "bot killed by the referee");
  lua_error(L);
  __builtin_unreachable();
}

long long Bot::used_now() const {
  // With a count of 1 the hook has counted every instruction itself (the countdown is back at
  // 1 whenever anything else runs), so the countdown is read only for longer slices.
  return slice_ == 1 ? mark_ : mark_ + slice_ - (*sandbox_.countdown_)(thread_);
}

void Bot::arm() {
  long long slice = 1;
  if (mark_ < allowance_ && sandbox_.countdown_) slice = std::min(allowance_ - mark_ + 1, kMaxSlice);
  // Lua restarts the count from the last one set: the common case sets nothing.
  if (slice == slice_ && (slice == 1 || (*sandbox_.countdown_)(thread_) == slice_)) return;
  slice_ = static_cast<int>(slice);
  StepAlarm::Hold hold;
  // A ring that landed since the hook last ran set the line hook: keep it until it fires.
  lua_sethook(thread_, &Bot::hook, kHookMask | (lua_gethookmask(thread_) & LUA_MASKLINE), slice_);
}

void Bot::arm_every_instruction() {
  mark_ = used_now();
  slice_ = 1;
  StepAlarm::Hold hold;
  lua_sethook(thread_, &Bot::hook, kHookMask, 1);
}

// Called before the instruction that ends each slice (a count event), and at every call. A hook
// may raise an error; a count hook may yield only as its last action, and then the instruction is
// not executed and runs again on resume. A call event is not an instruction: it only checks.
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
  if (ar->event == LUA_HOOKLINE) {
    // The step was rung (lua/step_alarm.h): it has run for the watchdog's time, and the clock
    // decides now. (Lua calls the line hook even after the count hook of the same instruction
    // has yielded: the step is over then.)
    if (lua_status(L) == LUA_YIELD) return;
    bot->rung_ = true;
    if (s.past_watchdog(bot->started_)) {
      bot->condemned_ = Condemned::watchdog;
      raise_condemned(L);
    }
    // Its CPU time says it was only kept waiting: no runaway. The line hook goes off (the
    // countdown as it is) and the alarm rings again a little later.
    if (const int left = (*s.countdown_)(L); left >= 1) {
      StepAlarm::Hold hold;
      lua_sethook(L, &Bot::hook, kHookMask, left);
    }
    StepAlarm::rearm(kRingAgain);
    return;
  }
  const bool count_event = ar->event == LUA_HOOKCOUNT;
  bot->ticks_ += count_event ? static_cast<unsigned>(bot->slice_) : 1U;
  // The watchdog's clock is read once the kernel's coarse clock has moved (every few ms):
  // reading it on every call of the hook was an eighth of a busy bot's time.
  if (bot->ticks_ >= 16) {
    bot->ticks_ = 0;
    if (const long long tick = coarse_tick(); tick != bot->coarse_seen_) {
      bot->coarse_seen_ = tick;
      if (s.past_watchdog(bot->started_)) {
        bot->condemned_ = Condemned::watchdog;
        raise_condemned(L);
      }
    }
  }
  if (!count_event) {
    // A call: a loop of C calls from C runs no instruction, so work charged in it is judged
    // here as it would be inside a callback.
    if (bot->used_now() - bot->allowance_ >= s.options_.overrun_limit) {
      bot->condemned_ = Condemned::overrun;
      raise_condemned(L);
    }
    return;
  }
  // The countdown has just started again from slice_: every instruction of the slice but this
  // one has run.
  const long long before = bot->mark_ + bot->slice_ - 1;
  if (before >= bot->allowance_) {
    if (lua_isyieldable(L)) {
      bot->used_ = before;
      bot->yield_kind_ = StepStatus::ran_out;
      lua_yield(L, 0);
      return;
    }
    // Inside a callback of C code (sort comparator, gsub function, metamethod called from C):
    // keep going, the excess becomes debt, but not forever.
    if (before - bot->allowance_ >= s.options_.overrun_limit) {
      bot->condemned_ = Condemned::overrun;
      raise_condemned(L);
    }
  }
  bot->mark_ = before + 1;
  bot->arm();
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
  // That memory is only cleared when a count runs out, so the first count is 1: a longer one
  // would make Lua skip the call of the hook at its end.
  mark_ = after_hook_yield_ ? 1 : 0;
  used_ = 0;
  rung_ = false;
  // A ring of the last step may have left the line hook on: set the hook again.
  if (after_hook_yield_ || (lua_gethookmask(thread_) & LUA_MASKLINE) != 0) {
    slice_ = 1;
    StepAlarm::Hold hold;
    lua_sethook(thread_, &Bot::hook, kHookMask, 1);
  }
  if (!after_hook_yield_) arm();
  after_hook_yield_ = false;
  ticks_ = 0;
  coarse_seen_ = 0;
  condemned_ = Condemned::no;
  yield_kind_ = StepStatus::ran_out;
  block_reason_.clear();
  started_ = sandbox_.clock_->now();

  sandbox_.running_ = this;
  const bool ringing = sandbox_.rings_;
  if (ringing) {
    using std::chrono::milliseconds;
    StepAlarm::arm(thread_, *sandbox_.countdown_,
                   std::chrono::duration_cast<milliseconds>(sandbox_.options_.watchdog));
  }
  int results = 0;
  const int status = lua_resume(thread_, nullptr, 0, &results);
  if (ringing) StepAlarm::disarm();
  sandbox_.running_ = nullptr;
  // The hook recorded the total when it yielded; otherwise the countdown tells.
  const bool hook_yielded = status == LUA_YIELD && yield_kind_ == StepStatus::ran_out;
  if (!hook_yielded) used_ = used_now();

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
