// Tests of the Lua sandbox: exact budgets, step outcomes, the memory cap, the hostile matrix of
// spec §5, cas and the barrier library of §6.
#include "lua/sandbox.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
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

template <class F>
std::chrono::milliseconds timed(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
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
  Sandbox sandbox;
  auto bot = load(sandbox,
                  "return function()\n"
                  "  pcall(table.sort, {3, 1, 2, 5, 4}, function(a, b) while true do end end)\n"
                  "  survived = true\n"
                  "  while true do end\n"
                  "end");
  StepResult r;
  const auto took = timed([&] { r = run(*bot, 500); });
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
  Sandbox sandbox;
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
  const auto took = timed([&] { r = bot->step(100'000); });
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
  Sandbox sandbox;
  auto bot = load(sandbox,
                  "return function()\n"
                  "  local s = ('a'):rep(2000)\n"
                  "  ok = pcall(string.find, s, '.-x')\n"
                  "end");
  StepResult r;
  const auto took = timed([&] { r = bot->step(1000); });
  EXPECT_EQ(r.status, StepStatus::finished);
  EXPECT_LT(took, 100ms);
  lua_getglobal(sandbox.state(), "ok");
  EXPECT_TRUE(lua_toboolean(sandbox.state(), -1));
  lua_pop(sandbox.state(), 1);
}

TEST(LuaHostile, CLoopsOverHugeRangesAreRefused) {
  Sandbox sandbox;
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
  const auto took = timed([&] { r = bot->step(10'000); });
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
  EXPECT_EQ(global_string(sandbox, "result"), "true,false,true,true,true,true,true,false,true,false");
  lua_getglobal(sandbox.state(), "bad");
  EXPECT_FALSE(lua_toboolean(sandbox.state(), -1));
  lua_pop(sandbox.state(), 1);
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
  const std::string source =
      "local b = barrier.new(" + std::to_string(n) +
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
      const bool expected = r.status == StepStatus::ran_out ||
                            r.status == StepStatus::yielded || r.status == StepStatus::finished;
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

}  // namespace
}  // namespace arbiter::lua
