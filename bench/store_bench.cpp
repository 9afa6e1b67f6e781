// store_bench: claim + complete throughput of the result stores (each completed job carries a
// 4 KiB game log, about a short Q match's). SQLite always; PostgreSQL as well when
// ARBITER_TEST_POSTGRES_URL names a server (bash scripts/with_postgres.sh build/.../store_bench).
// Threads use a connection each, as separate worker processes would.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

#include "tournament/store.h"
#include "tournament/store_test_support.h"

namespace arbiter::tournament {
namespace {

constexpr std::int64_t kChunk = 20'000;

struct Shared {
  std::string url;
  std::int64_t tournament = 0;
  std::atomic<std::int64_t> next_index{0};
  std::mutex refill;
};

std::map<std::string, Shared>& shared_by_backend() {
  static std::map<std::string, Shared> shared;
  return shared;
}

Shared& setup(const std::string& backend) {
  static std::mutex mu;
  std::lock_guard lock(mu);
  Shared& s = shared_by_backend()[backend];
  if (s.url.empty()) {
    s.url = testing::fresh_store_url(backend);
    auto store = open_store(s.url);
    if (!store) std::abort();
    auto id = (*store)->create_tournament("bench", "q", Json::object(), 0, {});
    if (!id) std::abort();
    s.tournament = *id;
  }
  return s;
}

void refill(Store& store, Shared& s) {
  std::lock_guard lock(s.refill);
  std::vector<JobSpec> jobs;
  const std::int64_t first = s.next_index.fetch_add(kChunk);
  for (std::int64_t i = first; i < first + kChunk; ++i)
    jobs.push_back({i, 0, Json{{"seats", {0, 1}}, {"seed", i}}});
  if (!store.add_jobs(s.tournament, jobs)) std::abort();
}

void claim_complete(benchmark::State& state, const std::string& backend) {
  Shared& s = setup(backend);
  auto store = open_store(s.url);
  if (!store) {
    state.SkipWithError(store.error().message.c_str());
    return;
  }
  const std::int64_t batch = state.range(0);
  const std::string worker = "bench-" + std::to_string(state.thread_index());
  const JobResult result{Json{{"winners", {0}}, {"ejections", Json::array()}, {"scores", {3, 1}}},
                         std::string(4096, 'x'), 0.01};
  std::int64_t completed = 0;
  for (auto _ : state) {
    auto jobs = (*store)->claim(worker, batch, std::chrono::seconds(60), s.tournament);
    if (!jobs) {
      state.SkipWithError(jobs.error().message.c_str());
      return;
    }
    if (jobs->empty()) {
      state.PauseTiming();
      refill(**store, s);
      state.ResumeTiming();
      continue;
    }
    for (const Job& j : *jobs) {
      if (!(*store)->complete(j.id, worker, result)) {
        state.SkipWithError("complete failed");
        return;
      }
      ++completed;
    }
  }
  state.SetItemsProcessed(completed);
}

void register_all() {
  std::vector<std::string> backends = testing::contract_backends();
  for (const auto& backend : backends) {
    const std::string name = backend == "sqlite" ? "sqlite" : "postgresql";
    for (int threads : {1, 2})
      benchmark::RegisterBenchmark(("claim_complete/" + name).c_str(), claim_complete, backend)
          ->Arg(1)
          ->Arg(8)
          ->Threads(threads)
          ->UseRealTime()
          ->MinTime(1.0);
  }
}

}  // namespace
}  // namespace arbiter::tournament

int main(int argc, char** argv) {
  arbiter::tournament::register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
