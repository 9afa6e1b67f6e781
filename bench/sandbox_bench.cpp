// What the walls cost, side by side in one run: starting a program player and its first
// exchange, and one call once it runs, without the sandbox, with it, and with the default terms
// of `arbiter play` (walls, cgroup caps, an idmapped file of its own) (remote/sandbox.h). The peer
// is /bin/cat (it echoes the call), so the figures are the referee's and the kernel's alone.
// A plain program rather than Google Benchmark: single starts and round trips are the quantity,
// reported as median and 90th percentile. A call's cost depends mostly on whether the peer runs
// on the referee's CPU or another one, so the calls are timed pinned to one CPU, to two, and
// unpinned (cpu_placement.h). Results: docs/benchmarks.md, "The sandbox".
//
//   sandbox_bench [--starts N] [--calls N]
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/file.h"
#include "remote/child_process.h"
#include "remote/program_terms.h"

#include "cpu_placement.h"

namespace {

using namespace arbiter;
using Steady = std::chrono::steady_clock;

double in_micros(Steady::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

struct Stats {
  double median = 0;
  double p90 = 0;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[v.size() * 9 / 10]};
}

// plain: no walls, no caps; walled: the walls only (the program is the system's, nothing of its
// own to show); terms: what `arbiter play` gives a program by default (the walls, the caps in
// cgroups of its own) with a file of its own in a private directory (an idmapped bind).
enum class Mode { plain, walled, terms };

std::string g_own_file;  // a file in a 0700 directory, named as an argument in Mode::terms

ChildSpec spec(Mode mode) {
  ChildSpec s;
  s.argv = {"/bin/cat"};
  if (mode != Mode::plain) s.sandbox = SandboxSpec{};
  if (mode == Mode::terms) {
    const ProgramTerms terms;
    s.limits = terms.limits;
    s.argv = {"/bin/cat", "-", g_own_file};  // cat reads stdin ("-") to its end first
  }
  return s;
}

const Json kCall = Json::array({"win", Json::array({true})});

// Spawn + the first exchange, then kill: what a match pays per program before its first move.
std::vector<double> starts(Mode walled, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    const auto t0 = Steady::now();
    auto child = ChildProcess::spawn(spec(walled));
    if (!child) {
      fmt::print(stderr, "sandbox_bench: {}\n", child.error().message);
      std::exit(1);
    }
    auto channel = (*child)->take_channel();
    auto reply =
        channel->exchange(kCall, Deadline::after(SteadyClock::instance(), std::chrono::seconds(5)));
    const auto t1 = Steady::now();
    if (!reply) {
      fmt::print(stderr, "sandbox_bench: the first exchange failed: {}\n", reply.error().detail);
      std::exit(1);
    }
    out.push_back(in_micros(t1 - t0));
    (*child)->kill();
  }
  return out;
}

// One exchange with a running program placed where `where` says.
std::vector<double> calls(Mode walled, int n, const bench::Placement& where) {
  bench::set_affinity(0, where.self_cpu);
  auto child = ChildProcess::spawn(spec(walled));
  if (!child) std::exit(1);
  auto channel = (*child)->take_channel();
  if (!channel->exchange(kCall, Deadline::after(SteadyClock::instance(), std::chrono::seconds(5))))
    std::exit(1);
  bench::place_peer((*child)->pid(), where);
  std::vector<double> out;
  for (int i = 0; i < n + 100; ++i) {
    const auto t0 = Steady::now();
    auto reply =
        channel->exchange(kCall, Deadline::after(SteadyClock::instance(), std::chrono::seconds(5)));
    const auto t1 = Steady::now();
    if (!reply) std::exit(1);
    if (i >= 100) out.push_back(in_micros(t1 - t0));  // the first 100 warm up
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int n_starts = 200, n_calls = 5000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--starts") n_starts = std::max(10, std::atoi(argv[i + 1]));
    if (flag == "--calls") n_calls = std::max(100, std::atoi(argv[i + 1]));
  }
  ChildProcess::ignore_sigpipe();
  char dir[] = "/tmp/sandbox-bench-XXXXXX";  // mkdtemp: mode 0700
  if (::mkdtemp(dir) == nullptr) return 1;
  g_own_file = std::string(dir) + "/own.txt";
  if (!write_file(g_own_file, "its own file\n")) return 1;
  fmt::print("sandbox_bench: /bin/cat as the peer; {} starts and {} calls per row\n\n", n_starts,
             n_calls);
  fmt::print("{:<44} {:>12} {:>12}\n", "", "median (us)", "p90 (us)");
  // Interleaved in rounds, so that a busy spell of the machine hits every side alike.
  const std::vector<bench::Placement> where = bench::placements();
  std::vector<double> plain_start, walled_start, terms_start;
  std::vector<std::vector<double>> plain_call(where.size()), walled_call(where.size()),
      terms_call(where.size());
  for (int round = 0; round < 5; ++round) {
    bench::set_affinity(0, std::nullopt);
    for (double v : starts(Mode::plain, n_starts / 5)) plain_start.push_back(v);
    for (double v : starts(Mode::walled, n_starts / 5)) walled_start.push_back(v);
    for (double v : starts(Mode::terms, n_starts / 5)) terms_start.push_back(v);
    for (std::size_t w = 0; w < where.size(); ++w) {
      for (double v : calls(Mode::plain, n_calls / 5, where[w])) plain_call[w].push_back(v);
      for (double v : calls(Mode::walled, n_calls / 5, where[w])) walled_call[w].push_back(v);
      for (double v : calls(Mode::terms, n_calls / 5, where[w])) terms_call[w].push_back(v);
    }
  }
  bench::set_affinity(0, std::nullopt);
  const auto row = [](std::string_view name, const Stats& s, const Stats* base) {
    fmt::print("{:<44} {:>12.1f} {:>12.1f}{}\n", name, s.median, s.p90,
               base ? fmt::format("   {:.2f}x", s.median / base->median) : "");
  };
  const Stats ps = stats(plain_start), ws = stats(walled_start), ts = stats(terms_start);
  row("start + first exchange, no sandbox", ps, nullptr);
  row("start + first exchange, sandbox", ws, &ps);
  row("start + first exchange, default terms", ts, &ps);
  for (std::size_t w = 0; w < where.size(); ++w) {
    fmt::print("\none exchange, {}\n", where[w].name);
    const Stats pc = stats(plain_call[w]), wc = stats(walled_call[w]), tc = stats(terms_call[w]);
    row("  no sandbox", pc, nullptr);
    row("  sandbox", wc, &pc);
    row("  default terms", tc, &pc);
  }
  std::filesystem::remove_all(dir);
  return 0;
}
