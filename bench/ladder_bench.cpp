// ladder_bench: the ladder's per-result and per-round costs on a generated SQLite store of a
// ladder with 1,000 active entrants and 1,000,000 rated results (2,000,000 rating steps), made
// once per run in $TMPDIR (about half a minute). docs/benchmarks.md, "The ladder".
//   PlanRound      one matchmaking round (in memory: the entrants' standing as the coordinator
//                  holds it), 4 groups of 2
//   RateOneResult  one new result read from the store, rated, and recorded with the new mark
//   CoordinatorReads  the reads of one coordinator pass with nothing new: results from the
//                  mark, jobs past the last one, the ladder's state
#include <benchmark/benchmark.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "league/ladder.h"
#include "tournament/spec.h"
#include "tournament/store.h"
#include "tournament/worker.h"

namespace arbiter::league {
namespace {

using tournament::Store;

constexpr int kEntrants = 1000;
constexpr std::int64_t kResults = 1'000'000;

void exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    fmt::print(stderr, "ladder_bench: {}\n", message != nullptr ? message : "sqlite error");
    std::exit(1);
  }
}

struct Generated {
  std::filesystem::path dir;
  std::string url;
  std::int64_t ladder = 0;
  std::int64_t next = kResults;  // the next job index
};

// The store: a ladder made through the API, then a million played, rated matches written in
// bulk with SQL (the API would take a transaction each).
Generated& generated() {
  static Generated g = [] {
    Generated out;
    const char* tmp = std::getenv("TMPDIR");
    out.dir = std::filesystem::path(tmp != nullptr ? tmp : "/tmp") /
              fmt::format("arbiter-ladder-bench-{}", getpid());
    std::filesystem::create_directories(out.dir);
    const auto file = out.dir / "ladder.db";
    out.url = "sqlite:" + file.string();
    auto store = tournament::open_store(out.url);
    if (!store) std::abort();
    auto spec = tournament::new_tournament_spec();
    spec.name = "bench";
    spec.game = "battleship";
    spec.schedule = tournament::Schedule::ladder;
    spec.ladder = tournament::Ladder{2, {}, 10, encode_skill_params({})};
    for (int i = 0; i < kEntrants; ++i) spec.players.push_back({fmt::format("e{}", i), "random"});
    auto id = create_ladder(**store, spec);
    if (!id) {
      fmt::print(stderr, "ladder_bench: {}\n", id.error().message);
      std::exit(1);
    }
    out.ladder = *id;
    store->reset();
    sqlite3* db = nullptr;
    if (sqlite3_open(file.c_str(), &db) != SQLITE_OK) std::abort();
    exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; BEGIN");
    // Match i seats entrants i % 1000 and (i * 7 + 1) % 1000 (never the same: 6i + 1 is odd);
    // seat 0 wins.
    exec(db,
         fmt::format("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {}) "
                     "INSERT INTO jobs(tournament, idx, round, spec, done) SELECT {}, i, i / 8, "
                     "json_object('seats', json_array(i % 1000, (i * 7 + 1) % 1000), 'seed', i, "
                     "'pair', i), 1 FROM n",
                     kResults - 1, out.ladder));
    exec(db, fmt::format("INSERT INTO results(job, tournament, worker, result, log, seconds) "
                         "SELECT id, tournament, 'w', '{{\"winners\":[0],\"ejections\":[],"
                         "\"scores\":[1,0]}}', x'00', 0.01 FROM jobs WHERE tournament = {}",
                         out.ladder));
    exec(db, fmt::format("INSERT INTO rating_steps(tournament, entrant, idx, mu, sigma, games, "
                         "place) SELECT {0}, json_extract(spec, '$.seats[0]'), idx, 25.0, 2.0, "
                         "1, 0 FROM jobs WHERE tournament = {0} ON CONFLICT DO NOTHING",
                         out.ladder));
    exec(db, fmt::format("INSERT INTO rating_steps(tournament, entrant, idx, mu, sigma, games, "
                         "place) SELECT {0}, json_extract(spec, '$.seats[1]'), idx, 25.0, 2.0, "
                         "1, 1 FROM jobs WHERE tournament = {0} ON CONFLICT DO NOTHING",
                         out.ladder));
    exec(db, fmt::format("INSERT INTO ratings_now(tournament, entrant, idx, mu, sigma, games, "
                         "place) SELECT tournament, entrant, max(idx), 25.0 + entrant / 100.0, "
                         "2.0, count(*), 0 FROM rating_steps WHERE tournament = {} GROUP BY "
                         "entrant",
                         out.ladder));
    exec(db,
         fmt::format("UPDATE ladders SET mark = {} WHERE tournament = {}", kResults, out.ladder));
    exec(db, "COMMIT; ANALYZE");
    sqlite3_close(db);
    return out;
  }();
  return g;
}

struct Opened {
  std::unique_ptr<Store> store;
  tournament::TournamentSpec spec;
  std::optional<RatingBook> book;
};

Opened open_generated() {
  Generated& g = generated();
  Opened o;
  auto store = tournament::open_store(g.url);
  if (!store) std::abort();
  o.store = std::move(*store);
  auto spec = tournament::load_spec(*o.store, g.ladder);
  if (!spec) std::abort();
  o.spec = *spec;
  auto book = RatingBook::load(*o.store, g.ladder, {});
  if (!book) std::abort();
  o.book.emplace(std::move(*book));
  return o;
}

}  // namespace
}  // namespace arbiter::league

namespace tournament = arbiter::tournament;
using namespace arbiter::league;

static void PlanRound(benchmark::State& state) {
  auto o = open_generated();
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> pending;
  std::int64_t round = 0;
  for (auto _ : state) {
    auto jobs = plan_round(o.spec, *o.book, pending, generated().next, round++, 4);
    benchmark::DoNotOptimize(jobs);
  }
  state.counters["entrants"] = kEntrants;
}
BENCHMARK(PlanRound)->Unit(benchmark::kMicrosecond);

static void RateOneResult(benchmark::State& state) {
  auto o = open_generated();
  Generated& g = generated();
  for (auto _ : state) {
    state.PauseTiming();
    const std::int64_t index = g.next++;
    // Two entrants that differ (12i + 5 is odd, so never 0 mod 1000).
    const arbiter::Json spec{
        {"seats", {index % 1000, (index * 13 + 5) % 1000}}, {"seed", index}, {"pair", index}};
    if (!o.store->add_jobs(g.ladder, {{index, index / 8, spec}})) std::abort();
    auto claimed = o.store->claim("bench", 1, std::chrono::seconds(60), g.ladder);
    if (!claimed || claimed->size() != 1) std::abort();
    const arbiter::Json result{
        {"winners", {1}}, {"ejections", arbiter::Json::array()}, {"scores", {0, 1}}};
    const std::string log = arbiter::dump(arbiter::Json{{"type", "match"}, {"seed", index}}) +
                            "\n" +
                            arbiter::dump(arbiter::Json{{"type", "result"},
                                                        {"winners", {1}},
                                                        {"ejections", arbiter::Json::array()},
                                                        {"scores", {0, 1}}}) +
                            "\n";
    if (!o.store->complete((*claimed)[0].id, "bench", {result, log, 0.01, {}})) std::abort();
    state.ResumeTiming();
    auto passed = o.book->catch_up(*o.store, o.spec);
    if (!passed || *passed != 1) {
      state.SkipWithError("the result was not rated");
      break;
    }
  }
  state.counters["stored"] = static_cast<double>(g.next);
}
BENCHMARK(RateOneResult)->Unit(benchmark::kMicrosecond)->Iterations(2000);

static void CoordinatorReads(benchmark::State& state) {
  auto o = open_generated();
  Generated& g = generated();
  for (auto _ : state) {
    auto rows = o.store->results(g.ladder, o.book->mark());
    auto beyond = o.store->jobs(g.ladder, g.next);
    auto ladder = o.store->ladder_state(g.ladder);
    if (!rows || !beyond || !ladder) std::abort();
    benchmark::DoNotOptimize(rows);
  }
}
BENCHMARK(CoordinatorReads)->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::filesystem::remove_all(generated().dir);
  return 0;
}
