// abalone_duel: plays seeded Concurrent Abalone matches between two Lua teams read from files and
// prints how each team fared. A plain program (not Google Benchmark): what matters is the win
// rate, the game length and the wall time of a batch.
//
//   abalone_duel BLACK.lua WHITE.lua [--games N] [--first-seed S] [--threads T] [--swap]
//                [--watchdog-ms MS]
//
// Plays seeds S .. S+N-1 (default 100 games from seed 1) with the default Config and Runtime,
// BLACK.lua as black and WHITE.lua as white; with --swap every seed is also played with the
// colours swapped. --watchdog-ms replaces the Runtime's wall-clock step watchdog (50 ms), which a
// loaded machine can trip for a descheduled thread; a team that forfeits is reported on stderr. Matches are independent and single-threaded; T worker threads (default 1)
// each play one match at a time. Prints, per colour order, each team's wins, losses and draws,
// the mean cycles and mean scores, the seeds the first file did not win, and the wall time.
#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "games/abalone/game.h"

namespace {

using namespace arbiter::abalone;

void usage(const char* why) {
  std::fprintf(stderr,
               "abalone_duel: %s\n"
               "usage: abalone_duel BLACK.lua WHITE.lua [--games N] [--first-seed S] "
               "[--threads T] [--swap] [--watchdog-ms MS]\n"
               "  --games N        matches per colour order (default 100, at least 1)\n"
               "  --first-seed S   seeds S .. S+N-1 (default 1)\n"
               "  --threads T      worker threads, one match each at a time (default 1)\n"
               "  --swap           also play every seed with the colours swapped\n"
               "  --watchdog-ms MS the wall-clock limit of one bot step (default 50)\n",
               why);
}

bool parse_int(std::string_view text, long long& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

bool read_text_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream text;
  text << in.rdbuf();
  out = text.str();
  return true;
}

struct Game {
  std::uint64_t seed = 0;
  bool swapped = false;  // the second file plays black
  MatchSummary summary;
};

// One colour order's tally, from the point of view of the file playing black.
struct Tally {
  int black_wins = 0, white_wins = 0, draws = 0;
  double cycles = 0, black_score = 0, white_score = 0;
  std::vector<std::uint64_t> not_won_by_first;  // seeds the first file lost or drew
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  long long games = 100, first_seed = 1, threads = 1, watchdog_ms = 0;
  bool swap = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](long long& out, long long min) {
      if (i + 1 >= argc || !parse_int(argv[i + 1], out) || out < min) return false;
      ++i;
      return true;
    };
    if (arg == "--games") {
      if (!value(games, 1)) return usage("--games takes an integer >= 1"), 2;
    } else if (arg == "--first-seed") {
      if (!value(first_seed, 0)) return usage("--first-seed takes an integer >= 0"), 2;
    } else if (arg == "--threads") {
      if (!value(threads, 1) || threads > 256) {
        return usage("--threads takes an integer 1..256"), 2;
      }
    } else if (arg == "--watchdog-ms") {
      if (!value(watchdog_ms, 1)) return usage("--watchdog-ms takes an integer >= 1"), 2;
    } else if (arg == "--swap") {
      swap = true;
    } else if (arg == "-h" || arg == "--help") {
      return usage("plays seeded matches between two Lua teams"), 0;
    } else if (arg.starts_with("--")) {
      return usage(("unknown option " + std::string(arg)).c_str()), 2;
    } else {
      files.emplace_back(arg);
    }
  }
  if (files.size() != 2) return usage("expected exactly two team files"), 2;
  std::array<TeamProgram, 2> teams;
  for (int t = 0; t < 2; ++t) {
    teams[t].name = files[t];
    if (!read_text_file(files[t], teams[t].source)) {
      std::fprintf(stderr, "abalone_duel: cannot read %s\n", files[t].c_str());
      return 2;
    }
  }

  Runtime runtime;
  if (watchdog_ms > 0) runtime.watchdog = std::chrono::milliseconds(watchdog_ms);
  std::vector<Game> plan;
  for (int order = 0; order < (swap ? 2 : 1); ++order) {
    for (long long g = 0; g < games; ++g) {
      plan.push_back({static_cast<std::uint64_t>(first_seed + g), order == 1, {}});
    }
  }
  const auto started = std::chrono::steady_clock::now();
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < plan.size(); i = next++) {
      Game& g = plan[i];
      const TeamProgram& black = g.swapped ? teams[1] : teams[0];
      const TeamProgram& white = g.swapped ? teams[0] : teams[1];
      g.summary = play_match(Config{}, runtime, g.seed, black, white);
    }
  };
  std::vector<std::thread> pool;
  const auto n_threads = static_cast<std::size_t>(std::min<long long>(threads, games * 2));
  for (std::size_t t = 0; t < n_threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  std::array<Tally, 2> tallies;
  for (const Game& g : plan) {
    Tally& t = tallies[g.swapped ? 1 : 0];
    const auto& s = g.summary;
    if (!s.result.winner) {
      ++t.draws;
    } else if (*s.result.winner == Team::black) {
      ++t.black_wins;
    } else {
      ++t.white_wins;
    }
    t.cycles += static_cast<double>(s.cycles);
    t.black_score += s.scores[0];
    t.white_score += s.scores[1];
    const Team first_plays = g.swapped ? Team::white : Team::black;
    if (s.result.winner != first_plays) t.not_won_by_first.push_back(g.seed);
    for (int side = 0; side < 2; ++side) {
      if (!s.failure[side].empty()) {
        std::fprintf(stderr, "seed %llu%s: %s failed: %s\n",
                     static_cast<unsigned long long>(g.seed), g.swapped ? " (swapped)" : "",
                     side == 0 ? "black" : "white", s.failure[side].c_str());
      }
    }
  }
  for (int order = 0; order < (swap ? 2 : 1); ++order) {
    const Tally& t = tallies[order];
    const std::string& black = teams[order].name;
    const std::string& white = teams[1 - order].name;
    const double n = static_cast<double>(games);
    std::printf("%s (black) vs %s (white), seeds %lld..%lld\n", black.c_str(), white.c_str(),
                first_seed, first_seed + games - 1);
    std::printf("  %-40s wins %d  losses %d  draws %d  mean score %.2f\n", black.c_str(),
                t.black_wins, t.white_wins, t.draws, t.black_score / n);
    std::printf("  %-40s wins %d  losses %d  draws %d  mean score %.2f\n", white.c_str(),
                t.white_wins, t.black_wins, t.draws, t.white_score / n);
    std::printf("  mean cycles %.1f\n", t.cycles / n);
    std::printf("  seeds %s did not win:", teams[0].name.c_str());
    if (t.not_won_by_first.empty()) std::printf(" none");
    for (auto seed : t.not_won_by_first) std::printf(" %llu", static_cast<unsigned long long>(seed));
    std::printf("\n");
  }
  std::printf("%zu matches on %zu threads in %.2f s wall\n", plan.size(), n_threads, wall);
  return 0;
}
