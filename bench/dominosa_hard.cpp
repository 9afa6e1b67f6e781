// dominosa_hard: the solver on the instances that are hard for a solver rather than for the
// generator: random layouts (`dominosa generate --level ambiguous`: a random tiling with a random
// numbering, no uniqueness filter), counted to 2, side by side with CaDiCaL on the same puzzle.
// A plain program (not Google Benchmark): single runs of seconds, each under a time cap.
//
//   dominosa_hard [--ns 30,40,60,80,100] [--seeds K] [--timeout S] [--no-cadical]
//                 [--searches N]   (CountOptions::searches, default 2)
//
// For every n and seeds 1..K: what `arbiter dominosa solve --count` does (count_solutions with
// --searches searches), on 1 thread and on 2, each in a child process (killed at the cap,
// reported as a timeout); the two must give the same answer, found by the same search after the
// same number of its conflicts. The conflicts column counts all searches (1 thread).
// Then, when the `cadical` binary is on PATH (Debian package cadical), the puzzle as
// CNF (one variable per placement of a domino on two adjacent cells; exactly one placement per
// cell and per domino, pairwise at-most-one), solved, and when satisfiable solved again with the
// first model blocked, so that it too answers 0, 1 or 2+. The two answers must agree. One table,
// then the median per n (a timeout counts as the cap).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "games/dominosa/generator.h"
#include "apps/dominosa_count.h"

extern char** environ;

namespace {

using namespace arbiter::dominosa;
using Steady = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "dominosa_hard: %s\n", why.c_str());
  std::exit(2);
}

Steady::time_point after(Steady::time_point start, double seconds) {
  return start +
         std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(seconds));
}

double elapsed_seconds(Steady::time_point start) {
  return std::chrono::duration<double>(Steady::now() - start).count();
}

// What one solver said: 0, 1 or 2 (two or more) solutions, or nothing within the cap.
struct Answer {
  std::optional<int> count;
  double seconds = 0;
  std::int64_t nodes = -1;  // ours only: conflicts over all searches
  std::int64_t answer_work = -1;  // ours only: the answering search's conflicts and number
};

std::string answer_text(const Answer& a) {
  if (!a.count) return "timeout";
  return *a.count >= 2 ? "2+" : std::to_string(*a.count);
}

// Waits for `pid` until `deadline`; kills and reaps it after. Its exit status, or nothing when
// it was killed at the deadline.
std::optional<int> wait_until(pid_t pid, Steady::time_point deadline) {
  for (;;) {
    int status = 0;
    const pid_t got = ::waitpid(pid, &status, WNOHANG);
    if (got == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (got < 0 && errno != EINTR) die(std::string("waitpid: ") + std::strerror(errno));
    if (Steady::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return std::nullopt;
    }
    ::usleep(2000);
  }
}

// Our count to 2 (count_solutions, as `dominosa solve --count` runs it), in a child so that a
// run past the cap can be stopped.
Answer ours(const Puzzle& p, double cap, int searches, int threads) {
  int fds[2];
  if (::pipe(fds) != 0) die("pipe failed");
  const auto start = Steady::now();
  const pid_t pid = ::fork();
  if (pid < 0) die("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    const CountOutcome r =
        count_solutions(p, {.limit = 2, .searches = searches, .threads = threads});
    const std::string line = std::to_string(r.result.count) + " " +
                             std::to_string(r.effort.conflicts) + " " +
                             std::to_string(r.result.conflicts) + " " +
                             std::to_string(r.answered_by) + "\n";
    const bool written =
        ::write(fds[1], line.data(), line.size()) == static_cast<ssize_t>(line.size());
    ::_exit(written ? 0 : 1);
  }
  ::close(fds[1]);
  const auto status = wait_until(pid, after(start, cap));
  Answer a;
  a.seconds = elapsed_seconds(start);
  if (status && *status == 0) {
    char buf[64] = {};
    const ssize_t n = ::read(fds[0], buf, sizeof buf - 1);
    long long count = -1, conflicts = -1, answering = -1, by = -1;
    if (n > 0 && std::sscanf(buf, "%lld %lld %lld %lld", &count, &conflicts, &answering, &by) == 4) {
      a.count = static_cast<int>(std::min(count, 2LL));
      a.nodes = conflicts;
      a.answer_work = answering * 100 + by;
    }
  }
  ::close(fds[0]);
  if (!a.count) a.seconds = cap;
  return a;
}

// The puzzle as CNF: variable k+1 is placement k.
struct Cnf {
  std::vector<std::pair<int, int>> placements;  // (cell, the neighbour right of or below it)
  std::vector<std::vector<int>> clauses;
};

Cnf encode(const Puzzle& p) {
  Cnf cnf;
  const int w = p.cols(), cells = p.cells();
  std::vector<std::vector<int>> of_cell(cells), of_domino(domino_count(p.n));
  auto add = [&](int a, int b) {
    const int var = static_cast<int>(cnf.placements.size()) + 1;
    cnf.placements.emplace_back(a, b);
    of_cell[a].push_back(var);
    of_cell[b].push_back(var);
    of_domino[domino_index(p.grid[a], p.grid[b], p.n)].push_back(var);
  };
  for (int i = 0; i < cells; ++i) {
    if ((i % w) + 1 < w) add(i, i + 1);
    if (i + w < cells) add(i, i + w);
  }
  auto exactly_one = [&](const std::vector<int>& vars) {
    cnf.clauses.push_back(vars);  // empty: no placement at all, unsatisfiable
    for (std::size_t i = 0; i < vars.size(); ++i)
      for (std::size_t j = i + 1; j < vars.size(); ++j) cnf.clauses.push_back({-vars[i], -vars[j]});
  };
  for (const auto& vars : of_cell) exactly_one(vars);
  for (const auto& vars : of_domino) exactly_one(vars);
  return cnf;
}

void write_cnf(const Cnf& cnf, const std::filesystem::path& path) {
  std::ofstream out(path);
  out << "p cnf " << cnf.placements.size() << ' ' << cnf.clauses.size() << '\n';
  for (const auto& clause : cnf.clauses) {
    for (int lit : clause) out << lit << ' ';
    out << "0\n";
  }
  if (!out.flush()) die("cannot write " + path.string());
}

// One CaDiCaL run: SAT with its model (the true variables), UNSAT, or nothing at the deadline.
struct SatRun {
  std::optional<bool> sat;
  std::vector<int> true_vars;
};

SatRun run_cadical(const std::filesystem::path& cnf, const std::filesystem::path& out,
                   Steady::time_point deadline) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::string prog = "cadical", quiet = "-q", file = cnf.string();
  char* argv[] = {prog.data(), quiet.data(), file.data(), nullptr};
  pid_t pid = -1;
  if (::posix_spawnp(&pid, "cadical", &fa, nullptr, argv, environ) != 0) die("cannot run cadical");
  posix_spawn_file_actions_destroy(&fa);
  SatRun run;
  const auto status = wait_until(pid, deadline);
  if (!status) return run;
  if (*status != 10 && *status != 20) die("cadical exited with " + std::to_string(*status));
  run.sat = *status == 10;
  if (*run.sat) {
    std::ifstream in(out);
    for (std::string line; std::getline(in, line);) {
      if (!line.starts_with("v ")) continue;
      std::istringstream vs(line.substr(2));
      for (int lit; vs >> lit;)
        if (lit > 0) run.true_vars.push_back(lit);
    }
  }
  return run;
}

Answer cadical(const Puzzle& p, double cap, const std::filesystem::path& dir) {
  const auto start = Steady::now();
  const auto deadline = after(start, cap);
  Cnf cnf = encode(p);
  const auto path = dir / "puzzle.cnf";
  write_cnf(cnf, path);
  Answer a;
  const SatRun first = run_cadical(path, dir / "model.txt", deadline);
  if (first.sat && !*first.sat) a.count = 0;
  if (first.sat && *first.sat) {
    std::vector<int> block;
    for (int v : first.true_vars) block.push_back(-v);
    cnf.clauses.push_back(block);
    write_cnf(cnf, path);
    const SatRun second = run_cadical(path, dir / "model.txt", deadline);
    if (second.sat) a.count = *second.sat ? 2 : 1;
  }
  a.seconds = a.count ? elapsed_seconds(start) : cap;
  return a;
}

bool on_path(const char* program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string_view rest = path;
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::filesystem::path candidate = std::filesystem::path(rest.substr(0, colon)) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return false;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty()      ? 0
         : v.size() % 2 ? v[v.size() / 2]
                        : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

const char* option_value(int argc, char** argv, const char* name) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return nullptr;
}

int positive(const char* text, const char* flag) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > 100'000)
    die(std::string(flag) + " wants a positive integer, got \"" + text + "\"");
  return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf(
          "dominosa_hard [--ns 30,40,60,80,100] [--seeds K] [--timeout S] [--no-cadical]\n"
          "              [--searches N]\n");
      return 0;
    }
    const bool known_value =
        a == "--ns" || a == "--seeds" || a == "--timeout" || a == "--searches";
    if (known_value) {
      if (i + 1 >= argc) die(std::string(a) + " needs a value");
      ++i;
    } else if (a != "--no-cadical") {
      die("unknown argument \"" + std::string(a) + "\" (see --help)");
    }
  }
  std::vector<int> ns = {30, 40, 60, 80, 100};
  if (const char* t = option_value(argc, argv, "--ns")) {
    ns.clear();
    std::string_view rest = t;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const std::string item(rest.substr(0, comma));
      const int n = positive(item.c_str(), "--ns");
      if (n > kMaxN) die("--ns: " + item + " is larger than " + std::to_string(kMaxN));
      ns.push_back(n);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  const int seeds = option_value(argc, argv, "--seeds")
                        ? positive(option_value(argc, argv, "--seeds"), "--seeds")
                        : 5;
  const double cap = option_value(argc, argv, "--timeout")
                         ? positive(option_value(argc, argv, "--timeout"), "--timeout")
                         : 30;
  const int searches = option_value(argc, argv, "--searches")
                           ? positive(option_value(argc, argv, "--searches"), "--searches")
                           : 2;
  bool with_cadical = on_path("cadical");
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--no-cadical") == 0) with_cadical = false;

  char dir_template[] = "/tmp/dominosa_hard.XXXXXX";
  if (::mkdtemp(dir_template) == nullptr) die("cannot make a scratch directory");
  const std::filesystem::path dir = dir_template;

  std::printf(
      "random layouts counted to 2, cap %.0f s a run; ours: %d search(es) on 1 and on 2 threads%s\n",
      cap, searches,
      with_cadical ? "; CaDiCaL (one thread) with the first model blocked" : "; CaDiCaL not run");
  std::printf("%5s %5s %9s %9s %8s %10s %7s %10s %7s %9s %6s\n", "n", "seed", "1 thr s", "2 thr s",
              "speedup", "conflicts", "answer", "cadical s", "answer", "cad/1thr", "agree");
  int disagreements = 0;
  for (int n : ns) {
    std::vector<double> one_times, two_times, cad_times, speedups;
    for (int seed = 1; seed <= seeds; ++seed) {
      auto g =
          generate({.n = n, .level = Level::ambiguous, .seed = static_cast<std::uint64_t>(seed)});
      if (!g) die("no layout for n = " + std::to_string(n));
      const Answer one = ours(g->puzzle, cap, searches, 1);
      const Answer two = ours(g->puzzle, cap, searches, 2);
      one_times.push_back(one.seconds);
      two_times.push_back(two.seconds);
      if (one.count && two.count) speedups.push_back(one.seconds / std::max(two.seconds, 1e-6));
      if (one.count && two.count &&
          (*one.count != *two.count || one.answer_work != two.answer_work)) {
        ++disagreements;
        std::printf("threads changed the answer or who found it: %s/%lld vs %s/%lld\n",
                    answer_text(one).c_str(), static_cast<long long>(one.answer_work),
                    answer_text(two).c_str(), static_cast<long long>(two.answer_work));
      }
      const Answer& a = one.count ? one : two;
      char speedup[16] = "-";
      if (one.count && two.count)
        std::snprintf(speedup, sizeof speedup, "%.2fx", one.seconds / std::max(two.seconds, 1e-6));
      std::printf("%5d %5d %9.3f %9.3f %8s %10lld %7s", n, seed, one.seconds, two.seconds, speedup,
                  static_cast<long long>(a.nodes), answer_text(a).c_str());
      if (with_cadical) {
        const Answer c = cadical(g->puzzle, cap, dir);
        cad_times.push_back(c.seconds);
        const bool both = a.count && c.count;
        const bool agree = !both || *a.count == *c.count;
        if (!agree) ++disagreements;
        std::printf(" %10.3f %7s %9.2f %6s", c.seconds, answer_text(c).c_str(),
                    c.seconds / std::max(one.seconds, 1e-6), both ? (agree ? "yes" : "NO") : "-");
      }
      std::printf("\n");
      std::fflush(stdout);
    }
    char median_speedup[16] = "-";
    if (!speedups.empty())
      std::snprintf(median_speedup, sizeof median_speedup, "%.2fx", median(speedups));
    std::printf("%5d  median %9.3f %9.3f %8s %26s", n, median(one_times), median(two_times),
                median_speedup, "");
    if (with_cadical)
      std::printf(" %10.3f %7s %9.2f", median(cad_times), "",
                  median(cad_times) / std::max(median(one_times), 1e-6));
    std::printf("\n");
  }
  std::filesystem::remove_all(dir);
  if (disagreements > 0) {
    std::printf("%d disagreement(s) (between the solvers, or between thread counts)\n",
                disagreements);
    return 1;
  }
  return 0;
}
