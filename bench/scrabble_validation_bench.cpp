// Speed Scrabble board validation (board_problem) on real boards: the solver's boards for seeded
// 15- and 21-tile hands with the default dictionary (scowl-70). Items per second are boards
// checked per second.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "core/rng.h"
#include "games/speed_scrabble/solver.h"
#include "games/speed_scrabble/state.h"

namespace {

using namespace arbiter;
using namespace arbiter::speed_scrabble;

const Dictionary& words() {
  static const Dictionary d = *Dictionary::scowl(70);
  return d;
}

struct Sample {
  Board board;
  Tiles tiles;
};

// Up to 50 solved boards for seeded hands of `k` tiles drawn from the Bananagrams bag.
const std::vector<Sample>& samples(int k) {
  static std::vector<Sample> by_k[64];
  auto& out = by_k[k];
  if (!out.empty()) return out;
  Solver solver(words());
  for (std::uint64_t seed = 1; out.size() < 50 && seed < 500; ++seed) {
    std::string bag = bag_letters("bananagrams");
    Rng rng(seed);
    rng.shuffle(bag.begin(), bag.end());
    const Tiles tiles = bag.substr(0, k);
    if (auto board = solver.solve(tiles)) out.push_back({*board, tiles});
  }
  return out;
}

void BM_Validate(benchmark::State& state) {
  const auto& boards = samples(static_cast<int>(state.range(0)));
  if (boards.empty()) {
    state.SkipWithError("the solver found no boards");
    return;
  }
  std::size_t i = 0;
  for (auto _ : state) {
    const Sample& s = boards[i];
    benchmark::DoNotOptimize(board_problem(s.board, s.tiles, words()));
    if (++i == boards.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(std::to_string(state.range(0)) + " tiles, " + std::to_string(boards.size()) +
                 " boards");
}
BENCHMARK(BM_Validate)->Arg(15)->Arg(21);

// A board that fails at the last check (one word not in the dictionary) costs as much as a
// valid one; one with a wrong letter fails early.
void BM_ValidateWrongLetter(benchmark::State& state) {
  const auto& boards = samples(15);
  if (boards.empty()) {
    state.SkipWithError("the solver found no boards");
    return;
  }
  Tiles other = boards[0].tiles;
  other[0] = other[0] == 'Q' ? 'Z' : 'Q';
  for (auto _ : state) benchmark::DoNotOptimize(board_problem(boards[0].board, other, words()));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ValidateWrongLetter);

}  // namespace

BENCHMARK_MAIN();
