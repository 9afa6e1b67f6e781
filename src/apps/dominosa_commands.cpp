// `arbiter dominosa generate | solve | grade` (docs/games/dominosa.md §5): puzzles on stdout, in
// the formats of puzzle.h; progress and figures on stderr so that the output pipes into `solve`.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <iterator>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "apps/commands.h"
#include "apps/dominosa_count.h"
#include "apps/dominosa_generate.h"
#include "core/file.h"
#include "games/dominosa/puzzle.h"
#include "games/dominosa/solver.h"

namespace arbiter::cli {
namespace {

using namespace dominosa;

// The puzzle in FILE, or on stdin when FILE is empty or "-".
Expected<Puzzle> read_puzzle(const std::string& file) {
  // Far more than any puzzle's text (n = 100 is about 40 KB), far less than memory.
  constexpr std::size_t kMaxPuzzleBytes = std::size_t{64} << 20;
  auto text = file.empty() || file == "-" ? read_fd(STDIN_FILENO, "standard input", kMaxPuzzleBytes)
                                          : read_file(file, kMaxPuzzleBytes);
  if (!text) return std::unexpected(text.error());
  auto puzzle = parse_puzzle(*text);
  if (!puzzle)
    return fail(fmt::format("{}: {}", file.empty() || file == "-" ? "standard input" : file,
                            puzzle.error().message));
  return puzzle;
}

std::string render(const Puzzle& p, const std::string& format) {
  if (format == "text") return to_text(p);
  if (format == "json") return dump(to_json(p)) + "\n";
  return game_id(p) + "\n";
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void add_dominosa_commands(CLI::App& app, int& exit_code) {
  auto* top = app.add_subcommand("dominosa", "Dominosa puzzles: generate, solve, grade");
  top->require_subcommand(1);

  struct GenerateArgs {
    int n = 10;
    std::string level = "basic";
    std::string seed = "1";
    int threads = 0;
    std::string format = "id";
    bool solution = false;
    double timeout = 120;
  };
  auto g = std::make_shared<GenerateArgs>();
  auto* generate = top->add_subcommand(
      "generate",
      "A puzzle with a unique solution at the requested level, reproducible from the seed (the "
      "thread count never changes the result)");
  generate->add_option("--n", g->n, "The size: values 0..n on an (n+1) x (n+2) grid (default 10)")
      ->check(CLI::Range(1, kMaxN));
  generate->add_option("--level", g->level,
                       "trivial | basic | hard | extreme | ambiguous (default basic)");
  generate->add_option("--seed", g->seed, "The seed (default 1)")->check(natural_validator());
  generate->add_option("--threads", g->threads, "Worker threads (default: one per core)")
      ->check(CLI::Range(0, 256));
  generate->add_option("--format", g->format, "id (Tatham game ID) | text | json (default id)")
      ->check(CLI::IsMember({"id", "text", "json"}));
  generate->add_flag("--solution", g->solution, "Also print the solution (L R T B per cell)");
  generate
      ->add_option("--timeout", g->timeout,
                   "Give up after this many seconds, exit 4 (default 120; 0: never). A run "
                   "longer than 2 s says every 5 s how long it has been going")
      ->check(CLI::Range(0.0, 1e7));
  generate->callback([&exit_code, g] {
    const auto level = level_from_string(g->level);
    if (!level) {
      report_error(
          fmt::format("--level \"{}\": trivial, basic, hard, extreme or ambiguous", g->level));
      exit_code = kBadInput;
      return;
    }
    GenerateOptions options;
    options.n = g->n;
    options.level = *level;
    options.seed = std::stoull(g->seed);
    const int threads =
        g->threads > 0 ? g->threads : std::max(1u, std::thread::hardware_concurrency());
    const auto start = std::chrono::steady_clock::now();
    // Polled by every attempt, from every thread: the limit, and a word now and then on a long
    // run (large n takes minutes: basic n = 400 about 30 s on two cores).
    std::mutex said_mu;
    double said = 0;
    bool gave_up = false;
    const StopFn stop = [&] {
      const double s = seconds_since(start);
      if (g->timeout > 0 && s >= g->timeout) return gave_up = true;
      if (s >= 2 && s - said >= 5) {
        std::lock_guard lock(said_mu);
        if (s - said >= 5) {
          said = s;
          std::cerr << fmt::format("dominosa: n = {}, level {}: still generating ({:.0f} s{})",
                                   g->n, g->level, s,
                                   g->timeout > 0 ? fmt::format(" of --timeout {:g}", g->timeout)
                                                  : std::string())
                    << std::endl;
        }
      }
      return false;
    };
    auto made = generate_parallel(options, threads, stop);
    if (!made && gave_up) {
      report_error(
          fmt::format("no {} puzzle of n = {} within --timeout {:g} s (give it more, or a "
                      "smaller --n)",
                      g->level, g->n, g->timeout));
      exit_code = kUnknown;
      return;
    }
    if (!made) {
      report_error(
          fmt::format("no {} puzzle of n = {} found within the attempt budget", g->level, g->n));
      exit_code = kFailed;
      return;
    }
    std::cout << render(made->puzzle, g->format);
    if (g->solution) std::cout << made->solution << "\n";
    std::cerr << fmt::format(
        "dominosa: n = {}, level {}, seed {}, attempt {}, {} thread(s), {:.3f} s\n", g->n,
        to_string(made->level), options.seed, made->attempt, threads, seconds_since(start));
  });

  struct SolveArgs {
    std::string file;
    bool count = false;
    std::int64_t limit = 2;
    std::int64_t max_nodes = 0;
    double timeout = 0;
    int threads = 0;
    int searches = 2;
    bool level = false;
  };
  auto s = std::make_shared<SolveArgs>();
  auto* solve_cmd = top->add_subcommand(
      "solve",
      "Solve a puzzle (game ID, text grid or JSON, from FILE or stdin): print its solution, or "
      "'no solution' (exit 1), or 'unknown' when a limit stopped the search first (exit 4)");
  solve_cmd->add_option("file", s->file, "The puzzle file (default: stdin)");
  solve_cmd->add_flag("--count", s->count, "Count the solutions (up to --limit)");
  solve_cmd->add_option("--limit", s->limit, "Stop counting at this many (default 2)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  solve_cmd->add_flag("--level", s->level, "Also grade the puzzle");
  solve_cmd
      ->add_option("--max-nodes", s->max_nodes,
                   "Give up after this many conflicts of the search, over all searches, with the "
                   "answer unknown (default 0: never)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 50));
  solve_cmd
      ->add_option("--timeout", s->timeout,
                   "Give up after this many seconds with the answer unknown (default 0: never)")
      ->check(CLI::Range(0.0, 1e9));
  solve_cmd
      ->add_option("--threads", s->threads,
                   "Threads running the searches (default: one per core); never changes the answer")
      ->check(CLI::Range(0, 1024));
  solve_cmd
      ->add_option("--searches", s->searches,
                   "Differently seeded searches run side by side, sharing short learned clauses "
                   "(default 2); the solution printed depends on it")
      ->check(CLI::Range(1, 64));
  solve_cmd->callback([&exit_code, s] {
    auto puzzle = read_puzzle(s->file);
    if (!puzzle) {
      report_error("puzzle: " + puzzle.error().message);
      exit_code = kBadInput;
      return;
    }
    const auto start = std::chrono::steady_clock::now();
    CountOptions options;
    options.limit = s->count ? s->limit : 1;
    options.searches = s->searches;
    options.threads = s->threads > 0 ? s->threads
                                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (s->max_nodes > 0) options.max_conflicts = s->max_nodes;
    if (s->timeout > 0)
      options.stop = [start, limit = s->timeout] { return seconds_since(start) >= limit; };
    double last_report = 0;
    options.progress = [&](const CountProgress& p) {
      const double now = seconds_since(start);
      if (now - last_report < 2.0) return;
      last_report = now;
      std::cerr << fmt::format("dominosa: searching: {} conflicts, {} solution(s) found, {:.1f} s\n",
                               p.conflicts, p.found, now);
    };
    const CountOutcome outcome = count_solutions(*puzzle, options);
    const LearningResult& r = outcome.result;
    const double seconds = seconds_since(start);
    const std::string why =
        r.complete ? ""
        : s->timeout > 0 && seconds >= s->timeout ? fmt::format("--timeout {}", s->timeout)
                                                  : fmt::format("--max-nodes {}", s->max_nodes);
    if (r.solutions.empty() && !r.complete) {
      std::cout << fmt::format("unknown: no solution found before {}\n", why);
      exit_code = kUnknown;
    } else if (r.solutions.empty()) {
      std::cout << "no solution\n";
      exit_code = kFailed;
    } else {
      std::cout << r.solutions.front() << "\n";
    }
    if (s->count && !r.solutions.empty()) {
      std::cout << fmt::format(
          "solutions: {}{}\n", r.count,
          r.count >= s->limit ? fmt::format(" (stopped at --limit {})", s->limit)
          : !r.complete       ? fmt::format(" at least; unknown beyond (stopped at {})", why)
                              : "");
      if (!r.complete) exit_code = kUnknown;
    }
    if (s->level) std::cout << "level: " << to_string(grade(*puzzle)) << "\n";
    std::cerr << fmt::format(
        "dominosa: n = {}, {} conflicts over {} search(es) in {} round(s) on {} thread(s), {:.3f} s\n",
        puzzle->n, outcome.effort.conflicts, s->searches, outcome.effort.rounds, options.threads,
        seconds);
  });

  auto gr = std::make_shared<std::string>();
  auto* grade_cmd = top->add_subcommand(
      "grade", "The level a puzzle needs (trivial, basic, hard, extreme; ambiguous if not unique)");
  grade_cmd->add_option("file", *gr, "The puzzle file (default: stdin)");
  grade_cmd->callback([&exit_code, gr] {
    auto puzzle = read_puzzle(*gr);
    if (!puzzle) {
      report_error("puzzle: " + puzzle.error().message);
      exit_code = kBadInput;
      return;
    }
    std::cout << to_string(grade(*puzzle)) << "\n";
  });
}

}  // namespace arbiter::cli
