// abalone_bench: the Lua bot runtime's speed. Loop iterations per second of one busy bot under
// the budget hook (stepped 500 instructions at a time) against plain Lua running the same loop
// (the ratio is the hook's price); the cost of one step switch (step(1)); and clock cycles per
// second of a match with 28 busy bots (14 a team) at the default budget; and the two loops
// interleaved in one benchmark with their ratio (hooked_vs_plain).
#include <benchmark/benchmark.h>

#include <chrono>

#include <lua.hpp>

#include "games/abalone/game.h"
#include "lua/sandbox.h"

namespace {

using namespace arbiter;

// The loop both variants run; `n` counts iterations so the two can be compared.
constexpr const char* kBusyTeam = "return function() n = 0 while true do n = n + 1 end end";

void hooked_loop(benchmark::State& state) {
  lua::Sandbox sandbox;
  if (!sandbox.load_team(kBusyTeam, "busy")) std::abort();
  auto bot = sandbox.spawn_main(1);
  std::int64_t instructions = 0;
  for (auto _ : state) instructions += bot->step(500).budget_used;
  lua_State* L = sandbox.state();
  lua_getglobal(L, "n");
  const auto iterations = lua_tointeger(L, -1);
  lua_pop(L, 1);
  state.counters["instructions/s"] =
      benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
  state.counters["iterations/s"] =
      benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kIsRate);
}
BENCHMARK(hooked_loop);

// Plain Lua on the same loop: one count hook per million instructions (a negligible price) only
// to hand control back, so instructions are counted exactly here too.
constexpr int kPlainSlice = 1'000'000;

void yield_hook(lua_State* L, lua_Debug*) { lua_yield(L, 0); }

void plain_loop(benchmark::State& state) {
  lua_State* L = luaL_newstate();
  lua_State* thread = lua_newthread(L);
  if (luaL_loadstring(thread, "n = 0 while true do n = n + 1 end") != LUA_OK) std::abort();
  lua_sethook(thread, yield_hook, LUA_MASKCOUNT, kPlainSlice);
  std::int64_t instructions = 0;
  int results = 0;
  for (auto _ : state) {
    if (lua_resume(thread, L, 0, &results) != LUA_YIELD) std::abort();
    instructions += kPlainSlice;
  }
  lua_getglobal(L, "n");
  state.counters["instructions/s"] =
      benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
  state.counters["iterations/s"] =
      benchmark::Counter(static_cast<double>(lua_tointeger(L, -1)), benchmark::Counter::kIsRate);
  lua_close(L);
}
BENCHMARK(plain_loop);

// Side by side in one run: each iteration runs 100 steps of 500 instructions of the busy bot
// under the budget hook, the same with the hook called on every instruction (the way before
// issue 19, kept as the sandbox's reference mode), then as many instructions of plain Lua,
// timing each part. "hooked/plain" is the hooked rate over the plain one (1.0: the hook is
// free), "every_instruction/plain" the same for the old way. Interleaving keeps a noisy machine
// from favouring any side.
void hooked_vs_plain(benchmark::State& state) {
  lua::Sandbox sandbox;
  lua::SandboxOptions every;
  every.hook_every_instruction = true;
  lua::Sandbox reference(every);
  if (!sandbox.load_team(kBusyTeam, "busy") || !reference.load_team(kBusyTeam, "busy"))
    std::abort();
  auto bot = sandbox.spawn_main(1);
  auto old_bot = reference.spawn_main(1);
  lua_State* L = luaL_newstate();
  lua_State* thread = lua_newthread(L);
  if (luaL_loadstring(thread, "n = 0 while true do n = n + 1 end") != LUA_OK) std::abort();
  constexpr int kSteps = 100, kBudget = 500;
  lua_sethook(thread, yield_hook, LUA_MASKCOUNT, kSteps * kBudget);
  double hooked_s = 0, every_s = 0, plain_s = 0;
  std::int64_t instructions = 0, old_instructions = 0;
  using Clock = std::chrono::steady_clock;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    for (int i = 0; i < kSteps; ++i) instructions += bot->step(kBudget).budget_used;
    const auto t1 = Clock::now();
    for (int i = 0; i < kSteps; ++i) old_instructions += old_bot->step(kBudget).budget_used;
    const auto t2 = Clock::now();
    int results = 0;
    if (lua_resume(thread, L, 0, &results) != LUA_YIELD) std::abort();
    const auto t3 = Clock::now();
    hooked_s += std::chrono::duration<double>(t1 - t0).count();
    every_s += std::chrono::duration<double>(t2 - t1).count();
    plain_s += std::chrono::duration<double>(t3 - t2).count();
  }
  lua_close(L);
  if (instructions != state.iterations() * kSteps * kBudget || old_instructions != instructions)
    state.SkipWithError("short steps");
  state.counters["hooked/plain"] = plain_s / hooked_s;
  state.counters["every_instruction/plain"] = plain_s / every_s;
  state.counters["plain_instr/s"] = static_cast<double>(instructions) / plain_s;
}
BENCHMARK(hooked_vs_plain);

void step_switch(benchmark::State& state) {
  lua::Sandbox sandbox;
  if (!sandbox.load_team(kBusyTeam, "busy")) std::abort();
  auto bot = sandbox.spawn_main(1);
  for (auto _ : state) benchmark::DoNotOptimize(bot->step(1));
}
BENCHMARK(step_switch);

void match_cycles_28_busy_bots(benchmark::State& state) {
  // Each team spawns to 14 pieces; then every bot spins its whole budget each cycle.
  const std::string team =
      "local function bot() while spawn(bot) do end local x = 0 while true do x = x + 1 end end "
      "return bot";
  abalone::Config config;
  config.game_length = static_cast<int>(state.range(0));
  std::int64_t cycles = 0;
  for (auto _ : state) {
    const auto summary = abalone::play_match(config, abalone::Runtime{}, 1, {"b", team}, {"w", team});
    if (summary.pieces[0] + summary.pieces[1] != 28) state.SkipWithError("not 28 bots");
    cycles += summary.cycles;
  }
  state.counters["cycles/s"] =
      benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
}
BENCHMARK(match_cycles_28_busy_bots)->Arg(2000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
