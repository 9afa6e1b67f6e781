// The Speed Scrabble house solver on seeded hands: how often it finds a board that uses every
// tile and how long that takes (median, p99, mean, max of single calls), for hands of 15 and 21
// tiles, and what extend() costs per tile when tiles arrive one at a time from 7 to 21. A plain
// program (not Google Benchmark), because what matters is the distribution of single calls. The
// results and what they mean: docs/benchmarks.md, "Speed Scrabble solver".
//
//   scrabble_solver_bench [--hands N] [--extend-hands N] [--seed S] [--max-nodes N] [--scowl N]
//
// Hand i of a run is the Bananagrams bag shuffled by Rng(Rng::derive(seed, "hand", i)); the
// 15-tile hand is the first 15 tiles of the 21-tile one. Every board is checked with
// board_problem; a board that fails the check is counted and reported (it would be a bug).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/rng.h"
#include "games/speed_scrabble/solver.h"
#include "games/speed_scrabble/state.h"

namespace {

using namespace arbiter;
using namespace arbiter::speed_scrabble;
using Steady = std::chrono::steady_clock;

double ms_since(Steady::time_point start) {
  return std::chrono::duration<double, std::milli>(Steady::now() - start).count();
}

struct Summary {
  std::vector<double> ms;  // every call, solved or not
  long nodes = 0;
  int solved = 0, invalid = 0;

  void print(const char* label) {
    if (ms.empty()) return;
    std::sort(ms.begin(), ms.end());
    const auto at = [&](double q) {
      return ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * ms.size()))];
    };
    double sum = 0;
    for (double x : ms) sum += x;
    const auto n = static_cast<double>(ms.size());
    std::printf("%-26s %6zu  %6d (%5.1f%%)  %9.3f  %9.3f  %9.3f  %9.2f  %9.0f  %d\n", label,
                ms.size(), solved, 100.0 * solved / n, at(0.5), at(0.99), sum / n, ms.back(),
                static_cast<double>(nodes) / n, invalid);
  }
};

Tiles hand(std::uint64_t seed, std::uint64_t i, int k) {
  static const std::string bag = bag_letters("bananagrams");
  std::string b = bag;
  Rng rng(Rng::derive(seed, "hand", i));
  rng.shuffle(b.begin(), b.end());
  return b.substr(0, static_cast<std::size_t>(k));
}

long flag_number(int argc, char** argv, const char* name, long fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atol(argv[i + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const long hands = flag_number(argc, argv, "--hands", 1000);
  const long extend_hands = flag_number(argc, argv, "--extend-hands", 200);
  const auto seed = static_cast<std::uint64_t>(flag_number(argc, argv, "--seed", 1));
  const int scowl = static_cast<int>(flag_number(argc, argv, "--scowl", 70));
  SolveLimits limits;
  limits.max_nodes = flag_number(argc, argv, "--max-nodes", limits.max_nodes);

  auto start = Steady::now();
  auto dict = Dictionary::scowl(scowl);
  if (!dict) {
    std::fprintf(stderr, "scrabble_solver_bench: %s\n", dict.error().message.c_str());
    return 1;
  }
  const double load_ms = ms_since(start);
  start = Steady::now();
  const auto index = make_solver_index(*dict);
  const double index_ms = ms_since(start);
  std::printf("dictionary %s: %zu words, loaded in %.1f ms; solver index built in %.1f ms\n",
              dict->name().c_str(), dict->words().size(), load_ms, index_ms);
  std::printf("max_nodes %ld, seed %llu\n\n", limits.max_nodes,
              static_cast<unsigned long long>(seed));
  std::printf("%-26s %6s  %15s  %9s  %9s  %9s  %9s  %9s  %s\n", "", "calls", "solved", "median ms",
              "p99 ms", "mean ms", "max ms", "nodes", "invalid");

  Solver solver(index);
  for (int k : {15, 21}) {
    Summary s;
    for (long i = 0; i < hands; ++i) {
      const Tiles tiles = hand(seed, static_cast<std::uint64_t>(i), k);
      const auto t0 = Steady::now();
      const auto board = solver.solve(tiles, limits);
      s.ms.push_back(ms_since(t0));
      s.nodes += solver.last_stats().nodes;
      if (board) {
        ++s.solved;
        if (!board_problem(*board, tiles, *dict).empty()) ++s.invalid;
      }
    }
    const std::string label = "solve(), " + std::to_string(k) + " tiles";
    s.print(label.c_str());
  }

  // extend(): the first 7 tiles solved, then one tile at a time up to 21, as a racer does (a
  // failed call keeps the last board for the next tile).
  Summary ext;
  int grown = 0, ripped = 0, full = 0;
  for (long i = 0; i < extend_hands; ++i) {
    const Tiles all = hand(seed + 1, static_cast<std::uint64_t>(i), 21);
    std::optional<Board> board = solver.solve(all.substr(0, 7), limits);
    for (int k = 8; k <= 21; ++k) {
      const Tiles tiles = all.substr(0, static_cast<std::size_t>(k));
      const auto t0 = Steady::now();
      auto next = board ? solver.extend(*board, tiles, limits) : solver.solve(tiles, limits);
      ext.ms.push_back(ms_since(t0));
      ext.nodes += solver.last_stats().nodes;
      if (!next) continue;
      ++ext.solved;
      if (!board_problem(*next, tiles, *dict).empty()) ++ext.invalid;
      if (solver.last_stats().extended) ++(solver.last_stats().ripped ? ripped : grown);
      if (k == 21) ++full;
      board = std::move(next);
    }
  }
  ext.print("extend(), per tile 8..21");
  if (extend_hands > 0)
    std::printf(
        "\nextend(): of %d boards, %d grew the previous board as it stood, %d after taking "
        "words off it, %d were rebuilt; %d of %ld hands reached 21 tiles\n",
        ext.solved, grown, ripped, ext.solved - grown - ripped, full, extend_hands);
  return 0;
}
