// Tests of the Lua sandbox: exact budgets, step outcomes, the memory cap, the hostile matrix of
// docs/games/abalone.md §5, determinism (key order, no addresses, table.sort), cas and the barrier
// library of §6.
#include "lua/sandbox.h"
#include "lua/countdown.h"
#include "lua/step_alarm.h"

#include <pthread.h>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace arbiter::lua {
namespace {

using namespace std::chrono_literals;

// Loads `source` and returns a bot running its main.
std::unique_ptr<Bot> load(Sandbox& sandbox, std::string_view source, int pid = 1) {
  auto loaded = sandbox.load_team(source, "team");
  EXPECT_TRUE(loaded.has_value()) << loaded.error();
  if (!loaded) return nullptr;
  return sandbox.spawn_main(pid);
}

lua_Integer global_int(Sandbox& sandbox, const char* name) {
  lua_State* L = sandbox.state();
  lua_getglobal(L, name);
  const lua_Integer v = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

std::string global_string(Sandbox& sandbox, const char* name) {
  lua_State* L = sandbox.state();
  lua_getglobal(L, name);
  std::string v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
  lua_pop(L, 1);
  return v;
}

// Steps until the bot is no longer ran_out/yielded, at most `steps` times.
StepResult run(Bot& bot, int budget, int steps = 1000) {
  StepResult r;
  for (int i = 0; i < steps; ++i) {
    r = bot.step(budget);
    if (r.status != StepStatus::ran_out && r.status != StepStatus::yielded) break;
  }
  return r;
}

// The wall-clock time f takes: for checks on how soon the watchdog stops a step.
template <class F>
std::chrono::milliseconds timed(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

// The CPU time this thread spends in f. The "is still fast" checks below are about the work a
// bot can make the referee do; time spent waiting for a core on a loaded machine is not that.
template <class F>
std::chrono::milliseconds cpu_timed(F&& f) {
  const auto start = thread_cpu_time();
  f();
  return std::chrono::duration_cast<std::chrono::milliseconds>(thread_cpu_time() - start);
}

// As the Abalone host judges steps (runtime.cpu_confirmed_watchdog): a step is only past the
// watchdog if it also spent the watchdog's worth of CPU time, so a check of what a bot can
// cost does not fail on a busy machine.
SandboxOptions judged_by_cpu() {
  SandboxOptions options;
  options.cpu_time = thread_cpu_time;
  return options;
}

constexpr std::string_view kCounter = "x = 0\nreturn function() while true do x = x + 1 end end";

TEST(LuaBudget, EveryStepUsesExactlyTheBudgetAndTheLoopProgresses) {
  Sandbox sandbox;
  auto bot = load(sandbox, kCounter);
  lua_Integer last = 0;
  for (int i = 0; i < 10; ++i) {
    const StepResult r = bot->step(500);
    EXPECT_EQ(r.status, StepStatus::ran_out);
    EXPECT_EQ(r.budget_used, 500);
    const lua_Integer x = global_int(sandbox, "x");
    EXPECT_GT(x, last);
    last = x;
  }
}

TEST(LuaBudget, SplittingABudgetIntoStepsRunsTheSameInstructions) {
  // One step of 1000 and steps of 1, 7, 500, 13 and 479 (sum 1000) end at the same place, so
  // no instruction is lost or run twice at a step boundary.
  Sandbox whole;
  auto a = load(whole, kCounter);
  EXPECT_EQ(a->step(1000).budget_used, 1000);

  Sandbox pieces;
  auto b = load(pieces, kCounter);
  for (int budget : {1, 7, 500, 13, 479}) EXPECT_EQ(b->step(budget).budget_used, budget);
  EXPECT_EQ(global_int(pieces, "x"), global_int(whole, "x"));

  Sandbox ones;
  auto c = load(ones, kCounter);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(c->step(1).budget_used, 1);
  EXPECT_EQ(global_int(ones, "x"), global_int(whole, "x"));
  EXPECT_GT(global_int(whole, "x"), 100);
}

SandboxOptions no_watchdog(ManualClock& clock, std::uint64_t seed);

// The budget hook runs once per slice where the countdown can be read (lua/countdown.h); on
// this Lua it must be readable, or the sandbox falls back to a hook per instruction.
TEST(LuaBudget, TheCountdownIsReadableHere) {
  EXPECT_TRUE(Countdown::find().has_value());
}

// The host functions busy_programs() call: act() charges 11, wait() blocks.
void define_act_and_wait(Sandbox& sandbox) {
  sandbox.define("act", [](lua_State* L) {
    Sandbox::charge(L, 11);
    return 0;
  });
  sandbox.define("wait", [](lua_State* L) { return Sandbox::block(L, "wait"); });
}

// Steps `a` and `b` alike with random budgets (1-40 every third step, else 1-`most`) until `a`
// dies or `steps` steps; every step must end alike, and so must the two states. Counts the
// steps of `b` that were rung in `rung`.
void expect_same_steps(Bot& a, Sandbox& sa, Bot& b, Sandbox& sb, int steps, int most, int& rung) {
  std::mt19937_64 rng(11);
  for (int step = 0; step < steps && a.alive(); ++step) {
    const int budget = 1 + static_cast<int>(rng() % (step % 3 == 0 ? 40 : most));
    const StepResult ra = a.step(budget);
    const StepResult rb = b.step(budget);
    rung += b.rung() ? 1 : 0;
    ASSERT_EQ(name(ra.status), name(rb.status)) << "step " << step << " budget " << budget;
    ASSERT_EQ(ra.budget_used, rb.budget_used) << "step " << step << " budget " << budget;
    ASSERT_EQ(ra.detail, rb.detail) << "step " << step;
  }
  EXPECT_EQ(b.alive(), a.alive());
  EXPECT_EQ(global_int(sb, "x"), global_int(sa, "x"));
}

// Busy programs that end or are charged in every way a step can: charges, yields, blocking,
// errors caught by pcall, C callbacks that cannot yield, metamethods, recursion, string work.
std::vector<std::string> busy_programs() {
  return {
      "x = 0 return function() while true do x = x + 1 end end",
      "x = 0 return function() while true do act() x = x + 1 if x % 7 == 0 then yield() end end "
      "end",
      "x = 0 return function() while true do x = x + 1 if x % 5 == 0 then wait() end end end",
      "x = 0 return function() while true do local ok = pcall(function() x = x + 1 "
      "if x % 3 == 0 then error('e') end end) end end",
      "x = 0 return function() while true do local t = {} for i = 1, 40 do t[i] = (i * 37) % 41 "
      "end "
      "table.sort(t, function(a, b) x = x + 1 return a < b end) end end",
      "x = 0 return function() while true do local s = string.rep('ab', 300) "
      "s = s:gsub('a', function(c) x = x + 1 return 'c' end) x = x + #s end end",
      "x = 0 local mt = {__index = function(t, k) x = x + 1 return k * 2 end} "
      "return function() while true do local t = setmetatable({}, mt) x = x + t[3] + t[5] end end",
      "x = 0 local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end "
      "return function() while true do x = x + fib(12) end end",
      "x = 0 return function() while true do local s = tostring(x) .. string.rep('z', x % 50) "
      "x = x + #s:upper() + select('#', string.byte(s, 1, -1)) end end",
  };
}

// Sliced counting against the hook on every instruction: the same programs (charges, yields,
// blocking, errors caught by pcall, C callbacks that cannot yield, metamethods, recursion) with
// the same random budgets must give the same status and count at every step and end in the same
// state.
TEST(LuaBudget, SlicedCountingMatchesCountingEveryInstruction) {
  std::vector<std::string> programs = busy_programs();
  programs.push_back("x = 0 return function() for i = 1, 3000 do x = x + i end end");
  for (const std::string& program : programs) {
    SCOPED_TRACE(program);
    ManualClock clock;
    auto make = [&](bool every) {
      SandboxOptions options = no_watchdog(clock, 3);
      options.overrun_limit = 300;
      options.hook_every_instruction = every;
      auto sandbox = std::make_unique<Sandbox>(options);
      define_act_and_wait(*sandbox);
      return sandbox;
    };
    auto reference = make(true);
    auto sliced = make(false);
    auto a = load(*reference, program);
    auto b = load(*sliced, program);
    ASSERT_TRUE(a && b);
    int rung = 0;
    expect_same_steps(*a, *reference, *b, *sliced, 400, 700, rung);
    EXPECT_GT(global_int(*reference, "x"), 0);
  }
}

TEST(LuaBudget, TwoBotsOfATeamGetEqualInstructionCounts) {
  // The main spawns a second bot through a host function (as the game's spawn(fn) will), then
  // both count in their own slot of `counts`.
  Sandbox sandbox;
  std::vector<std::unique_ptr<Bot>> bots;
  sandbox.define("spawn", [&](lua_State* L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    bots.push_back(sandbox.spawn_function(L, 1, 2));
    lua_pushboolean(L, 1);
    return 1;
  });
  bots.push_back(load(sandbox,
                      "counts = {0, 0}\n"
                      "local function count(i) while true do counts[i] = counts[i] + 1 end end\n"
                      "return function()\n"
                      "  spawn(function() count(2) end)\n"
                      "  yield()\n"
                      "  count(1)\n"
                      "end"));
  ASSERT_EQ(bots[0]->step(500).status, StepStatus::yielded);
  ASSERT_EQ(bots.size(), 2U);
  EXPECT_EQ(bots[1]->pid(), 2);
  // Each bot's first step runs a few set-up instructions, then both loop identically.
  bots[0]->step(500);
  bots[1]->step(500);
  lua_State* L = sandbox.state();
  auto count = [&](int i) {
    lua_getglobal(L, "counts");
    lua_rawgeti(L, -1, i);
    const lua_Integer v = lua_tointeger(L, -1);
    lua_pop(L, 2);
    return v;
  };
  const lua_Integer offset = count(1) - count(2);
  for (int cycle = 0; cycle < 20; ++cycle) {
    for (auto& bot : bots) EXPECT_EQ(bot->step(500).budget_used, 500);
  }
  EXPECT_EQ(count(1) - count(2), offset);
  EXPECT_GT(count(2), 1000);
}

TEST(LuaBudget, ActionChargesComeOutOfTheStepAndOverspendIsRepaid) {
  Sandbox sandbox;
  int actions = 0;
  sandbox.define("act", [&](lua_State* L) {
    ++actions;
    Sandbox::charge(L, 10);
    return 0;
  });
  auto bot = load(sandbox, "return function() while true do act() end end");
  long long total = 0;
  for (int i = 0; i < 50; ++i) {
    const StepResult r = bot->step(500);
    EXPECT_EQ(r.status, StepStatus::ran_out);
    EXPECT_GE(r.budget_used, 0);
    EXPECT_LT(r.budget_used, 510);  // a charge can overshoot by less than one action
    total += r.budget_used;
  }
  // 3 instructions (get global, call, jump) + 10 per action; overshoot repaid next step.
  EXPECT_NEAR(static_cast<double>(total), 50.0 * 500, 10.0);
  EXPECT_NEAR(actions, total / 13.0, 2.0);
}

TEST(LuaStep, YieldAndBlockingActionsEndTheStepAndResumeAfterwards) {
  Sandbox sandbox;
  sandbox.define("wait_turn", [](lua_State* L) { return Sandbox::block(L, "wait_turn"); });
  auto bot = load(sandbox,
                  "stage = 0\n"
                  "return function() stage = 1; yield(); stage = 2; wait_turn(); stage = 3 end");
  StepResult r = bot->step(500);
  EXPECT_EQ(r.status, StepStatus::yielded);
  EXPECT_LT(r.budget_used, 10);
  EXPECT_EQ(global_int(sandbox, "stage"), 1);
  r = bot->step(500);
  EXPECT_EQ(r.status, StepStatus::blocked);
  EXPECT_EQ(r.detail, "wait_turn");
  EXPECT_EQ(global_int(sandbox, "stage"), 2);
  EXPECT_TRUE(bot->alive());
  r = bot->step(500);
  EXPECT_EQ(r.status, StepStatus::finished);
  EXPECT_EQ(global_int(sandbox, "stage"), 3);
  EXPECT_FALSE(bot->alive());
}

TEST(LuaStep, HostFunctionsKnowTheRunningBotButNotDuringTheLoad) {
  Sandbox sandbox;
  sandbox.define("mypid", [](lua_State* L) {
    Bot* bot = Sandbox::current_bot(L);
    if (bot == nullptr) return luaL_error(L, "mypid: no bot");
    lua_pushinteger(L, bot->pid());
    return 1;
  });
  auto bot = load(sandbox,
                  "at_load = pcall(mypid)\n"
                  "return function() me = mypid() end",
                  42);
  EXPECT_EQ(global_string(sandbox, "at_load"), "boolean");
  lua_getglobal(sandbox.state(), "at_load");
  EXPECT_FALSE(lua_toboolean(sandbox.state(), -1));
  lua_pop(sandbox.state(), 1);
  EXPECT_EQ(bot->step(500).status, StepStatus::finished);
  EXPECT_EQ(global_int(sandbox, "me"), 42);
}

TEST(LuaStep, ErrorsKillTheBotWithAOneLineMessage) {
  Sandbox sandbox;
  auto bot = load(sandbox, "return function() error('boom\\nsecond line') end");
  StepResult r = bot->step(500);
  EXPECT_EQ(r.status, StepStatus::error);
  EXPECT_NE(r.detail.find("boom second line"), std::string::npos) << r.detail;
  EXPECT_EQ(r.detail.find('\n'), std::string::npos);
  EXPECT_FALSE(bot->alive());

  Sandbox other;
  auto nil_index = load(other, "return function() local t = nil; return t.x end");
  r = nil_index->step(500);
  EXPECT_EQ(r.status, StepStatus::error);
  EXPECT_NE(r.detail.find("attempt to index"), std::string::npos) << r.detail;

  Sandbox table_error;
  auto table_bot = load(table_error, "return function() error({}) end");
  EXPECT_EQ(table_bot->step(500).detail, "error object is a table value");
}

TEST(LuaLoad, BadTeamChunksAreRefusedWithOneLineErrors) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"return function(", "team:1:"},
      {"return 42", "must return a function"},
      {"while true do end", "ran longer than"},
      {"yield() return function() end", "must not yield"},
      {"\x1bLua\x54", "binary"},
      {"error('bad\\nteam')", "bad team"},
  };
  for (const auto& [source, expected] : cases) {
    Sandbox sandbox;
    auto loaded = sandbox.load_team(source, "team");
    ASSERT_FALSE(loaded.has_value()) << source;
    EXPECT_NE(loaded.error().find(expected), std::string::npos) << loaded.error();
    EXPECT_EQ(loaded.error().find('\n'), std::string::npos);
  }
}

TEST(LuaMemory, ATeamOverItsCapIsOutOfMemoryAndOthersAreUnaffected) {
  SandboxOptions options;
  options.memory_limit = 4 << 20;
  // About memory, not time: a loaded CI machine must not let the wall-clock watchdog end the
  // hog before its memory runs out.
  options.watchdog = std::chrono::seconds(10);
  Sandbox greedy(options);
  // pcall cannot save it: the failure is sticky for the whole team.
  auto hog = load(greedy,
                  "return function() while true do pcall(function()\n"
                  "  local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(64) .. i end\n"
                  "end) end end");
  const StepResult r = run(*hog, 100'000);
  EXPECT_EQ(r.status, StepStatus::out_of_memory);
  EXPECT_TRUE(greedy.out_of_memory());
  EXPECT_FALSE(hog->alive());
  EXPECT_LE(greedy.memory_used(), options.memory_limit);

  Sandbox modest(options);
  auto fine = load(modest, "return function() local t = {} for i = 1, 1000 do t[i] = i end end");
  EXPECT_EQ(run(*fine, 100'000).status, StepStatus::finished);
  EXPECT_FALSE(modest.out_of_memory());
}

TEST(LuaHostile, LoopInASortComparatorUnderPcallIsAnOverrun) {
  Sandbox sandbox(judged_by_cpu());
  auto bot = load(sandbox,
                  "return function()\n"
                  "  pcall(table.sort, {3, 1, 2, 5, 4}, function(a, b) while true do end end)\n"
                  "  survived = true\n"
                  "  while true do end\n"
                  "end");
  StepResult r;
  const auto took = cpu_timed([&] { r = run(*bot, 500); });
  EXPECT_EQ(r.status, StepStatus::overrun);
  EXPECT_FALSE(bot->alive());
  EXPECT_EQ(global_string(sandbox, "survived"), "nil");
  EXPECT_LT(took, 1000ms);
}

TEST(LuaHostile, LoopInAGsubCallbackUnderNestedPcallsAndXpcallIsAnOverrun) {
  Sandbox sandbox;
  auto bot = load(sandbox,
                  "local function spin() while true do end end\n"
                  "return function()\n"
                  "  while true do\n"
                  "    pcall(pcall, string.gsub, 'abc', '.', spin)\n"
                  "    xpcall(string.gsub, spin, 'abc', '.', spin)\n"
                  "    survived = true\n"
                  "  end\n"
                  "end");
  const StepResult r = run(*bot, 500);
  EXPECT_EQ(r.status, StepStatus::overrun);
  EXPECT_EQ(global_string(sandbox, "survived"), "nil");
}

TEST(LuaHostile, WorkInsideCallbacksBeyondTheBudgetIsRepaidLater) {
  SandboxOptions options;
  options.overrun_limit = 1'000'000;
  Sandbox sandbox(options);
  auto bot = load(sandbox,
                  "return function()\n"
                  "  local t = {} for i = 1, 200 do t[i] = -i end\n"
                  "  yield()\n"
                  "  table.sort(t, function(a, b) for i = 1, 20 do end return a < b end)\n"
                  "  while true do end\n"
                  "end");
  while (bot->step(500).status == StepStatus::ran_out) {
  }
  const StepResult first = bot->step(500);
  EXPECT_EQ(first.status, StepStatus::ran_out);
  EXPECT_GT(first.budget_used, 5000);
  long long skipped = 0;
  StepResult r;
  while ((r = bot->step(500)).budget_used == 0) ++skipped;
  EXPECT_EQ(skipped, (first.budget_used - 500) / 500);
  EXPECT_EQ(r.budget_used, 500 - (first.budget_used - 500) % 500);
}

TEST(LuaHostile, DangerousGlobalsAreAbsent) {
  Sandbox sandbox;
  auto bot = load(sandbox,
                  "return function()\n"
                  "  local names = {'coroutine', 'debug', 'io', 'os', 'package', 'require',\n"
                  "    'dofile', 'loadfile', 'collectgarbage', 'print', 'utf8', 'warn'}\n"
                  "  local present = {}\n"
                  "  for _, n in ipairs(names) do\n"
                  "    if _G[n] ~= nil then present[#present + 1] = n end\n"
                  "  end\n"
                  "  if math.randomseed ~= nil then present[#present + 1] = 'randomseed' end\n"
                  "  if string.dump ~= nil then present[#present + 1] = 'dump' end\n"
                  "  found = table.concat(present, ',')\n"
                  "  local f, msg = load('\\27Lua\\84\\0')\n"
                  "  binary = f == nil and msg or 'loaded'\n"
                  "  text = load('return 6 * 7')()\n"
                  "end");
  EXPECT_EQ(bot->step(10'000).status, StepStatus::finished);
  EXPECT_EQ(global_string(sandbox, "found"), "");
  EXPECT_NE(global_string(sandbox, "binary").find("binary"), std::string::npos)
      << global_string(sandbox, "binary");
  EXPECT_EQ(global_int(sandbox, "text"), 42);
}

TEST(LuaHostile, FinalizersAreRefused) {
  Sandbox sandbox;
  auto bot = load(sandbox,
                  "return function()\n"
                  "  ok, msg = pcall(setmetatable, {}, {__gc = function() while true do end end})\n"
                  "  plain = getmetatable(setmetatable({}, {__index = {v = 5}})) ~= nil\n"
                  "end");
  EXPECT_EQ(bot->step(10'000).status, StepStatus::finished);
  EXPECT_EQ(global_string(sandbox, "ok"), "boolean");
  lua_State* L = sandbox.state();
  lua_getglobal(L, "ok");
  lua_getglobal(L, "plain");
  EXPECT_FALSE(lua_toboolean(L, -2));
  EXPECT_TRUE(lua_toboolean(L, -1));
  lua_pop(L, 2);
  EXPECT_NE(global_string(sandbox, "msg").find("__gc"), std::string::npos);
}

TEST(LuaHostile, PathologicalPatternsAreRefusedQuicklyAndOrdinaryOnesWork) {
  Sandbox sandbox(judged_by_cpu());
  auto bot = load(sandbox,
                  "return function()\n"
                  "  local s = ('a'):rep(4000)\n"
                  "  ok1, msg1 = pcall(string.find, s, '.-.-.-.-.-.-x')\n"
                  "  ok2 = pcall(string.match, s, '(.-)(.-)(.-)b')\n"
                  "  ok3 = pcall(function() for w in s:gmatch('a*a*a*b') do end end)\n"
                  "  ok4 = pcall(string.gsub, s, '%w-%w-%w-b', '')\n"
                  "  k, v = ('key=42'):match('(%w+)=(%d+)')\n"
                  "  n = select(2, ('a,b,c'):gsub(',', ';'))\n"
                  "  plain = s:find('.-.-x', 1, true) == nil\n"
                  "end");
  StepResult r;
  const auto took = cpu_timed([&] { r = bot->step(100'000); });
  EXPECT_EQ(r.status, StepStatus::finished) << r.detail;
  EXPECT_LT(took, 100ms);
  for (const char* ok : {"ok1", "ok2", "ok3", "ok4"}) {
    lua_getglobal(sandbox.state(), ok);
    EXPECT_FALSE(lua_toboolean(sandbox.state(), -1)) << ok;
    lua_pop(sandbox.state(), 1);
  }
  EXPECT_NE(global_string(sandbox, "msg1").find("too complex"), std::string::npos);
  EXPECT_EQ(global_string(sandbox, "k"), "key");
  EXPECT_EQ(global_string(sandbox, "v"), "42");
  EXPECT_EQ(global_int(sandbox, "n"), 2);
}

TEST(LuaHostile, TheMostExpensiveAllowedPatternIsStillFast) {
  // Near the cost limit: one unbounded item and an unanchored search over 2 KiB.
  Sandbox sandbox(judged_by_cpu());
  auto bot = load(sandbox,
                  "return function()\n"
                  "  local s = ('a'):rep(2000)\n"
                  "  ok = pcall(string.find, s, '.-x')\n"
                  "end");
  StepResult r;
  const auto took = cpu_timed([&] { r = bot->step(1000); });
  EXPECT_EQ(r.status, StepStatus::finished) << name(r.status) << ": " << r.detail;
  EXPECT_LT(took, 100ms);
  lua_getglobal(sandbox.state(), "ok");
  EXPECT_TRUE(lua_toboolean(sandbox.state(), -1));
  lua_pop(sandbox.state(), 1);
}

TEST(LuaHostile, CLoopsOverHugeRangesAreRefused) {
  Sandbox sandbox(judged_by_cpu());
  auto bot = load(sandbox,
                  "return function()\n"
                  "  local t = {} for k = 0, 62 do t[1 << k] = true end\n"
                  "  t[5] = true\n"  // now #t == 2^62 with 64 elements
                  "  len = #t\n"
                  "  ok1 = pcall(table.insert, t, 1, 0)\n"
                  "  ok2 = pcall(table.remove, t, 1)\n"
                  "  ok3 = pcall(table.move, {}, 1, 1 << 40, 2)\n"
                  "  local u = {1, 2, 3}\n"
                  "  table.insert(u, 1, 0); table.remove(u); table.move(u, 1, 3, 2)\n"
                  "  joined = table.concat(u, ',')\n"
                  "  ok4, msg4 = pcall(string.rep, 'x', 1e9)\n"
                  "end");
  StepResult r;
  const auto took = cpu_timed([&] { r = bot->step(10'000); });
  EXPECT_EQ(r.status, StepStatus::finished) << r.detail;
  EXPECT_LT(took, 100ms);
  lua_State* L = sandbox.state();
  for (const char* ok : {"ok1", "ok2", "ok3", "ok4"}) {
    lua_getglobal(L, ok);
    EXPECT_FALSE(lua_toboolean(L, -1)) << ok;
    lua_pop(L, 1);
  }
  EXPECT_EQ(global_int(sandbox, "len"), lua_Integer{1} << 62);
  EXPECT_EQ(global_string(sandbox, "joined"), "0,0,1,2");
  EXPECT_NE(global_string(sandbox, "msg4").find("larger than"), std::string::npos);
  EXPECT_FALSE(sandbox.out_of_memory());
}

std::string random_draws(std::uint64_t seed) {
  SandboxOptions options;
  options.seed = seed;
  Sandbox sandbox(options);
  auto bot = load(sandbox,
                  "return function()\n"
                  "  local r = {}\n"
                  "  for i = 1, 10 do r[#r + 1] = math.random(1, 1000) end\n"
                  "  for i = 1, 3 do r[#r + 1] = math.random(6) end\n"
                  "  r[#r + 1] = string.format('%.17g', math.random())\n"
                  "  r[#r + 1] = math.random(0)\n"
                  "  r[#r + 1] = math.random(math.mininteger, math.maxinteger)\n"
                  "  draws = table.concat(r, ',')\n"
                  "  empty = pcall(math.random, 5, 1)\n"
                  "end");
  EXPECT_EQ(bot->step(10'000).status, StepStatus::finished);
  lua_getglobal(sandbox.state(), "empty");
  EXPECT_FALSE(lua_toboolean(sandbox.state(), -1));
  lua_pop(sandbox.state(), 1);
  return global_string(sandbox, "draws");
}

TEST(LuaHostile, MathRandomIsDeterminedByTheSeed) {
  const std::string a = random_draws(7);
  EXPECT_EQ(a, random_draws(7));
  EXPECT_NE(a, random_draws(8));
  EXPECT_GT(a.size(), 40U);
}

TEST(LuaHostile, TheWatchdogFiresOnASlowStep) {
  ManualClock clock;
  SandboxOptions options;
  options.clock = &clock;
  Sandbox sandbox(options);
  sandbox.define("stall", [&](lua_State*) {
    clock.advance(60ms);  // as if this step had spent 60 ms of wall-clock time
    return 0;
  });
  auto bot = load(sandbox, "return function() while true do pcall(stall) end end");
  EXPECT_EQ(bot->step(1'000'000).status, StepStatus::watchdog);
  EXPECT_FALSE(bot->alive());

  // Also when the slow call is the step's last.
  Sandbox other(options);
  other.define("stall", [&](lua_State*) {
    clock.advance(60ms);
    return 0;
  });
  auto once = load(other, "return function() stall() end");
  EXPECT_EQ(once->step(500).status, StepStatus::watchdog);
}

TEST(LuaHostile, WithCpuTimeTheWatchdogOnlyFiresOnStepsThatWorked) {
  // Wall-clock time passes in `stall`; CPU time only where the test says so.
  ManualClock clock;
  Duration cpu{};
  SandboxOptions options;
  options.clock = &clock;
  options.cpu_time = [&cpu] { return cpu; };
  Sandbox sandbox(options);
  Duration cpu_per_stall{};
  sandbox.define("stall", [&](lua_State*) {
    clock.advance(60ms);
    cpu += cpu_per_stall;
    return 0;
  });
  auto bot = load(sandbox, "return function() while true do stall() yield() end end");
  // Descheduled: 60 ms of wall time but 1 ms of CPU, round after round: never condemned.
  cpu_per_stall = 1ms;
  for (int round = 0; round < 20; ++round) {
    sandbox.start_round();
    ASSERT_EQ(bot->step(500).status, StepStatus::yielded) << "round " << round;
  }
  // Working: 60 ms of both in one round.
  cpu_per_stall = 60ms;
  sandbox.start_round();
  EXPECT_EQ(bot->step(500).status, StepStatus::watchdog);
  EXPECT_FALSE(bot->alive());
}

TEST(LuaCas, ComparesAndSetsRawly) {
  Sandbox sandbox;
  auto bot = load(sandbox,
                  "return function()\n"
                  "  local t = {a = 1}\n"
                  "  local r = {cas(t, 'a', 1, 2), cas(t, 'a', 1, 3), t.a == 2,\n"
                  "             cas(t, 'b', nil, 5), t.b == 5, cas(t, 'a', 2, nil), t.a == nil}\n"
                  "  local m = setmetatable({}, {__index = function() return 1 end})\n"
                  "  r[#r + 1] = cas(m, 'k', 1, 2)\n"
                  "  r[#r + 1] = cas(shared, 'lock', nil, 'me')\n"
                  "  r[#r + 1] = cas(shared, 'lock', nil, 'you')\n"
                  "  for i, v in ipairs(r) do r[i] = tostring(v) end\n"
                  "  result = table.concat(r, ',')\n"
                  "  bad = pcall(cas, 5, 1, 2, 3)\n"
                  "end");
  EXPECT_EQ(bot->step(10'000).status, StepStatus::finished);
  EXPECT_EQ(global_string(sandbox, "result"),
            "true,false,true,true,true,true,true,false,true,false");
  lua_getglobal(sandbox.state(), "bad");
  EXPECT_FALSE(lua_toboolean(sandbox.state(), -1));
  lua_pop(sandbox.state(), 1);
}

// --- Determinism: key order, addresses, table.sort ---

// Runs `main_source` (the body of the team's main) to the end, in steps of a large budget;
// returns the result of the last step.
StepResult run_to_end(Sandbox& sandbox, const std::string& main_source) {
  auto bot = load(sandbox, "return function()\n" + main_source + "\nend");
  if (bot == nullptr) return {StepStatus::error, 0, "load failed"};
  return run(*bot, 1'000'000, 100);
}

SandboxOptions no_watchdog(ManualClock& clock, std::uint64_t seed = 0) {
  SandboxOptions options;
  options.clock = &clock;  // never advances
  options.seed = seed;
  options.overrun_limit = 100'000'000;
  return options;
}

// The keys of a table with many string keys and keys of every orderable kind, as `show` prints
// them, in the order pairs and a next loop visit them.
constexpr std::string_view kMixedKeysOrder = R"lua(
  local t = {}
  for i = 1, 400 do t['k' .. (i * 7919 % 1000)] = i end
  for i = 1, 20 do t[i] = -i end
  for _, k in ipairs({100, 0, -3, 2.5, -0.5, 1e300, 1/0, -1/0, math.maxinteger, math.mininteger,
                      2^63, -2^63 - 2^11, '', '\0', '\255', 'a\0b', 'a', 'Z', 'k'}) do
    t[k] = true
  end
  t[true] = 1; t[false] = 0
  local function show(list)
    for i, k in ipairs(list) do
      local kind = math.type(k)
      list[i] = kind == 'float' and string.format('%.17g', k) or kind == 'integer' and
                string.format('%d', k) or string.format('%q', k)
    end
    return table.concat(list, ' ')
  end
  local a = {}
  for k in pairs(t) do a[#a + 1] = k end
  by_pairs = show(a)
  local b = {}
  local k = next(t)
  while k ~= nil do b[#b + 1] = k; k = next(t, k) end
  by_next = show(b)
  count = #a
)lua";

TEST(LuaDeterminism, PairsAndNextVisitKeysInTheSameCanonicalOrderInEveryState) {
  Sandbox first;
  ASSERT_EQ(run_to_end(first, std::string(kMixedKeysOrder)).status, StepStatus::finished);
  // Another state, created after other allocations (so at other addresses, with another hash
  // seed), and a third one.
  std::vector<std::unique_ptr<char[]>> garbage;
  for (int i = 1; i < 200; ++i) garbage.push_back(std::make_unique<char[]>(i * 97));
  auto other_state = std::make_unique<Sandbox>();
  garbage.clear();
  Sandbox third;
  for (Sandbox* s : {other_state.get(), &third}) {
    ASSERT_EQ(run_to_end(*s, std::string(kMixedKeysOrder)).status, StepStatus::finished);
    EXPECT_EQ(global_string(*s, "by_pairs"), global_string(first, "by_pairs"));
  }
  EXPECT_EQ(global_string(first, "by_next"), global_string(first, "by_pairs"));
  EXPECT_EQ(global_int(first, "count"), 400 + 20 + 19 + 2);

  // The canonical order: positive integers, other numbers, strings by bytes, false, true.
  std::vector<std::string> k_keys;
  for (int i = 1; i <= 400; ++i) k_keys.push_back("\"k" + std::to_string(i * 7919 % 1000) + "\"");
  std::sort(k_keys.begin(), k_keys.end());
  std::string expected = "1";
  for (int i = 2; i <= 20; ++i) expected += " " + std::to_string(i);
  expected +=
      " 100 9223372036854775807"
      " -inf -9.2233720368547779e+18 -9223372036854775808 -3 -0.5 0 2.5 9.2233720368547758e+18"
      " 1.0000000000000001e+300 inf"
      " \"\" \"\\0\" \"Z\" \"a\" \"a\\0b\" \"k\"";
  for (const std::string& k : k_keys) expected += " " + k;
  expected += " \"\xff\" false true";
  EXPECT_EQ(global_string(first, "by_pairs"), expected);
}

TEST(LuaDeterminism, TheOrderOfSmallMixedTablesIsExactlyTheDocumentedOne) {
  Sandbox sandbox;
  const StepResult r = run_to_end(sandbox, R"lua(
    local t = {[3] = 1, [1] = 1, [2] = 1, b = 1, a = 1, [''] = 1, [0] = 1, [-1] = 1, [2.5] = 1,
               [true] = 1, [false] = 1, [1/0] = 1, [-1/0] = 1, ab = 1, [10] = 1, B = 1,
               ['\200'] = 1, [-2.5] = 1, [7.0] = 1}
    local out = {}
    for k in pairs(t) do out[#out + 1] = tostring(k) end
    order = table.concat(out, ',')
  )lua");
  ASSERT_EQ(r.status, StepStatus::finished) << r.detail;
  EXPECT_EQ(global_string(sandbox, "order"),
            "1,2,3,7,10,-inf,-2.5,-1,0,2.5,inf,,B,a,ab,b,\xc8,false,true");
}

TEST(LuaDeterminism, AssigningAndRemovingFieldsDuringATraversalWorks) {
  Sandbox sandbox;
  const StepResult r = run_to_end(sandbox, R"lua(
    local t = {}
    for i = 1, 50 do t['k' .. i] = i end
    for i = 1, 10 do t[i] = i end
    local seen = {}
    for k, v in pairs(t) do
      seen[#seen + 1] = tostring(k) .. '=' .. tostring(v)
      t[k] = nil                      -- the current key
      if k == 'k10' then
        t.k20 = nil                   -- a key ahead
        t.k30 = 'changed'             -- an existing field ahead
      end
      if k == 5 then t[6] = nil; t[7] = 'seven' end
    end
    trace = table.concat(seen, ' ')
    empty = next(t) == nil
    -- Lua's idiom: clear a table while traversing it.
    local u = {}
    for i = 1, 100 do u['x' .. i] = i; u[i * 3] = i end
    for k in pairs(u) do u[k] = nil end
    cleared = next(u) == nil
    -- A nested traversal of the same table, broken off, does not disturb the outer one.
    local w = {a = 1, b = 2, c = 3, d = 4, [1] = 0, [5] = 0}
    local outer = {}
    for k in pairs(w) do
      outer[#outer + 1] = tostring(k)
      for k2 in pairs(w) do if k2 == 'b' then break end end
    end
    nested = table.concat(outer, ',')
    -- next from a key that is not (or no longer) in the table: the key after it.
    after_missing = next(w, 'bb')
    after_removed = (function() w.c = nil; return next(w, 'c') end)()
  )lua");
  ASSERT_EQ(r.status, StepStatus::finished) << r.detail;
  std::string expected = "1=1 2=2 3=3 4=4 5=5 7=seven 8=8 9=9 10=10 k1=1 k10=10";
  for (int i = 11; i <= 19; ++i) expected += " k" + std::to_string(i) + "=" + std::to_string(i);
  expected += " k2=2";
  for (int i = 21; i <= 29; ++i) expected += " k" + std::to_string(i) + "=" + std::to_string(i);
  expected += " k3=3 k30=changed";
  for (int i = 31; i <= 39; ++i) expected += " k" + std::to_string(i) + "=" + std::to_string(i);
  expected += " k4=4";
  for (int i = 40; i <= 49; ++i) expected += " k" + std::to_string(i) + "=" + std::to_string(i);
  expected += " k5=5 k50=50 k6=6 k7=7 k8=8 k9=9";
  EXPECT_EQ(global_string(sandbox, "trace"), expected);
  EXPECT_EQ(global_string(sandbox, "empty"), "boolean");
  lua_State* L = sandbox.state();
  for (const char* flag : {"empty", "cleared"}) {
    lua_getglobal(L, flag);
    EXPECT_TRUE(lua_toboolean(L, -1)) << flag;
    lua_pop(L, 1);
  }
  EXPECT_EQ(global_string(sandbox, "nested"), "1,5,a,b,c,d");
  EXPECT_EQ(global_string(sandbox, "after_missing"), "c");
  EXPECT_EQ(global_string(sandbox, "after_removed"), "d");
}

TEST(LuaDeterminism, KeysWithoutAnOrderRaiseADeterministicError) {
  Sandbox sandbox;
  const StepResult r = run_to_end(sandbox, R"lua(
    ok1, msg1 = pcall(function() for k in pairs({[{}] = 1, a = 1}) do end end)
    ok2, msg2 = pcall(next, {[function() end] = 1})
    local mixed = {10, 20, 30, [{}] = 'x'}
    local n = 0
    for _, v in ipairs(mixed) do n = n + v end
    sum = n                                   -- ipairs is unaffected
    first = next(mixed)                       -- 1: t[1] is set, nothing else is looked at
    ok3, msg3 = pcall(function() for k in pairs(mixed) do end end)
    ok4, msg4 = pcall(next, {a = 1}, {})      -- a control key without an order
    ok5, msg5 = pcall(next, {a = 1}, 0/0)
  )lua");
  ASSERT_EQ(r.status, StepStatus::finished) << r.detail;
  lua_State* L = sandbox.state();
  for (const char* ok : {"ok1", "ok2", "ok3", "ok4", "ok5"}) {
    lua_getglobal(L, ok);
    EXPECT_EQ(lua_type(L, -1), LUA_TBOOLEAN) << ok;
    EXPECT_FALSE(lua_toboolean(L, -1)) << ok;
    lua_pop(L, 1);
  }
  EXPECT_NE(
      global_string(sandbox, "msg1").find("a table with table keys has no deterministic order"),
      std::string::npos)
      << global_string(sandbox, "msg1");
  EXPECT_NE(global_string(sandbox, "msg2").find("a table with function keys"), std::string::npos)
      << global_string(sandbox, "msg2");
  EXPECT_NE(global_string(sandbox, "msg3").find("table keys"), std::string::npos);
  EXPECT_NE(global_string(sandbox, "msg4").find("table keys"), std::string::npos);
  EXPECT_NE(global_string(sandbox, "msg5").find("invalid key to 'next'"), std::string::npos);
  EXPECT_EQ(global_int(sandbox, "sum"), 60);
  EXPECT_EQ(global_int(sandbox, "first"), 1);
}

TEST(LuaDeterminism, PairsHonoursPairsMetamethodAndReturnsTheSandboxNext) {
  Sandbox sandbox;
  const StepResult r = run_to_end(sandbox, R"lua(
    local p = setmetatable({}, {__pairs = function(t)
      local i = 0
      return function() i = i + 1; if i <= 3 then return i, i * i end end, t, nil
    end})
    local out = {}
    for k, v in pairs(p) do out[#out + 1] = k .. ':' .. v end
    custom = table.concat(out, ',')
    same_next = pairs({}) == next
  )lua");
  ASSERT_EQ(r.status, StepStatus::finished) << r.detail;
  EXPECT_EQ(global_string(sandbox, "custom"), "1:1,2:4,3:9");
  lua_getglobal(sandbox.state(), "same_next");
  EXPECT_TRUE(lua_toboolean(sandbox.state(), -1));
  lua_pop(sandbox.state(), 1);
}

TEST(LuaDeterminism, NoAddressesInTostringFormatOrErrorMessages) {
  Sandbox sandbox;
  const StepResult r = run_to_end(sandbox, R"lua(
    local t = {}
    local f = function() end
    local named = setmetatable({}, {__name = 'Point'})
    local shown = setmetatable({}, {__tostring = function() return 'P(1,2)' end})
    local out = {tostring(t), tostring(f), tostring(named), tostring(shown), tostring(nil),
                 tostring(1.5), tostring(7), tostring(true), tostring('s'), tostring(string.len),
                 string.format('%s|%s|%s|%5.3s|%-6s|%s', t, f, named, t, shown, 2),
                 ('%s'):format(t)}
    shown_all = table.concat(out, ' ')
    ok_p, msg_p = pcall(string.format, '%p', t)
    ok_p2 = pcall(string.format, '%d %10p', 1, f)
    ok_p3 = pcall(function() return ('%p'):format(1) end)
    percent = string.format('100%% %s', t)
    local errors = {}
    local function catch(fn) errors[#errors + 1] = select(2, pcall(fn)) end
    catch(function() return 'x' .. t end)
    catch(function() local u; return u.x end)
    catch(function() return t < t end)
    catch(function() t() end)
    catch(function() return t + 1 end)
    catch(function() return #f end)
    catch(function() error(t) end)
    catch(function() string.rep(t) end)
    catch(function() return setmetatable({}, {__tostring = function() return {} end}) .. '' end)
    catch(function() return tostring(setmetatable({}, {__tostring = function() return t end})) end)
    for i, e in ipairs(errors) do errors[i] = tostring(e) end
    error_text = table.concat(errors, ' | ')
  )lua");
  ASSERT_EQ(r.status, StepStatus::finished) << r.detail;
  EXPECT_EQ(global_string(sandbox, "shown_all"),
            "table function Point P(1,2) nil 1.5 7 true s function "
            "table|function|Point|  tab|P(1,2)|2 table");
  EXPECT_EQ(global_string(sandbox, "percent"), "100% table");
  lua_State* L = sandbox.state();
  for (const char* ok : {"ok_p", "ok_p2", "ok_p3"}) {
    lua_getglobal(L, ok);
    EXPECT_FALSE(lua_toboolean(L, -1)) << ok;
    lua_pop(L, 1);
  }
  EXPECT_NE(global_string(sandbox, "msg_p").find("'%p' is not available"), std::string::npos)
      << global_string(sandbox, "msg_p");
  const std::string errors = global_string(sandbox, "error_text");
  EXPECT_EQ(errors.find("0x"), std::string::npos) << errors;
  EXPECT_NE(errors.find("attempt to concatenate"), std::string::npos) << errors;
  EXPECT_NE(errors.find("attempt to index a nil value"), std::string::npos) << errors;
  EXPECT_NE(errors.find("'__tostring' must return a string"), std::string::npos) << errors;

  // The messages the referee logs when a bot dies.
  const std::pair<std::string_view, std::string_view> deaths[] = {
      {"error('x' .. tostring({}))", "xtable"},
      {"error(string.format('%s', function() end))", "function"},
      {"error({})", "error object is a table value"},
      {"error(setmetatable({}, {__tostring = function() return 'obj' end}))",
       "error object is a table value"},
      {"local t = {} t.x.y = 1", "attempt to index a nil value (field 'x')"},
      {"string.format('%p', {})", "'%p' is not available"},
  };
  for (const auto& [body, expected] : deaths) {
    Sandbox s;
    const StepResult d = run_to_end(s, std::string(body));
    EXPECT_EQ(d.status, StepStatus::error) << body;
    EXPECT_NE(d.detail.find(expected), std::string::npos) << body << ": " << d.detail;
    EXPECT_EQ(d.detail.find("0x"), std::string::npos) << body << ": " << d.detail;
  }
}

// Instructions used by the team main `body`, after the team chunk ran `build` to fill the global
// table t with n keys.
long long instructions_over(int n, std::string_view build, std::string_view body) {
  ManualClock clock;
  Sandbox sandbox(no_watchdog(clock));
  const std::string source = "local n = " + std::to_string(n) + "\nt = {}\n" + std::string(build) +
                             "\nreturn function()\n" + std::string(body) + "\nend";
  auto bot = load(sandbox, source);
  if (bot == nullptr) return -1;
  long long used = 0;
  for (int i = 0; i < 1000 && bot->alive(); ++i) used += bot->step(10'000'000).budget_used;
  EXPECT_FALSE(bot->alive());
  return used;
}

TEST(LuaDeterminism, PairsChargesTheBotInProportionToNLogN) {
  constexpr std::string_view kStrings = "for i = 1, n do t['key' .. i] = i end";
  constexpr std::string_view kSequence = "for i = 1, n do t[i] = i end";
  constexpr std::string_view kLoop = "local c = 0 for k, v in pairs(t) do c = c + 1 end";
  for (int n : {1000, 8000}) {
    SCOPED_TRACE(n);
    const long long sequence = instructions_over(n, kSequence, kLoop);
    const long long strings = instructions_over(n, kStrings, kLoop);
    const double n_log_n = n * std::log2(static_cast<double>(n));
    // The same loop over a sequence is charged only a scan at its end (n).
    EXPECT_LE(sequence, 4LL * n + 50);
    const double extra = static_cast<double>(strings - sequence);
    EXPECT_GE(extra, n_log_n);
    EXPECT_LE(extra, n_log_n + 5.0 * n);
    // An emptiness test scans the table once.
    const long long empty_test = instructions_over(n, kStrings, "local e = next(t) == nil");
    EXPECT_GE(empty_test, n);
    EXPECT_LE(empty_test, n + 20);
  }
  // The charge is taken out of the bot's steps: with 1000 instructions a step, the step that
  // sorts 8000 keys overspends and the bot sits out the following steps.
  ManualClock clock;
  Sandbox sandbox(no_watchdog(clock));
  auto bot = load(sandbox,
                  "t = {} for i = 1, 8000 do t['key' .. i] = i end\n"
                  "return function() for k in pairs(t) do end end");
  int steps = 0;
  int idle = 0;
  long long used = 0;
  while (bot->alive() && steps < 10'000) {
    const StepResult r = bot->step(1000);
    used += r.budget_used;
    if (r.budget_used == 0) ++idle;
    ++steps;
  }
  EXPECT_FALSE(bot->alive());
  EXPECT_GT(idle, 90);  // ~ 8000 * 13 / 1000 steps of debt
  EXPECT_GT(used, 8000LL * 13);
}

TEST(LuaDeterminism, TheWatchdogDoesNotCountTheTimeOfSortingABigTable) {
  // Sorting 200,000 keys takes tens of milliseconds or more: over the 50 ms watchdog on a slow
  // machine, under it on a fast one. That time is paid in instructions instead, so the
  // traversal ends the same way everywhere. As in the Abalone host, a step is judged by CPU time
  // too (a round per step), so waiting for a core on a loaded machine is not held against it.
  // A step of 10,000 instructions of this loop (each a call of next) takes a few ms of CPU,
  // well under the watchdog; the snapshot's scan and sort take several times the watchdog.
  SandboxOptions options;
  options.memory_limit = std::size_t{256} << 20;
  options.cpu_time = thread_cpu_time;
  Sandbox sandbox(options);
  lua_State* L = sandbox.state();
  lua_createtable(L, 0, 200'000);
  for (int i = 1; i <= 200'000; ++i) {
    lua_pushfstring(L, "key%d", i * 7919);
    lua_pushinteger(L, i);
    lua_rawset(L, -3);
  }
  lua_setglobal(L, "t");
  auto bot = load(sandbox,
                  "return function() local c = 0 for k in pairs(t) do c = c + 1 end count = c end");
  ASSERT_NE(bot, nullptr);
  StepResult r;
  for (int i = 0; i < 100'000 && bot->alive(); ++i) {
    sandbox.start_round();
    r = bot->step(10'000);
  }
  EXPECT_EQ(r.status, StepStatus::finished) << name(r.status);
  EXPECT_EQ(global_int(sandbox, "count"), 200'000);
}

// A reference for the canonical order, written independently of ordered_next.cpp: numbers as
// long double (exact for 64-bit integers and doubles), strings as std::string.
struct RefKey {
  int category = 0;  // 0 positive integer, 1 other number, 2 string, 3 boolean
  long double number = 0;
  std::string bytes;
};

RefKey ref_key(lua_State* L, int idx) {
  RefKey k;
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
      k.number = lua_isinteger(L, idx) ? static_cast<long double>(lua_tointeger(L, idx))
                                       : static_cast<long double>(lua_tonumber(L, idx));
      k.category = lua_isinteger(L, idx) && lua_tointeger(L, idx) >= 1 ? 0 : 1;
      break;
    case LUA_TSTRING: {
      std::size_t len = 0;
      const char* s = lua_tolstring(L, idx, &len);
      k.bytes.assign(s, len);
      k.category = 2;
      break;
    }
    case LUA_TBOOLEAN:
      k.number = lua_toboolean(L, idx);
      k.category = 3;
      break;
    default:
      ADD_FAILURE() << "unexpected key type " << luaL_typename(L, idx);
  }
  return k;
}

bool ref_less(const RefKey& a, const RefKey& b) {
  if (a.category != b.category) return a.category < b.category;
  if (a.category == 2) return a.bytes < b.bytes;
  return a.number < b.number;
}

// Pushes a random orderable key.
void push_random_key(lua_State* L, std::mt19937_64& gen) {
  auto pick = [&](int n) { return static_cast<int>(gen() % static_cast<unsigned>(n)); };
  switch (pick(6)) {
    case 0:
      lua_pushinteger(L, 1 + pick(64));
      break;
    case 1:
      lua_pushinteger(L, static_cast<lua_Integer>(gen()));  // any 64-bit integer
      break;
    case 2: {
      const double choices[] = {0.5,       -0.5,   1e300,   -1e300, HUGE_VAL,
                                -HUGE_VAL, 0x1p63, -0x1p64, 1e-300};
      lua_pushnumber(L, pick(3) == 0 ? choices[pick(9)]
                                     : std::ldexp(static_cast<double>(gen() >> 11), -pick(80)) *
                                           (pick(2) != 0 ? 1 : -1));
      break;
    }
    case 3:
    case 4: {
      static constexpr char kAlphabet[] = {'a', 'b', 'A', '\0', '\x7f', '\x80', '\xff', '0'};
      std::string s(static_cast<std::size_t>(pick(12)), ' ');
      for (char& c : s) c = kAlphabet[pick(8)];
      lua_pushlstring(L, s.data(), s.size());
      break;
    }
    default:
      lua_pushboolean(L, pick(2));
  }
}

TEST(LuaDeterminism, RandomTablesAreTraversedInSortedOrderCompletely) {
  std::mt19937_64 gen(20240611);  // fixed: the test is the same every run
  for (int round = 0; round < 60; ++round) {
    SCOPED_TRACE(round);
    Sandbox sandbox;
    lua_State* L = sandbox.state();
    const int size = static_cast<int>(gen() % 300);
    lua_newtable(L);
    for (int i = 0; i < size; ++i) {
      push_random_key(L, gen);
      lua_pushinteger(L, i);
      lua_rawset(L, -3);
    }
    lua_setglobal(L, "T");
    const StepResult r = run_to_end(sandbox, R"lua(
      by_pairs, by_next = {}, {}
      for k in pairs(T) do by_pairs[#by_pairs + 1] = k end
      local k = next(T)
      while k ~= nil do by_next[#by_next + 1] = k; k = next(T, k) end
      -- Delete keys at random while traversing: no deleted key may be visited afterwards, and
      -- every key never deleted must be visited, in order.
      deleted, visited, late = {}, {}, false
      for k in pairs(T) do
        if deleted[k] then late = true end
        visited[#visited + 1] = k
        if math.random(3) == 1 then
          local victim = by_pairs[math.random(#by_pairs)]
          T[victim] = nil
          deleted[victim] = true
        end
      end
    )lua");
    ASSERT_EQ(r.status, StepStatus::finished) << r.detail;
    lua_getglobal(L, "T");
    lua_getglobal(L, "by_pairs");
    lua_getglobal(L, "by_next");
    lua_getglobal(L, "deleted");
    lua_getglobal(L, "visited");
    const int t = lua_absindex(L, -5), by_pairs = t + 1, by_next = t + 2, deleted = t + 3,
              visited = t + 4;
    // Count the keys the table had (the raw count; deletions since are in `deleted`).
    const auto n = static_cast<lua_Integer>(lua_rawlen(L, by_pairs));
    ASSERT_EQ(static_cast<lua_Integer>(lua_rawlen(L, by_next)), n);
    int distinct = 0;
    std::vector<RefKey> keys;
    for (lua_Integer i = 1; i <= n; ++i) {
      lua_rawgeti(L, by_pairs, i);
      lua_rawgeti(L, by_next, i);
      EXPECT_TRUE(lua_rawequal(L, -1, -2)) << "pairs and next disagree at " << i;
      keys.push_back(ref_key(L, -2));
      lua_pop(L, 2);
      ++distinct;
    }
    for (std::size_t i = 1; i < keys.size(); ++i) {
      EXPECT_TRUE(ref_less(keys[i - 1], keys[i])) << "not ascending at " << i;
    }
    // Complete: the table's keys (still present or deleted) are exactly those visited.
    int present = 0;
    lua_pushnil(L);
    while (lua_next(L, t) != 0) {
      lua_pop(L, 1);
      ++present;
    }
    int removed = 0;
    lua_pushnil(L);
    while (lua_next(L, deleted) != 0) {
      lua_pop(L, 1);
      ++removed;
    }
    EXPECT_EQ(present + removed, distinct);
    lua_getglobal(L, "late");
    EXPECT_FALSE(lua_toboolean(L, -1));
    lua_pop(L, 1);
    // Visited during the deleting traversal: ascending, and including every surviving key.
    std::vector<RefKey> seen;
    for (lua_Integer i = 1; i <= static_cast<lua_Integer>(lua_rawlen(L, visited)); ++i) {
      lua_rawgeti(L, visited, i);
      seen.push_back(ref_key(L, -1));
      lua_pop(L, 1);
    }
    for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_TRUE(ref_less(seen[i - 1], seen[i]));
    lua_pushnil(L);
    while (lua_next(L, t) != 0) {
      lua_pop(L, 1);
      const RefKey k = ref_key(L, -1);
      const bool found = std::any_of(seen.begin(), seen.end(), [&](const RefKey& s) {
        return !ref_less(s, k) && !ref_less(k, s);
      });
      EXPECT_TRUE(found) << "a surviving key was not visited";
    }
    lua_settop(L, 0);
  }
}

// table.sort against McIlroy's "killer adversary", a comparator that fixes the elements' values
// only as it compares them, so as to make quicksort's partitions as unbalanced as it can. Lua's
// sort then switches to "random" pivots (from clock() and time() in the library; from the seed
// here). The values the adversary ends with make a fixed input that is a killer for the pivots of
// that seed and, up to the first switch, for every seed.
constexpr std::string_view kAdversary = R"lua(
  local n = 800
  local gas = n
  local value, solid, candidate = {}, 0, nil
  local a = {}
  for i = 1, n do value[i] = gas; a[i] = i end
  calls = 0
  table.sort(a, function(x, y)
    calls = calls + 1
    if value[x] == gas and value[y] == gas then
      if x == candidate then value[x] = solid else value[y] = solid end
      solid = solid + 1
    end
    if value[x] == gas then candidate = x elseif value[y] == gas then candidate = y end
    return value[x] < value[y]
  end)
  for i = 2, n do assert(value[a[i - 1]] < value[a[i]]) end
  values = value
)lua";

constexpr std::string_view kSortValues = R"lua(
  local value = values
  local a = {}
  for i = 1, #value do a[i] = i end
  calls = 0
  table.sort(a, function(x, y) calls = calls + 1; return value[x] < value[y] end)
  for i = 2, #a do assert(value[a[i - 1]] < value[a[i]]) end
)lua";

TEST(LuaDeterminism, TableSortIsDeterministicEvenOnUnbalancedPartitions) {
  ManualClock clock;
  std::vector<std::pair<lua_Integer, std::vector<lua_Integer>>> adversary;
  for (int run = 0; run < 2; ++run) {
    Sandbox sandbox(no_watchdog(clock, 7));
    const StepResult r = run_to_end(sandbox, std::string(kAdversary));
    ASSERT_EQ(r.status, StepStatus::finished) << r.detail;
    std::vector<lua_Integer> values;
    lua_getglobal(sandbox.state(), "values");
    for (lua_Integer i = 1; i <= static_cast<lua_Integer>(lua_rawlen(sandbox.state(), -1)); ++i) {
      lua_rawgeti(sandbox.state(), -1, i);
      values.push_back(lua_tointeger(sandbox.state(), -1));
      lua_pop(sandbox.state(), 1);
    }
    lua_pop(sandbox.state(), 1);
    adversary.emplace_back(global_int(sandbox, "calls"), std::move(values));
    std::this_thread::sleep_for(20ms);  // Lua's own pivots would depend on clock() and time()
  }
  EXPECT_EQ(adversary[0], adversary[1]);
  EXPECT_EQ(adversary[0].second.size(), 800U);
  EXPECT_GT(adversary[0].first, 800 * 100);  // quadratic: the partitions were unbalanced

  auto sort_calls = [&](std::uint64_t seed) {
    Sandbox sandbox(no_watchdog(clock, seed));
    lua_State* L = sandbox.state();
    lua_createtable(L, static_cast<int>(adversary[0].second.size()), 0);
    for (std::size_t i = 0; i < adversary[0].second.size(); ++i) {
      lua_pushinteger(L, adversary[0].second[i]);
      lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
    }
    lua_setglobal(L, "values");
    const StepResult r = run_to_end(sandbox, std::string(kSortValues));
    EXPECT_EQ(r.status, StepStatus::finished) << r.detail;
    return global_int(sandbox, "calls");
  };
  // The killer input of seed 7 is as slow again under seed 7, and not under seed 8, whose
  // pivots differ once the first unbalanced partition switches to them.
  EXPECT_EQ(sort_calls(7), adversary[0].first);
  EXPECT_EQ(sort_calls(7), sort_calls(7));
  EXPECT_LT(sort_calls(8), adversary[0].first / 2);
}

TEST(LuaDeterminism, TableSortCallsTheComparatorExactlyAsLuaDoes) {
  // On ordinary input (no badly unbalanced partition) the sandbox's sort is Lua's, call for call:
  // same comparisons, same order of equal elements, same errors.
  const std::string script = R"lua(
    local x = 12345
    local function rnd(n) x = (x * 1103515245 + 12345) % 2147483648; return x % n end
    local out = {}
    for round = 1, 20 do
      local a = {}
      for i = 1, 150 + round * 7 do a[i] = {key = rnd(20), id = i} end
      local calls = 0
      table.sort(a, function(p, q) calls = calls + 1; return p.key < q.key end)
      local ids = {}
      for i, v in ipairs(a) do ids[i] = v.id end
      out[#out + 1] = calls .. ':' .. table.concat(ids, ',')
      local b = {}
      for i = 1, 100 do b[i] = rnd(1000) end
      table.sort(b)
      out[#out + 1] = table.concat(b, ',')
    end
    local ok, msg = pcall(table.sort, {3, 2, 1, 5, 4, 7, 6}, function(p, q) return true end)
    out[#out + 1] = tostring(ok) .. ' ' .. msg:gsub('^.-: ', '')
    ok, msg = pcall(table.sort, 'abc')
    out[#out + 1] = tostring(ok) .. ' ' .. msg:gsub('^.-: ', '')
    result = table.concat(out, '\n')
  )lua";
  lua_State* stock = luaL_newstate();
  luaL_openlibs(stock);
  ASSERT_EQ(luaL_dostring(stock, script.c_str()), LUA_OK) << lua_tostring(stock, -1);
  lua_getglobal(stock, "result");
  const std::string expected = lua_tostring(stock, -1);
  lua_close(stock);

  SandboxOptions options;
  options.watchdog = std::chrono::seconds(10);  // about sorting, not time (a loaded CI machine)
  Sandbox sandbox(options);
  const StepResult r = run_to_end(sandbox, script);
  ASSERT_EQ(r.status, StepStatus::finished) << r.detail;
  EXPECT_EQ(global_string(sandbox, "result"), expected);
  EXPECT_NE(expected.find("invalid order function"), std::string::npos);
}

// n bots pass a barrier three times, stepped round-robin with small (and uneven) budgets so
// that they are preempted inside barrier.wait. Events are recorded by a host function, which
// runs indivisibly.
void run_barrier(int n, int budget) {
  Sandbox sandbox;
  std::vector<std::pair<char, int>> events;  // ('a' arrive | 'p' pass, round)
  std::vector<std::unique_ptr<Bot>> bots;
  sandbox.define("note", [&](lua_State* L) {
    events.emplace_back(luaL_checkstring(L, 1)[0], static_cast<int>(luaL_checkinteger(L, 2)));
    return 0;
  });
  sandbox.define("mypid", [](lua_State* L) {
    lua_pushinteger(L, Sandbox::current_bot(L)->pid());
    return 1;
  });
  const std::string source = "local b = barrier.new(" + std::to_string(n) +
                             ")\n"
                             "return function()\n"
                             "  local me = mypid()\n"
                             "  for round = 1, 3 do\n"
                             "    for i = 1, me * 17 + round * 5 do end\n"
                             "    note('a', round)\n"
                             "    barrier.wait(b)\n"
                             "    note('p', round)\n"
                             "  end\n"
                             "end";
  ASSERT_TRUE(sandbox.load_team(source, "team").has_value());
  for (int pid = 1; pid <= n; ++pid) bots.push_back(sandbox.spawn_main(pid));
  int finished = 0;
  for (int cycle = 0; cycle < 10'000 && finished < n; ++cycle) {
    for (auto& bot : bots) {
      if (!bot->alive()) continue;
      const StepResult r = bot->step(budget);
      const bool expected = r.status == StepStatus::ran_out || r.status == StepStatus::yielded ||
                            r.status == StepStatus::finished;
      ASSERT_TRUE(expected) << name(r.status) << " " << r.detail;
      if (r.status == StepStatus::finished) ++finished;
    }
  }
  EXPECT_EQ(finished, n) << "somebody is stuck";
  ASSERT_EQ(events.size(), static_cast<std::size_t>(6 * n));
  for (int round = 1; round <= 3; ++round) {
    int arrived = 0;
    for (const auto& [kind, r] : events) {
      if (r != round) continue;
      if (kind == 'a') ++arrived;
      if (kind == 'p') {
        EXPECT_EQ(arrived, n) << "passed round " << round << " early";
      }
    }
  }
}

TEST(LuaBarrier, NobodyPassesEarlyAndNobodyIsStuckOverThreeRounds) {
  for (int budget : {3, 7, 50, 500}) {
    SCOPED_TRACE(budget);
    run_barrier(4, budget);
  }
  run_barrier(1, 50);
}

TEST(LuaBarrier, RejectsBadArguments) {
  Sandbox sandbox;
  auto bot = load(sandbox,
                  "return function()\n"
                  "  a = pcall(barrier.new, 0)\n"
                  "  b = pcall(barrier.wait, {})\n"
                  "end");
  EXPECT_EQ(bot->step(1000).status, StepStatus::finished);
  EXPECT_EQ(global_string(sandbox, "a"), "boolean");
  lua_getglobal(sandbox.state(), "a");
  lua_getglobal(sandbox.state(), "b");
  EXPECT_FALSE(lua_toboolean(sandbox.state(), -1));
  EXPECT_FALSE(lua_toboolean(sandbox.state(), -2));
  lua_pop(sandbox.state(), 2);
}

// --- What a library function may cost (docs/security.md, "Lua: what each library function may
// cost") ---

// The finds of `cases` (a Lua list of {subject, pattern, init, plain}) as one string, errors
// included (without the function's name and the caller's position, which Lua's own messages
// lack for a function the sandbox wraps: its caller is the wrapper, a C function).
constexpr std::string_view kFindAll = R"lua(
  local out = {}
  for i = 1, #cases do
    local c = cases[i]
    local ok, a, b = pcall(function() return string.find(c[1], c[2], c[3], c[4]) end)
    if not ok then a = string.gsub(string.gsub(a, "to '[^']*'", ""), '^[^:]*:%d+: ', '') end
    out[i] = tostring(ok) .. ' ' .. tostring(a) .. ' ' .. tostring(b)
  end
  found = table.concat(out, '\n')
)lua";

TEST(LuaCost, FindGivesWhatStockLuaGivesOnRandomSmallInputs) {
  std::mt19937_64 gen(16);
  auto pick = [&](int n) { return static_cast<int>(gen() % static_cast<std::uint64_t>(n)); };
  auto text = [&](int max_len, bool specials) {
    std::string t;
    const int len = pick(max_len + 1);
    for (int i = 0; i < len; ++i) {
      t += specials && pick(8) == 0 ? ".%[]^$-"[pick(7)] : "ab"[pick(2)];
    }
    return t;
  };
  std::string cases = "cases = {\n";
  for (int i = 0; i < 4000; ++i) {
    const std::string subject = text(10, false);
    const std::string pattern = text(4, pick(3) == 0);
    std::string init = "nil";
    switch (pick(8)) {
      case 0:
        break;
      case 1:
        init = std::array{"math.maxinteger", "math.mininteger", "2.0", "1.5"}[pick(4)];
        break;
      default:
        init = std::to_string(pick(27) - 13);
    }
    const char* plain = std::array{"nil", "true", "false", "1"}[pick(4)];
    cases += fmt::format("{{\"{}\", \"{}\", {}, {}}},\n", subject, pattern, init, plain);
  }
  cases += "}\n";

  lua_State* stock = luaL_newstate();
  luaL_openlibs(stock);
  ASSERT_EQ(luaL_dostring(stock, (cases + std::string(kFindAll)).c_str()), LUA_OK)
      << lua_tostring(stock, -1);
  lua_getglobal(stock, "found");
  const std::string expected = lua_tostring(stock, -1);
  lua_close(stock);

  ManualClock clock;
  Sandbox sandbox(no_watchdog(clock));
  auto bot = load(sandbox, cases + "return function()\n" + std::string(kFindAll) + "\nend");
  ASSERT_NE(bot, nullptr);
  const StepResult r = run(*bot, 10'000'000);
  ASSERT_EQ(r.status, StepStatus::finished) << r.detail;
  EXPECT_EQ(global_string(sandbox, "found"), expected);
  EXPECT_NE(expected.find("true 3 4"), std::string::npos);  // the cases do find things
}

// Wall-clock time and outcome of a team main `body` run in steps of 10,000 instructions with
// the options of a match (64 MiB, 50 ms watchdog confirmed by CPU time) until it stops (at most
// 20,000 steps). `big(n [, byte])` makes n bytes of 'a' (or byte) in the host, which is quicker.
struct HostileRun {
  StepResult last;
  std::chrono::milliseconds longest_step{};
  bool ended = false;
};
HostileRun run_hostile(std::string_view body) {
  SandboxOptions options;
  options.cpu_time = thread_cpu_time;
  Sandbox sandbox(options);
  sandbox.define("big", [](lua_State* L) {
    const auto n = static_cast<std::size_t>(luaL_checkinteger(L, 1));
    const std::string s(n, luaL_optstring(L, 2, "a")[0]);
    lua_pushlstring(L, s.data(), s.size());
    return 1;
  });
  HostileRun out;
  auto bot = load(sandbox, "return function()\n" + std::string(body) + "\nend");
  if (bot == nullptr) return out;
  for (int i = 0; i < 20'000 && bot->alive(); ++i) {
    sandbox.start_round();
    out.longest_step = std::max(out.longest_step, timed([&] { out.last = bot->step(10'000); }));
  }
  out.ended = !bot->alive();
  return out;
}

TEST(LuaCost, PlainFindOfAQuadraticNeedleEndsQuickly) {
  // Stock Lua's lmemfind: hours for 2 MiB of 'a' then 'b' in 8 MiB of 'a'; 4.7 s at 1 MiB.
  for (const char* call : {"string.find(h, n, 1, true)", "string.find(h, n)"}) {
    SCOPED_TRACE(call);
    const HostileRun r = run_hostile(
        std::string("local h = big(8 << 20) local n = big(2 << 20) .. 'b'\n result = ") + call);
    EXPECT_TRUE(r.last.status == StepStatus::finished || r.last.status == StepStatus::watchdog)
        << name(r.last.status) << " " << r.last.detail;
    EXPECT_LT(r.longest_step, 2s);
  }
}

TEST(LuaCost, APlainFindIsChargedInProportionToTheBytesItSearched) {
  auto used = [](int n) {
    return instructions_over(n, "s = ('a'):rep(n)", "local i = string.find(s, 'ab', 1, true)");
  };
  const long long small = used(64 << 10);
  const long long large = used(1 << 20);
  const long long extra = large - small;
  EXPECT_GE(extra, ((1 << 20) - (64 << 10)) / 32 - 2);
  EXPECT_LE(extra, ((1 << 20) - (64 << 10)) / 32 + 2);
  // A find over a few bytes costs no more than the call.
  EXPECT_EQ(used(16), used(31));
}

TEST(LuaCost, ALoopOfCCallsFromCIsStoppedByTheWatchdog) {
  // table.concat over 2^63 indexes whose __index is table.concat itself (which answers "" for
  // an empty table): no instruction ever runs, so only the call hook can see it.
  const HostileRun r = run_hostile(
      "local t = setmetatable({}, {__index = table.concat})\n"
      "result = table.concat(t, '', 1, math.maxinteger)");
  EXPECT_EQ(r.last.status, StepStatus::watchdog) << name(r.last.status) << " " << r.last.detail;
  EXPECT_LT(r.longest_step, 2s);
}

TEST(LuaCost, WorkChargedInALoopOfCCallsFromCIsAnOverrun) {
  // Each missing index calls table.concat(t, k) on t's 80,000 elements (~25,000 instructions
  // charged each): no instruction runs in between, so the call hook judges the overspend.
  ManualClock clock;
  SandboxOptions options;
  options.clock = &clock;  // no watchdog; overrun_limit as by default
  Sandbox sandbox(options);
  auto bot = load(sandbox,
                  "return function()\n"
                  "  local t = {} for i = 1, 80000 do t[i] = 'x' end\n"
                  "  setmetatable(t, {__index = table.concat})\n"
                  "  result = #table.concat(t, '', 80001, 80050)\n"
                  "end");
  ASSERT_NE(bot, nullptr);
  const StepResult r = run(*bot, 1000, 100'000);
  EXPECT_EQ(r.status, StepStatus::overrun) << name(r.status) << " " << r.detail;
}

TEST(LuaCost, WrappedLibraryFunctionsAreStillNamedInErrors) {
  Sandbox sandbox;
  auto bot = load(sandbox,
                  "return function()\n"
                  "  local names = {}\n"
                  "  for _, c in ipairs({{string.sub, {}}, {string.char, {}}, {table.concat, 1},\n"
                  "                      {string.byte, {}}, {select, {}}}) do\n"
                  "    names[#names + 1] = select(2, pcall(c[1], c[2]))\n"
                  "  end\n"
                  "  result = table.concat(names, '|')\n"
                  "end");
  ASSERT_NE(bot, nullptr);
  const StepResult r = bot->step(100'000);
  ASSERT_EQ(r.status, StepStatus::finished) << r.detail;
  const std::string result = global_string(sandbox, "result");
  for (const char* name :
       {"'string.sub'", "'string.char'", "'table.concat'", "'string.byte'", "select'"}) {
    EXPECT_NE(result.find(name), std::string::npos) << name << " in " << result;
  }
  EXPECT_EQ(result.find("'?'"), std::string::npos) << result;
}

// One hostile input per library function (and VM operation) that works in C in proportion to
// its input, sized to the 64 MiB cap: the step that makes the call ends as designed, within a
// small multiple of the 50 ms watchdog (asserted generously: CI machines are loaded).
TEST(LuaCost, EveryFunctionEndsQuicklyOnAHostileInputAtTheMemoryCap) {
  using enum StepStatus;
  struct Case {
    const char* body;
    std::vector<StepStatus> ends;  // the designed outcomes
  };
  const Case cases[] = {
      {"string.match(big(8 << 20), ('a'):rep(200) .. 'b')", {error}},
      {"for w in big(8 << 20):gmatch('.-.-b') do end", {error}},
      {"result = #string.gsub(big(8 << 20), 'a', '%0%0')", {finished, watchdog, out_of_memory}},
      {"string.rep('x', 1 << 30)", {error}},
      {"string.format('%q', big(8 << 20))", {error}},
      {"string.format('%s%s', big(8 << 20), big(8 << 20))", {error}},
      {"string.pack('c2000000000', '')", {error}},
      {"string.pack(big(8 << 20, 'x'))", {error}},
      {"string.unpack(big(8 << 20, '<'), '')", {error}},
      {"string.packsize(big(8 << 20, 'b'))", {error}},
      {"string.byte(big(8 << 20), 1, -1)", {error}},
      {"result = #string.char(string.byte(big(900000), 1, -1))", {finished, watchdog}},
      {"result = #big(8 << 20):upper():lower():reverse()", {finished, watchdog}},
      {"local s = big(16 << 20) for i = 1, 50 do local t = s:sub(2) end",
       {finished, watchdog, out_of_memory}},
      {"local t = {} for i = 1, 1000000 do t[i] = 'ab' end result = #table.concat(t, '--')",
       {finished, watchdog}},
      {"table.unpack({}, 1, 1e8)", {error}},
      {"local t = {} for i = 1, 999000 do t[i] = i end result = math.max(table.unpack(t))",
       {finished, watchdog}},
      {"local t = {} for i = 1, 999000 do t[i] = i end result = select('#', table.unpack(t))",
       {finished, watchdog}},
      {"local t = {} for i = 1, 1000000 do t[i] = i end for i = 1, 100 do "
       "table.insert(t, 1, i) table.remove(t, 1) end",
       {finished, watchdog}},
      {"local s = big(32 << 20) local t = {} for i = 1, 200 do t[i] = s end table.sort(t)",
       {watchdog}},
      {"local t = {} for i = 1, 1500000 do t[i] = -i end table.sort(t)", {finished, watchdog}},
      {"result = tonumber(big(32 << 20, '1'))", {finished, watchdog}},
      {"load(big(2 << 20))", {error}},
      {"local s = big(16 << 20) while true do s = s .. s end", {out_of_memory, watchdog}},
      {"local s = big(8 << 20, '\\0') while true do local _ = s < s end", {watchdog}},
      {"local s, u = big(24 << 20), big(24 << 20) while true do local _ = s < u or s == u end",
       {watchdog}},
      // Building the 16 MiB message may itself outlast the step watchdog on a loaded machine.
      {"error(big(16 << 20))", {error, watchdog}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body);
    const HostileRun r = run_hostile(c.body);
    ASSERT_TRUE(r.ended) << name(r.last.status);
    EXPECT_NE(std::find(c.ends.begin(), c.ends.end(), r.last.status), c.ends.end())
        << name(r.last.status) << " " << r.last.detail;
    EXPECT_LT(r.longest_step, 2s);
    EXPECT_LE(r.last.detail.size(), 310U);
  }
}

// The instructions a team main `body` uses beyond the same call on `small`, for `n` = small
// and `large`: the charge must grow by at least `per_unit` instructions a unit of n.
void expect_charged(std::string_view build, std::string_view body, int small, int large,
                    double per_unit) {
  SCOPED_TRACE(std::string(build) + " / " + std::string(body));
  const long long a = instructions_over(small, build, body);
  const long long b = instructions_over(large, build, body);
  EXPECT_GE(static_cast<double>(b - a), per_unit * (large - small)) << a << " " << b;
}

TEST(LuaCost, WorkInCIsChargedInProportionToItsInput) {
  constexpr double kByte = 1.0 / 32 * 0.95;
  constexpr double kValue = 1.0 / 8 * 0.95;
  constexpr std::string_view kString = "s = ('a'):rep(n)";
  constexpr std::string_view kTable = "for i = 1, n do t[i] = 'a' end";
  for (const char* body : {"local x = s:upper()", "local x = s:sub(2)", "local x = s:reverse()",
                           "local x = string.format('%s', s)", "local x = s:match('b')",
                           "local x = s:gsub('b', '')", "local x = tonumber(s)"}) {
    expect_charged(kString, body, 1 << 10, 1 << 20, kByte);
  }
  expect_charged(kString, "local x = load(s:gsub('a', ' '))", 1 << 10, 1 << 19, 0.95);
  expect_charged(kString, "local x = select('#', s:byte(1, -1))", 1 << 10, 1 << 18, kValue);
  for (const char* body : {"local x = table.concat(t)", "local x = select('#', table.unpack(t))",
                           "table.insert(t, 1, 'b')", "table.remove(t, 1)",
                           "table.move(t, 1, #t, 2)", "table.sort(t)"}) {
    expect_charged(kTable, body, 1 << 10, 1 << 18, kValue);
  }
}

// The seconds one `s < s` takes over `bytes` of '\0' in plain Lua (strcoll segment by segment:
// the slowest single instruction the memory cap allows).
double seconds_to_compare(std::size_t bytes) {
  lua_State* L = luaL_newstate();
  const std::string s(bytes, '\0');
  lua_pushlstring(L, s.data(), s.size());
  lua_setglobal(L, "s");
  const auto start = std::chrono::steady_clock::now();
  if (luaL_dostring(L, "local _ = s < s") != LUA_OK) ADD_FAILURE() << lua_tostring(L, -1);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  lua_close(L);
  return took;
}

// Bytes of '\0' for which one `s < s` takes at least 80 ms here (at most 24 MiB); `compare` is
// set to its seconds.
std::size_t slow_compare_bytes(double& compare) {
  std::size_t bytes = 4 << 20;
  compare = seconds_to_compare(bytes);
  while (compare < 0.08 && bytes < (24 << 20)) {
    bytes *= 2;
    compare = seconds_to_compare(bytes);
  }
  return bytes;
}

// A step that has run for the watchdog's time is rung (lua/step_alarm.h): a loop of the slowest
// instructions stops within a few of them after the watchdog, not at the end of its slice of 64
// instructions (about 13 turns of this loop).
TEST(LuaWatchdog, ALoopOfSlowInstructionsStopsSoonAfterTheWatchdog) {
  double compare = 0;
  const std::size_t bytes = slow_compare_bytes(compare);
  const HostileRun r = run_hostile(
      fmt::format("local s = big({}, '\\0')\nwhile true do local _ = s < s end", bytes));
  EXPECT_EQ(r.last.status, StepStatus::watchdog) << name(r.last.status) << " " << r.last.detail;
  // The watchdog, the ring's delay (a coarse clock tick and the watcher's 5 ms), the
  // comparison under way and the one before the next turn's jump: about 2 comparisons. Allowed:
  // 6, and 150 ms, for a busy machine. Without rings the slice of 64 runs about 13.
  const auto bound = std::chrono::milliseconds(150 + static_cast<int>(6 * compare * 1000));
  EXPECT_LT(r.longest_step, bound) << "one comparison: " << compare << " s";
  RecordProperty("comparison_ms", static_cast<int>(compare * 1000));
  RecordProperty("longest_step_ms", static_cast<int>(r.longest_step.count()));
}

// A ring changes no count: a step that is rung but not condemned (its CPU time says it only
// waited) uses exactly what the same step uses in a sandbox that never rings.
TEST(LuaWatchdog, ARungStepCountsExactlyAsAnUnrungOne) {
  auto big = [](lua_State* L) {
    const std::string s(static_cast<std::size_t>(luaL_checkinteger(L, 1)), '\0');
    lua_pushlstring(L, s.data(), s.size());
    return 1;
  };
  const std::string team =
      "return function()\n"
      "  local s = big(512 << 10)\n"
      "  n = 0\n"
      "  while true do\n"
      "    n = n + 1\n"
      "    local _ = s < s\n"
      "  end\n"
      "end";
  SandboxOptions options;
  options.watchdog = std::chrono::milliseconds(5);
  options.cpu_time = [] { return Duration::zero(); };  // never condemned
  Sandbox ringing(options);
  ManualClock clock;
  Sandbox quiet(no_watchdog(clock));
  ringing.define("big", big);
  quiet.define("big", big);
  auto a = load(ringing, team);
  auto b = load(quiet, team);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  bool any_rung = false;
  for (int budget : {400, 37, 1000, 250}) {
    const StepResult ra = a->step(budget);
    const StepResult rb = b->step(budget);
    any_rung = any_rung || a->rung();
    EXPECT_EQ(ra.status, rb.status) << budget;
    EXPECT_EQ(ra.budget_used, rb.budget_used) << budget;
    EXPECT_FALSE(b->rung());
  }
  EXPECT_EQ(global_int(ringing, "n"), global_int(quiet, "n"));
  EXPECT_GT(global_int(ringing, "n"), 100);
  EXPECT_TRUE(any_rung) << "no step ran long enough to be rung";
}

// Rings at random moments, far more often than the watcher sends them (a thread signals this
// one every 0-200 µs), change no count: ten programs (charges, yields, blocking, pcall, sort and
// gsub callbacks, metamethods, recursion) under random budgets give every step the same status,
// count and detail, and the same final state, as the hook called on every instruction.
TEST(LuaWatchdog, RingsAtRandomMomentsChangeNoCount) {
  std::vector<std::string> programs = busy_programs();
  programs.push_back(
      "x = 0 return function() while true do x = x + 1 x = x + 2 x = x + 3 x = x * 1 x = x - 2 "
      "end end");
  {
    // The handler is installed with the watcher, on the first armed step.
    Sandbox first;
    load(first, "return function() end")->step(10);
  }
  const pthread_t me = ::pthread_self();
  std::atomic<bool> stop{false};
  std::thread ringer([&] {
    std::mt19937 r(5);
    while (!stop.load()) {
      StepAlarm::ring_now(me);
      std::this_thread::sleep_for(std::chrono::microseconds(r() % 200));
    }
  });
  auto make = [](bool every, ManualClock& clock) {
    SandboxOptions options = no_watchdog(clock, 3);
    options.overrun_limit = 300;
    options.hook_every_instruction = every;
    if (!every) {
      options.clock = nullptr;  // the real clock: steps are armed
      options.watchdog = std::chrono::hours(1);
    }
    auto sandbox = std::make_unique<Sandbox>(options);
    define_act_and_wait(*sandbox);
    return sandbox;
  };
  int rung_steps = 0;
  for (const std::string& program : programs) {
    SCOPED_TRACE(program);
    ManualClock clock;
    auto reference = make(true, clock);
    auto ringing = make(false, clock);
    auto a = load(*reference, program);
    auto b = load(*ringing, program);
    ASSERT_TRUE(a && b);
    expect_same_steps(*a, *reference, *b, *ringing, 1500, 3000, rung_steps);
  }
  stop = true;
  ringer.join();
  EXPECT_GT(rung_steps, 100) << "the rings did not reach the steps";
}

// A step that was only kept waiting (a busy machine; here a host call that sleeps past the
// watchdog) is rung but not condemned, and its ring does not make it one: it runs a large
// budget to the end.
TEST(LuaWatchdog, ARungStepThatOnlyWaitedRunsItsBudget) {
  SandboxOptions options;
  options.cpu_time = thread_cpu_time;
  Sandbox sandbox(options);
  sandbox.define("nap", [](lua_State*) {
    std::this_thread::sleep_for(std::chrono::milliseconds(80));
    return 0;
  });
  auto bot = load(sandbox, "x = 0 return function() nap() while true do x = x + 1 end end");
  ASSERT_NE(bot, nullptr);
  sandbox.start_round();
  const StepResult r = bot->step(1'000'000);
  EXPECT_EQ(r.status, StepStatus::ran_out) << name(r.status) << " " << r.detail;
  EXPECT_EQ(r.budget_used, 1'000'000);
  EXPECT_TRUE(bot->rung());
}

// A charge between the ring and the next line re-arms the count hook; the ring must survive it.
TEST(LuaWatchdog, ARingSurvivesAChargeBeforeTheNextLine) {
  double compare = 0;
  const std::size_t bytes = slow_compare_bytes(compare);
  SandboxOptions options;
  options.cpu_time = thread_cpu_time;
  Sandbox sandbox(options);
  sandbox.define("big", [](lua_State* L) {
    const std::string s(static_cast<std::size_t>(luaL_checkinteger(L, 1)), '\0');
    lua_pushlstring(L, s.data(), s.size());
    return 1;
  });
  sandbox.define("act", [](lua_State* L) {
    Sandbox::charge(L, 1);
    return 0;
  });
  auto bot = load(sandbox, fmt::format("return function()\nlocal s = big({})\n"
                                       "while true do act() local _ = s < s act() end\nend",
                                       bytes));
  ASSERT_NE(bot, nullptr);
  StepResult last;
  std::chrono::milliseconds longest{};
  for (int i = 0; i < 100 && bot->alive(); ++i) {
    sandbox.start_round();
    longest = std::max(longest, timed([&] { last = bot->step(10'000); }));
  }
  EXPECT_EQ(last.status, StepStatus::watchdog) << name(last.status);
  EXPECT_TRUE(bot->rung()) << "the watchdog was met at the end of a slice, not by the ring";
  EXPECT_LT(longest, std::chrono::milliseconds(150 + static_cast<int>(6 * compare * 1000)));
}

}  // namespace
}  // namespace arbiter::lua
