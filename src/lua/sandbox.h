// Sandbox and Bot: the game-agnostic runtime for untrusted Lua 5.4 team programs. A Sandbox is
// one lua_State per team (memory cap, whitelisted libraries, seeded math.random, guarded string
// patterns, `shared`, `cas`, `yield`, `barrier`); a Bot is one Lua thread per piece, stepped for
// an exact number of VM instructions at a time. Games add their actions with define().
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <lua.hpp>

#include "core/clock.h"
#include "core/rng.h"
#include "lua/countdown.h"

namespace arbiter::lua {

struct SandboxOptions {
  std::size_t memory_limit = std::size_t{64} << 20;  // bytes of Lua heap, garbage included
  std::uint64_t seed = 0;                            // seeds math.random
  Duration watchdog = std::chrono::milliseconds(50);  // wall-clock limit of one step
  const Clock* clock = nullptr;                      // for the watchdog; null = SteadyClock
  // The calling thread's CPU time (e.g. thread_cpu_time). When set, a step past the watchdog
  // on `clock` is only condemned if this thread also spent more than the watchdog's worth of
  // CPU time since the last start_round(): a thread that merely waited for a core on a busy
  // machine is not a runaway bot. Null: wall-clock time alone decides.
  std::function<Duration()> cpu_time;
  // Instructions a bot may run past its budget inside a callback that cannot yield (table.sort
  // comparator, gsub callback, ...) before it is killed with StepStatus::overrun.
  int overrun_limit = 100'000;
  // Call the budget hook before every instruction instead of once per slice of up to 64 (see
  // lua/countdown.h): the same counts, slower. For tests that compare the two.
  bool hook_every_instruction = false;
  int load_budget = 1'000'000;                 // instructions the team chunk may run at load
  std::size_t max_rep_bytes = std::size_t{1} << 20;  // largest string.rep result
  // string.find/match/gmatch/gsub refuse a pattern whose worst-case backtracking estimate on
  // the given subject exceeds this many steps (see pattern_cost in string_library.cpp).
  double max_pattern_cost = 2e7;
  std::size_t max_pattern_bytes = 256;
  // table.insert, table.remove and table.move refuse to shift or copy more elements than this
  // in one call (they loop in C, where no instruction is counted).
  long long max_table_span = 1 << 20;
  // load refuses chunks longer than this (the parser runs in C, ~30 ns a byte).
  std::size_t max_load_bytes = std::size_t{1} << 20;
  // string.format refuses to format more bytes of strings (%s, %q) than this in one call.
  std::size_t max_format_bytes = std::size_t{1} << 20;
  // string.pack, unpack and packsize refuse longer formats.
  std::size_t max_pack_format_bytes = 1024;
};

enum class StepStatus {
  ran_out,        // the budget ran out; the bot continues next step
  yielded,        // the bot called yield(); it continues next step
  blocked,        // a host action blocked (Sandbox::block); `detail` is the reason
  finished,       // the bot's function returned: the bot is dead
  error,          // runtime error: the bot is dead; `detail` is a one-line message
  overrun,        // ran overrun_limit past the budget where it could not yield: dead
  out_of_memory,  // the team's state hit its memory cap (the whole team is done)
  watchdog,       // the step took longer than the watchdog (the whole team is done)
};

// The name of a status, e.g. "ran_out".
std::string_view name(StepStatus status);

struct StepResult {
  StepStatus status = StepStatus::ran_out;
  // Instructions run plus action charges in this step. It can exceed the budget (a charge at
  // the end of the budget, or a stretch that could not yield); the excess is owed and taken
  // from the bot's following steps, so no bot gets more than its share over time.
  int budget_used = 0;
  std::string detail;  // blocked: the reason; error: the message; otherwise empty
};

class Bot;

// One team's Lua state. Globals: the base library without dofile, loadfile, collectgarbage and
// print; `load` for text chunks only; `setmetatable` refusing metatables with `__gc`; `next` and
// `pairs` in a canonical key order; `tostring` without addresses; `math` without randomseed and
// with `random` drawn from the seeded Rng; `string` without dump, with guarded patterns, a
// capped rep and a format without `%p`; `table` with a deterministic sort; `shared`; `cas`;
// `yield`; `barrier`; and whatever the game define()s. Nothing else (no io, os, debug, package,
// require, coroutine, utf8).
//
// Cost: work a library function does in C in proportion to its input is charged to the running
// bot after the call (one instruction per 32 bytes and per 8 values touched, rounded down;
// load: one per byte of text) or refused above a cap (the max_* options); a plain
// string.find is linear. The hook also fires on every call, so a loop of C functions calling C
// functions meets the watchdog. docs/security.md has the table, function by function.
//
// Determinism: what a team can observe must not depend on addresses, the state's random
// string-hash seed or the clock, so that the same seed and teams give the same game.
//  - next(t, k) and pairs(t) (without __pairs) visit positive integer keys ascending, then the
//    other numbers ascending, then strings in byte order, then false, then true. A traversal
//    that meets a key of another type (table, function, thread, userdata) raises
//    "next: a table with table keys has no deterministic order ...". The work is charged to the
//    bot: about n (log2 n + 3) instructions for a full traversal of n keys that are not a
//    sequence (a sequence 1..n: n, for the scan that finds nothing after n), n for next(t) on a
//    table without t[1]; its wall-clock time is not held against the watchdog. __pairs is honoured, as in Lua 5.4: its function is
//    team code, as deterministic as the rest.
//  - tostring(v) and string.format("%s", v) show a table, function, thread or userdata without
//    __tostring as its __name or its type name ("table"), never with an address; "%p" raises.
//    Lua's own error messages hold no addresses, and an error object that is not a string or a
//    number is reported as "error object is a <type> value".
//  - table.sort is Lua's algorithm with the clock-seeded pivot choice (used on unbalanced
//    partitions) replaced by a hash of the seed.
// Not closed here (it would need a Lua built with a fixed luai_makeseed, and fixed addresses for
// tables and functions used as keys): when a table with deleted keys is rehashed depends on
// collisions, so on the hash seed and addresses, which a team can observe through the border
// `#t` returns for a table with holes, the timing of weak-table clearing, and the instant the
// memory cap is reached.
// Thread-safety: a Sandbox and its Bots are used by one thread at a time; distinct Sandboxes
// are independent.
class Sandbox {
 public:
  // A host function: a lua_CFunction that may also be a capturing lambda. It runs inside a bot's
  // step (Sandbox::current_bot tells which) and may charge() and block(). It must not throw
  // (an exception becomes a Lua error, but never let one cross a Lua API call), and it should
  // hold no object with a destructor when it calls a Lua API function that can raise an error.
  using HostFunction = std::function<int(lua_State*)>;

  explicit Sandbox(SandboxOptions options = {});
  ~Sandbox();  // REQUIRES: every Bot of this sandbox is destroyed first
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  // Makes `fn` the global `name`. The Sandbox owns `fn`.
  void define(const std::string& name, HostFunction fn);

  // Compiles `source` (text only) and runs it as the team chunk, for at most load_budget
  // instructions; it must return a function, the team's main. The error is one line.
  // During the load current_bot() is null, so host functions should refuse to act.
  std::expected<void, std::string> load_team(std::string_view source, std::string_view chunk_name);

  // A bot running the team's main. REQUIRES: load_team succeeded. The Bot must not outlive
  // this Sandbox.
  std::unique_ptr<Bot> spawn_main(int pid);

  // Marks the start of a round of steps (the host's clock cycle) for the CPU-time side of the
  // watchdog (see SandboxOptions::cpu_time): the CPU time spent since counts against each step
  // of the round. load_team marks one itself. Reads the CPU clock once; nothing without
  // cpu_time.
  void start_round();

  // From inside a host function: a bot running the function at stack index `index` of `L`
  // (e.g. the argument of spawn(fn)). REQUIRES: that value is a function.
  std::unique_ptr<Bot> spawn_function(lua_State* L, int index, int pid);

  // True once an allocation was refused because of the cap; sticky. From then on every step of
  // every bot of this sandbox reports out_of_memory.
  bool out_of_memory() const { return out_of_memory_; }
  std::size_t memory_used() const { return memory_used_; }

  // The main state, for the game's own setup and for tests. Do not run Lua code on it.
  lua_State* state() const { return L_; }

  // --- For host functions (static: they only have the lua_State*) ---

  // The sandbox that `L` (a bot's thread) belongs to.
  static Sandbox& of(lua_State* L);
  // The bot whose step is running, or null (during load_team).
  static Bot* current_bot(lua_State* L);
  // Charges `n` instructions (e.g. ACTION_COST) to the running bot's budget. REQUIRES: n >= 0.
  static void charge(lua_State* L, int n);
  // Ends the running bot's step with StepStatus::blocked and `reason`; use as
  // `return Sandbox::block(L, "wait_turn");`. The action returns no values when the bot is next
  // stepped. Raises a Lua error where the bot cannot yield (inside a callback).
  static int block(lua_State* L, std::string_view reason);

 private:
  friend class Bot;
  struct HostScope;  // lifts the memory cap while trusted host code allocates
  struct Library;    // the library functions (sandbox_internal.h)

  static void* allocate(void* ud, void* ptr, std::size_t old_size, std::size_t new_size);
  void open_libraries();
  std::unique_ptr<Bot> make_bot(lua_State* L, int index, int pid);

  SandboxOptions options_;
  // Reads a bot's count hook countdown; nothing: the hook runs on every instruction.
  std::optional<Countdown> countdown_;
  const Clock* clock_;
  // Steps are rung past the watchdog (lua/step_alarm.h): with slices, on the real clock only (a
  // ring is real time; an injected clock keeps the watchdog wholly its own).
  bool rings_;
  Rng rng_;
  lua_State* L_ = nullptr;
  std::size_t memory_used_ = 0;
  bool out_of_memory_ = false;
  int host_scopes_ = 0;       // > 0: trusted host code is allocating; the cap does not apply
  Bot* running_ = nullptr;    // the bot whose step is in progress
  bool loading_ = false;      // the running bot is the team chunk
  int main_ref_ = LUA_NOREF;  // registry reference of the team's main function
  Duration round_cpu_{};      // cpu_time() at the last start_round()
  unsigned long long sort_comparisons_ = 0;  // table.sort's comparisons in C, for charging
  // Whether a step started (on clock_) at `started` is past the watchdog (see cpu_time).
  bool past_watchdog(Instant started) const;
  std::deque<HostFunction> host_functions_;  // stable addresses for the closures' upvalues
};

// One piece's Lua thread. Not copyable or movable (host functions hold its address).
// Thread-safety: as its Sandbox.
class Bot {
 public:
  ~Bot();  // REQUIRES: not inside this bot's own step
  Bot(const Bot&) = delete;
  Bot& operator=(const Bot&) = delete;

  int pid() const { return pid_; }
  bool alive() const { return alive_; }
  // Whether the last step ran for the watchdog's time and was rung (lua/step_alarm.h): its hook
  // looked at the clock at a line after the ring.
  bool rung() const { return rung_; }

  // Runs the bot for up to `budget` instructions (minus any debt from earlier steps). Exact:
  // every VM instruction counts once, the first instruction of a vararg function excepted.
  // The watchdog is looked at every 64 instructions at most, and once a step has run for the
  // watchdog's time (real clock only), from its next line on (lua/step_alarm.h).
  // When the debt covers the whole budget the bot does not run (ran_out, budget_used 0).
  // Dead after finished, error, overrun, out_of_memory and watchdog.
  // REQUIRES: alive(), budget > 0, no other bot of the sandbox is in a step.
  StepResult step(int budget);

 private:
  friend class Sandbox;
  enum class Condemned { no, overrun, watchdog, out_of_memory };

  Bot(Sandbox& sandbox, lua_State* thread, int ref, int pid);
  static void hook(lua_State* L, lua_Debug* ar);
  [[noreturn]] static void raise_condemned(lua_State* L);
  StepResult finish(StepStatus status, std::string detail = {});
  // Instructions run plus charges so far in this step (outside the count hook).
  long long used_now() const;
  // Sets the count hook to be called next at the instruction that would take the step past its
  // allowance (or at the next instruction, once it is past it). REQUIRES: mark_ is up to date.
  void arm();
  // Sets the count hook to be called at every instruction from now on.
  void arm_every_instruction();

  Sandbox& sandbox_;
  lua_State* thread_;
  int ref_;  // registry reference that keeps the thread alive
  int pid_;
  bool alive_ = true;
  bool after_hook_yield_ = false;  // the hook yielded last step (see step())
  bool rung_ = false;              // this step was rung (rung())
  long long debt_ = 0;             // instructions owed from earlier steps
  // Per step. The count hook is called every `slice_` instructions: used_now() is mark_ (what
  // was used when the hook was last armed or called) plus what the countdown (lua/countdown.h)
  // has run off since. Where the countdown cannot be read, slice_ is 1 and mark_ is exact.
  long long mark_ = 0;
  int slice_ = 1;
  long long used_ = 0;  // the step's total, once it has ended
  long long allowance_ = 0;
  unsigned ticks_ = 0;
  long long coarse_seen_ = 0;  // the coarse clock when the watchdog was last looked at
  Instant started_{};
  StepStatus yield_kind_ = StepStatus::ran_out;
  std::string block_reason_;
  Condemned condemned_ = Condemned::no;
  int results_ = 0;  // values the finished function returned (left on the thread's stack)
};

}  // namespace arbiter::lua
