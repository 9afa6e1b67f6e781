// clock_bench: what measuring each call's CPU time costs (docs/benchmarks.md, "Fair clocks"),
// side by side with it off in one run: every iteration times a batch of calls without the
// measurement and then the same batch with it, and the counters are the medians over the
// batches of the time per call. Three ways a call is measured:
//  - inproc/thread: an in-process player on a pooled worker thread (the thread CPU clock read
//    before and after the call, and the worker's clock by the referee);
//  - inproc/inline: the same on the referee's own thread (replays, benchmarks);
//  - program: a program's cgroup (cpuacct.usage or cpu.stat) read before and after the call,
//    here around an empty call, so the counter is the reading's cost alone.
// And a whole Q match of house bots, measured and not.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "games/q/bots.h"
#include "games/q/game.h"
#include "referee/guarded_call.h"
#include "referee/turn_based.h"
#include "remote/cgroup.h"

namespace arbiter {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kBatch = 256;

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Times kBatch guarded calls of an empty job under `rule`, in nanoseconds per call.
double batch_ns(CallRunner& runner, const CpuRule& rule) {
  const Deadline deadline = Deadline::after(SteadyClock::instance(), std::chrono::hours(1));
  const auto start = Clock::now();
  for (int i = 0; i < kBatch; ++i) {
    auto out = guarded_call(
        0, "take_turn", runner, deadline, [] { return 1; }, std::nullopt, rule);
    benchmark::DoNotOptimize(out);
  }
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / kBatch;
}

void side_by_side(benchmark::State& state, Isolation isolation, const CpuMeter* meter) {
  CallRunner runner(isolation);
  const CpuRule off{.measure = false, .meter = meter};
  const CpuRule on{.measure = true, .meter = meter};
  std::vector<double> without, with, added;
  for (auto _ : state) {
    const double a = batch_ns(runner, off);
    const double b = batch_ns(runner, on);
    without.push_back(a);
    with.push_back(b);
    added.push_back(b - a);
  }
  state.counters["off_ns/call"] = median_of(without);
  state.counters["on_ns/call"] = median_of(with);
  state.counters["added_ns/call"] = median_of(added);
}

void BM_CpuTimePerCall_InprocThread(benchmark::State& state) {
  side_by_side(state, Isolation::thread, nullptr);
}
void BM_CpuTimePerCall_InprocInline(benchmark::State& state) {
  side_by_side(state, Isolation::inline_call, nullptr);
}
void BM_CpuTimePerCall_Program(benchmark::State& state) {
  auto group = ProgramCgroup::create({});
  if (!group || !(*group)->counts_cpu()) {
    state.SkipWithError("this machine counts no cgroup's CPU time (ProgramCgroup)");
    return;
  }
  side_by_side(state, Isolation::inline_call, group->get());
}
BENCHMARK(BM_CpuTimePerCall_InprocThread)->Iterations(400)->UseRealTime();
BENCHMARK(BM_CpuTimePerCall_InprocInline)->Iterations(400)->UseRealTime();
BENCHMARK(BM_CpuTimePerCall_Program)->Iterations(400)->UseRealTime();

// One Q match of two house bots per seed, not measured and then measured, on pooled threads as
// tournaments play them: the median of the per-call difference.
void BM_QMatchCpuTime(benchmark::State& state) {
  std::uint64_t seed = 0;
  std::vector<double> added, off_ns;
  const auto play = [&](bool measure, std::int64_t& calls) {
    std::vector<PlayerPtr<q::Q>> seats{q::make_actor({"a", q::Strategy::dag}),
                                       q::make_actor({"b", q::Strategy::ldasg})};
    std::ostringstream text;
    GameLog log(&text);
    RefereeOptions options;
    options.measure_cpu = measure;
    options.log = &log;
    const auto start = Clock::now();
    play_turn_based<q::Q>(q::Config{}, seed, {"a", "b"}, seats, options);
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    const std::string lines = text.str();
    calls = static_cast<std::int64_t>(std::count(lines.begin(), lines.end(), '\n'));
    return ns;
  };
  for (auto _ : state) {
    std::int64_t calls_off = 0, calls_on = 0;
    const double a = play(false, calls_off);
    const double b = play(true, calls_on);
    ++seed;
    added.push_back((b - a) / static_cast<double>(std::max<std::int64_t>(1, calls_on)));
    off_ns.push_back(a / static_cast<double>(std::max<std::int64_t>(1, calls_off)));
  }
  state.counters["off_ns/line"] = median_of(off_ns);
  state.counters["added_ns/line"] = median_of(added);
}
BENCHMARK(BM_QMatchCpuTime)->Iterations(200)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace arbiter
