// Dominosa benchmarks (Google Benchmark). Sections:
//   1. Solver: solve(p, 2) on generated unique puzzles (what the race and the generator solve),
//      on random layouts (the planted solution plus a few local variants: hard instances), and
//      counting (limit 2 and 1000) on ambiguous grids.
//   2. Grader: grade(p) on generated unique puzzles of each level and on random layouts.
// Inputs are fixed by seed; every benchmark cycles through a small pool of puzzles, so a time is
// the mean over the pool. Counters: `count` (mean solutions found), `nodes` (mean search nodes),
// `done` (fraction finished within the node budget, where one is set).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "games/dominosa/generator.h"
#include "games/dominosa/puzzle.h"
#include "games/dominosa/solver.h"

namespace arbiter::dominosa {
namespace {

constexpr int kPool = 6;

// A random layout: a random tiling (plain tiling scrambled by 2x2 flips) carrying the double-n set
// in random order and orientation.
Puzzle random_layout(int n, Rng& rng) {
  const int h = n + 1, w = n + 2, cells = h * w;
  std::vector<int> mate(cells);
  for (int i = 0; i < cells; ++i) {
    const int r = i / w, c = i % w;
    mate[i] = w % 2 == 0 ? (c % 2 == 0 ? i + 1 : i - 1) : (r % 2 == 0 ? i + w : i - w);
  }
  for (int step = 0; step < 20 * cells; ++step) {
    const int r = static_cast<int>(rng.below(h - 1)), c = static_cast<int>(rng.below(w - 1));
    const int a = r * w + c, b = a + 1, d = a + w, e = a + w + 1;
    if (mate[a] == b && mate[d] == e) {
      mate[a] = d, mate[d] = a, mate[b] = e, mate[e] = b;
    } else if (mate[a] == d && mate[b] == e) {
      mate[a] = b, mate[b] = a, mate[d] = e, mate[e] = d;
    }
  }
  std::vector<std::pair<int, int>> set;
  for (int a = 0; a <= n; ++a) {
    for (int b = a; b <= n; ++b) set.emplace_back(a, b);
  }
  rng.shuffle(set.begin(), set.end());
  Puzzle p;
  p.n = n;
  p.grid.assign(cells, -1);
  std::size_t next = 0;
  for (int i = 0; i < cells; ++i) {
    if (mate[i] < i) continue;
    auto [a, b] = set[next++];
    if (rng.below(2)) std::swap(a, b);
    p.grid[i] = a;
    p.grid[mate[i]] = b;
  }
  return p;
}

// An ambiguous grid with many solutions that search finds quickly: rows of horizontal tiles
// carrying the set in order, each tile turned at random (n even).
Puzzle sorted_layout(int n, Rng& rng) {
  Puzzle p;
  p.n = n;
  for (int a = 0; a <= n; ++a) {
    for (int b = a; b <= n; ++b) {
      const bool turn = rng.below(2) != 0;
      p.grid.push_back(turn ? b : a);
      p.grid.push_back(turn ? a : b);
    }
  }
  return p;
}

enum class Kind { random, sorted, trivial, basic, hard, extreme };

const std::vector<Puzzle>& pool(Kind kind, int n) {
  static std::map<std::pair<int, int>, std::vector<Puzzle>> pools;
  auto& out = pools[{static_cast<int>(kind), n}];
  if (!out.empty()) return out;
  for (int i = 0; i < kPool; ++i) {
    Rng rng(Rng::derive(2024, "dominosa-bench", static_cast<std::uint64_t>(n * 100 + i)));
    switch (kind) {
      case Kind::random:
        out.push_back(random_layout(n, rng));
        break;
      case Kind::sorted:
        out.push_back(sorted_layout(n, rng));
        break;
      default: {
        GenerateOptions options;
        options.n = n;
        options.level =
            static_cast<Level>(static_cast<int>(kind) - static_cast<int>(Kind::trivial));
        options.seed = static_cast<std::uint64_t>(i + 1);
        const std::optional<Generated> g = generate(options);
        if (g) out.push_back(g->puzzle);
      }
    }
  }
  return out;
}

// ---- 1. Solver -------------------------------------------------------------------------------

void solve_bench(benchmark::State& state, Kind kind, std::int64_t limit, std::int64_t budget) {
  const int n = static_cast<int>(state.range(0));
  const std::vector<Puzzle>& puzzles = pool(kind, n);
  if (puzzles.empty()) {
    state.SkipWithError("no puzzles");
    return;
  }
  SolveLimits limits;
  limits.max_nodes = budget;
  std::size_t i = 0;
  double count = 0, nodes = 0, done = 0, runs = 0;
  for (auto _ : state) {
    const SolveResult r = solve(puzzles[i++ % puzzles.size()], limit, limits);
    benchmark::DoNotOptimize(r.count);
    count += static_cast<double>(r.count);
    nodes += static_cast<double>(r.nodes);
    done += r.complete ? 1 : 0;
    ++runs;
  }
  state.counters["count"] = count / runs;
  state.counters["nodes"] = nodes / runs;
  state.counters["done"] = done / runs;
}

// Generated unique puzzles: one solve(p, 2) proves uniqueness.
void BM_SolveGenerated(benchmark::State& state) {
  solve_bench(state, static_cast<Kind>(state.range(1)), 2, -1);
}
BENCHMARK(BM_SolveGenerated)
    ->ArgsProduct({{30, 60, 100},
                   {static_cast<int>(Kind::trivial), static_cast<int>(Kind::basic),
                    static_cast<int>(Kind::hard), static_cast<int>(Kind::extreme)}})
    ->ArgNames({"n", "kind"})
    ->Unit(benchmark::kMillisecond);

// Random layouts (limit 2), within a budget of 20000 nodes: hard beyond n ~ 40.
void BM_SolveRandomLayout(benchmark::State& state) {
  solve_bench(state, Kind::random, 2, 20000);
}
BENCHMARK(BM_SolveRandomLayout)->Arg(10)->Arg(20)->Arg(30)->Arg(40)->Unit(benchmark::kMillisecond);

// Counting on ambiguous grids: random layouts (n = 30) and sorted layouts (n = 30, 60, 100).
void BM_CountRandomLayout(benchmark::State& state) {
  solve_bench(state, Kind::random, state.range(1), 20000);
}
BENCHMARK(BM_CountRandomLayout)
    ->ArgsProduct({{20, 30}, {2, 1000}})
    ->ArgNames({"n", "limit"})
    ->Unit(benchmark::kMillisecond);

void BM_CountSorted(benchmark::State& state) {
  solve_bench(state, Kind::sorted, state.range(1), -1);
}
BENCHMARK(BM_CountSorted)
    ->ArgsProduct({{30, 60, 100}, {2, 1000}})
    ->ArgNames({"n", "limit"})
    ->Unit(benchmark::kMillisecond);

// ---- 2. Grader -------------------------------------------------------------------------------

void BM_Grade(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const std::vector<Puzzle>& puzzles = pool(static_cast<Kind>(state.range(1)), n);
  if (puzzles.empty()) {
    state.SkipWithError("no puzzles");
    return;
  }
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(grade(puzzles[i++ % puzzles.size()]));
  }
}
// kind: 0 random layout (ambiguous: the deductions stall early), 2..5 trivial..extreme.
BENCHMARK(BM_Grade)
    ->ArgsProduct({{10, 20, 30},
                   {static_cast<int>(Kind::random), static_cast<int>(Kind::trivial),
                    static_cast<int>(Kind::basic), static_cast<int>(Kind::hard),
                    static_cast<int>(Kind::extreme)}})
    ->ArgNames({"n", "kind"})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace arbiter::dominosa
