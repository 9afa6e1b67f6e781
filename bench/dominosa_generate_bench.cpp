// The Dominosa generator over seeds: for every level and size, how long generate() takes to a
// unique puzzle of that level (median, min, max over seeds, single thread), and how many attempts
// it needed; then the speedup of the threaded driver at 1 and 2 threads. A plain program (not
// Google Benchmark): what matters is the distribution of single runs, and some cells take seconds.
//
//   dominosa_generate_bench [--seeds K] [--cap S] [--ns 6,10,...] [--levels trivial,basic,...]
//                           [--speedup-seeds K] [--no-table] [--no-speedup]
//
// Every run is capped: a table cell (one level, one n, K seeds) stops when its cap of S seconds
// is spent, counting the unfinished seeds as timeouts, and a level whose cell found nothing is not
// tried at larger n. Every puzzle is checked (unique, graded at its level, the reported solution
// valid); a failed check is counted as "bad" (it would be a bug).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apps/dominosa_generate.h"
#include "games/dominosa/generator.h"
#include "games/dominosa/solver.h"

namespace {

using namespace arbiter::dominosa;
using Steady = std::chrono::steady_clock;

double seconds_since(Steady::time_point start) {
  return std::chrono::duration<double>(Steady::now() - start).count();
}

const char* flag_text(int argc, char** argv, const char* name) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return nullptr;
}

bool flag(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return true;
  return false;
}

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    out.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

bool good(const Generated& g, Level level) {
  if (!solution_problem(g.puzzle, g.solution).empty()) return false;
  if (level == Level::ambiguous) return true;
  const auto r = solve(g.puzzle, 2);
  return r.count == 1 && grade(g.puzzle) == level;
}

struct Cell {
  std::vector<double> seconds;  // successful runs
  int failed = 0, timeouts = 0, bad = 0;
  double attempts = 0;  // summed over successes
  double grades = 0;
};

void print_cell(Level level, int n, int seeds, Cell& cell) {
  std::printf("%-9s %4d  %2zu/%-2d", std::string(to_string(level)).c_str(), n, cell.seconds.size(),
              seeds);
  if (cell.seconds.empty()) {
    std::printf("  %9s %9s %9s  %7s %7s", "-", "-", "-", "-", "-");
  } else {
    auto& s = cell.seconds;
    std::sort(s.begin(), s.end());
    const double median =
        s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
    const auto k = static_cast<double>(s.size());
    std::printf("  %9.4f %9.4f %9.4f  %7.1f %7.1f", median, s.front(), s.back(),
                cell.attempts / k + 1, cell.grades / k);
  }
  std::printf("  %6d %8d %3d\n", cell.failed, cell.timeouts, cell.bad);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const int seeds = flag_text(argc, argv, "--seeds") ? std::atoi(flag_text(argc, argv, "--seeds")) : 5;
  const double cap = flag_text(argc, argv, "--cap") ? std::atof(flag_text(argc, argv, "--cap")) : 12.0;
  const int speedup_seeds =
      flag_text(argc, argv, "--speedup-seeds") ? std::atoi(flag_text(argc, argv, "--speedup-seeds")) : 6;
  std::vector<int> ns = {6, 10, 15, 20, 30, 40, 60, 100};
  if (const char* text = flag_text(argc, argv, "--ns")) {
    ns.clear();
    for (const auto& s : split(text)) ns.push_back(std::atoi(s.c_str()));
  }
  std::vector<Level> levels = {Level::trivial, Level::basic, Level::hard, Level::extreme,
                               Level::ambiguous};
  if (const char* text = flag_text(argc, argv, "--levels")) {
    levels.clear();
    for (const auto& s : split(text))
      if (auto l = level_from_string(s)) levels.push_back(*l);
  }

  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {  // other work skews the thread figures
    char line[128] = {};
    if (std::fgets(line, sizeof line, f)) std::printf("load average at start: %s", line);
    std::fclose(f);
  }
  if (!flag(argc, argv, "--no-table")) {
    std::printf("generate(), 1 thread, seeds 1..%d, cap %.0f s per row; seconds per puzzle\n",
                seeds, cap);
    std::printf("%-9s %4s  %5s  %9s %9s %9s  %7s %7s  %6s %8s %3s\n", "level", "n", "ok", "median",
                "min", "max", "attempt", "grades", "failed", "timeouts", "bad");
    for (Level level : levels) {
      for (int n : ns) {
        Cell cell;
        const auto cell_start = Steady::now();
        const StopFn stop = [&] { return seconds_since(cell_start) > cap; };
        for (int seed = 1; seed <= seeds; ++seed) {
          if (seconds_since(cell_start) > cap) {
            ++cell.timeouts;
            continue;
          }
          GenerateOptions o;
          o.n = n;
          o.level = level;
          o.seed = static_cast<std::uint64_t>(seed);
          const auto start = Steady::now();
          auto g = generate(o, stop);
          const double s = seconds_since(start);
          if (!g) {
            if (seconds_since(cell_start) > cap) {
              ++cell.timeouts;
            } else {
              ++cell.failed;
            }
            continue;
          }
          if (!good(*g, level)) ++cell.bad;
          cell.seconds.push_back(s);
          cell.attempts += static_cast<double>(g->attempt);
          cell.grades += static_cast<double>(g->stats.grades);
        }
        print_cell(level, n, seeds, cell);
        if (cell.seconds.empty()) break;  // larger n will not do better
      }
    }
  }

  if (!flag(argc, argv, "--no-speedup")) {
    // Attempts in parallel pay where attempts often fail (small n, rare levels); candidates in
    // parallel where single attempts are long (large n). `auto` is what the CLI uses.
    struct Config {
      Level level;
      int n;
      ParallelMode mode;
    };
    const Config configs[] = {
        {Level::hard, 3, ParallelMode::attempts},
        {Level::extreme, 8, ParallelMode::attempts},
        {Level::extreme, 8, ParallelMode::candidates},
        {Level::extreme, 30, ParallelMode::candidates},
        {Level::hard, 60, ParallelMode::candidates},
        {Level::extreme, 60, ParallelMode::candidates},
        {Level::extreme, 60, ParallelMode::attempts},
        {Level::hard, 100, ParallelMode::candidates},
        {Level::extreme, 100, ParallelMode::candidates},
        {Level::trivial, 100, ParallelMode::automatic},
    };
    const char* mode_names[] = {"auto", "attempts", "candidates"};
    std::printf(
        "\ngenerate_parallel at 1 and 2 threads, seeds 1..%d, total seconds (same puzzle "
        "checked)\n",
        speedup_seeds);
    std::printf("%-9s %4s %-10s  %9s %9s %8s  %8s %5s\n", "level", "n", "mode", "1 thread",
                "2 threads", "speedup", "attempts", "same");
    for (const auto& config : configs) {
      double t1 = 0, t2 = 0, attempts = 0;
      int same = 0, done = 0;
      for (int seed = 1; seed <= speedup_seeds; ++seed) {
        GenerateOptions o;
        o.n = config.n;
        o.level = config.level;
        o.seed = static_cast<std::uint64_t>(seed);
        auto start = Steady::now();
        auto one = generate_parallel(o, 1, {}, config.mode);
        const double s1 = seconds_since(start);
        start = Steady::now();
        auto two = generate_parallel(o, 2, {}, config.mode);
        const double s2 = seconds_since(start);
        t1 += s1;
        t2 += s2;
        ++done;
        if (one && two && one->puzzle == two->puzzle) ++same;
        if (!one && !two) ++same;
        if (one) attempts += static_cast<double>(one->attempt) + 1;
        if (t1 + t2 > 4 * cap) break;
      }
      std::printf("%-9s %4d %-10s  %9.3f %9.3f %7.2fx  %8.1f %2d/%-2d\n",
                  std::string(to_string(config.level)).c_str(), config.n,
                  mode_names[static_cast<int>(config.mode)], t1, t2, t2 > 0 ? t1 / t2 : 0.0,
                  attempts / std::max(1, done), same, done);
      std::fflush(stdout);
    }
  }
  return 0;
}
