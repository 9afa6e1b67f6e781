// What stored bots cost, side by side in one run (league/bots.h):
//   start   a program started from a worker's cache (StoreShelf::take, then the spawn and first
//           exchange) against the same program started from a plain path, interleaved;
//   add     `bot add` of a 10 MiB bot without a build (read, check, pack, hash, store), for
//           incompressible files and for text;
//   miss    a worker's cache miss of that bot: fetch from the store, check against the hash,
//           unpack.
// The program is a copy of /bin/cat under the default terms of `arbiter play` (walls, cgroup
// caps), so the figures are arbiter's and the kernel's alone. A plain program: single starts are
// the quantity, reported as median and 90th percentile. Results: docs/benchmarks.md, "Stored
// bots".
//
//   bot_bench [--starts N] [--runs N]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "league/bots.h"
#include "remote/child_process.h"
#include "tournament/store.h"

namespace {

using namespace arbiter;
namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;

double elapsed_ms(Steady::time_point t0) {
  return std::chrono::duration<double, std::milli>(Steady::now() - t0).count();
}

struct Stats {
  double median = 0;
  double p90 = 0;
};

Stats spread(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[v.size() * 9 / 10]};
}

[[noreturn]] void die(const std::string& why) {
  fmt::print(stderr, "bot_bench: {}\n", why);
  std::exit(1);
}

void write(const fs::path& p, const std::string& text, fs::perms mode = fs::perms(0644)) {
  std::ofstream(p, std::ios::binary) << text;
  fs::permissions(p, mode);
}

// Spawn + the first exchange + kill, the program as `argv` in `dir` under `terms`.
double start_once(const std::vector<std::string>& argv, const ProgramTerms& terms) {
  ChildSpec spec;
  spec.argv = argv;
  spec.cwd = terms.dir;
  spec.limits = terms.limits;
  spec.sandbox = terms.sandbox;
  const auto t0 = Steady::now();
  auto child = ChildProcess::spawn(spec);
  if (!child) die(child.error().message);
  auto channel = (*child)->take_channel();
  const SteadyClock clock;
  const Json call = Json::array({"win", Json::array({true})});
  if (!channel->send(call, Deadline::after(clock, std::chrono::seconds(5))) ||
      !channel->receive(Deadline::after(clock, std::chrono::seconds(5))))
    die("no echo from the program");
  const double ms = elapsed_ms(t0);
  (*child)->kill();
  return ms;
}

std::string random_bytes(std::size_t n, std::mt19937_64& rng) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; i += 8) {
    const std::uint64_t v = rng();
    for (std::size_t k = 0; k < 8 && i + k < n; ++k) s[i + k] = static_cast<char>(v >> (8 * k));
  }
  return s;
}

std::string text_bytes(std::size_t n, std::mt19937_64& rng) {
  static const char* words[] = {"int ",  "return ", "if (",           "x",    "y",
                                ") {\n", "}\n",     "for ",           "tile", "board",
                                " = ",   "; ",      "// a comment\n", "0",    "1"};
  std::string s;
  while (s.size() < n) s += words[rng() % std::size(words)];
  s.resize(n);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int starts = 200;
  int runs = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--starts")
      starts = std::atoi(argv[i + 1]);
    else if (flag == "--runs")
      runs = std::atoi(argv[i + 1]);
    else
      die("usage: bot_bench [--starts N] [--runs N]");
  }
  char tmpl[] = "/tmp/arbiter-bot-bench-XXXXXX";
  const fs::path work = ::mkdtemp(tmpl);
  auto store = tournament::open_store("sqlite:" + (work / "bench.db").string());
  if (!store) die(store.error().message);

  // The same program twice: in a plain directory, and stored.
  const fs::path plain = work / "plain";
  const fs::path bot = work / "bot";
  for (const fs::path& d : {plain, bot}) {
    fs::create_directories(d);
    fs::copy_file("/bin/cat", d / "cat");
  }
  write(bot / "arbiter-bot.toml", "name = \"cat\"\ngame = \"battleship\"\nrun = [\"./cat\"]\n");
  league::AddOptions options;
  options.cache = work / "cache";
  auto added = league::add_bot(**store, bot, options);
  if (!added || added->status != "active") die("the bot was not added");
  league::StoreShelf shelf(**store, work / "cache");
  ProgramTerms plain_terms;
  plain_terms.dir = plain;
  const StoredBotRef ref{"cat", 1};
  std::vector<double> from_path, from_cache;
  for (int i = 0; i < starts; ++i) {
    from_path.push_back(start_once({"./cat"}, plain_terms));
    const auto t0 = Steady::now();
    auto program = shelf.take(ref, added->artifact, ProgramTerms{});
    if (!program) die(program.error().message);
    const double take_ms = elapsed_ms(t0);
    from_cache.push_back(take_ms + start_once(program->argv, program->terms));
  }
  const Stats p = spread(from_path), c = spread(from_cache);
  fmt::print("start + first exchange, {} each, interleaved (ms)   median    p90\n", starts);
  fmt::print("  plain path                                       {:7.2f} {:6.2f}\n", p.median,
             p.p90);
  fmt::print("  stored bot from the worker's cache               {:7.2f} {:6.2f}\n", c.median,
             c.p90);
  fmt::print("  difference of the medians                        {:+7.2f}\n\n",
             c.median - p.median);

  std::mt19937_64 rng(1);
  for (const char* kind : {"incompressible", "text"}) {
    std::vector<double> add_ms, miss_ms;
    for (int r = 0; r < runs; ++r) {
      const fs::path big = work / fmt::format("big-{}-{}", kind, r);
      fs::create_directories(big);
      write(big / "arbiter-bot.toml", "name = \"big\"\ngame = \"battleship\"\nrun = [\"./cat\"]\n");
      for (int f = 0; f < 10; ++f) {
        const std::size_t n = std::size_t{1} << 20;
        write(big / fmt::format("data{}.bin", f),
              kind[0] == 'i' ? random_bytes(n, rng) : text_bytes(n, rng));
      }
      auto t0 = Steady::now();
      auto v = league::add_bot(**store, big, league::AddOptions{});
      add_ms.push_back(elapsed_ms(t0));
      if (!v) die(v.error().message);
      league::StoreShelf fresh(**store, work / fmt::format("miss-{}-{}", kind, r));
      t0 = Steady::now();
      if (auto dir = fresh.open(v->artifact); !dir) die(dir.error().message);
      miss_ms.push_back(elapsed_ms(t0));
    }
    const Stats a = spread(add_ms), m = spread(miss_ms);
    fmt::print("10 MiB bot, {} files, {} runs (ms)          median    max\n", kind, runs);
    fmt::print("  bot add (read, check, pack, hash, store)         {:7.1f} {:6.1f}\n", a.median,
               *std::max_element(add_ms.begin(), add_ms.end()));
    fmt::print("  cache miss (fetch, check the hash, unpack)       {:7.1f} {:6.1f}\n", m.median,
               *std::max_element(miss_ms.begin(), miss_ms.end()));
  }
  std::error_code ec;
  fs::remove_all(work, ec);
}
