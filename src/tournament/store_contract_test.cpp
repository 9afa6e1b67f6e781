// The store contract of store.h, run against every back end of contract_backends(): SQLite
// always, PostgreSQL when scripts/with_postgres.sh started a server for the run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "tournament/store.h"
#include "tournament/store_test_support.h"

namespace arbiter::tournament {
namespace {

using namespace std::chrono_literals;

std::vector<JobSpec> jobs(std::int64_t first, std::int64_t count, std::int64_t round = 0) {
  std::vector<JobSpec> out;
  for (std::int64_t i = first; i < first + count; ++i)
    out.push_back({i, round, Json{{"seats", {0, 1}}, {"seed", 1000 + i}}});
  return out;
}

// A log of the job's match ending with `result` (not a game's: the store checks only its frame).
std::string log_of(const Job& job, const Json& result, const std::string& middle = "") {
  Json end = result;
  end["type"] = "result";
  end.erase("tag");
  const Json header{
      {"type", "match"}, {"seed", job.spec["seed"]}, {"seats", Json::array({"a", "b"})}};
  return dump(header) + "\n" + middle + dump(end) + "\n";
}

// A result of the job: seat 0 wins, tagged so tests can tell copies apart.
JobResult result_of(const Job& job, std::string tag) {
  Json result{{"winners", {0}}, {"ejections", Json::array()}, {"scores", {3, 1}}, {"tag", tag}};
  return {result, log_of(job, result), 0.25};
}

class StoreContract : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    url_ = testing::fresh_store_url(GetParam());
    store_ = open();
  }
  std::unique_ptr<Store> open() {
    auto s = open_store(url_);
    EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message);
    return s ? std::move(*s) : nullptr;
  }
  std::int64_t make(std::int64_t count, std::int64_t planned = -1) {
    auto id = store_->create_tournament("t", "q", Json{{"players", 2}},
                                        planned < 0 ? count : planned, jobs(0, count));
    EXPECT_TRUE(id.has_value()) << (id ? "" : id.error().message);
    return id.value_or(0);
  }
  std::vector<Job> claim(const std::string& worker, std::int64_t max,
                         std::chrono::milliseconds lease = 60s, std::int64_t only = 0) {
    auto c = store_->claim(worker, max, lease, only);
    EXPECT_TRUE(c.has_value()) << (c ? "" : c.error().message);
    return c.value_or(std::vector<Job>{});
  }
  std::string url_;
  std::unique_ptr<Store> store_;
};

TEST_P(StoreContract, AConcludedTournamentHandsOutNoMoreJobsAndKeepsItsFirstVerdict) {
  const auto a = make(6);
  const auto b = make(2);
  const auto held = claim("w1", 1, 60s, a);
  ASSERT_EQ(held.size(), 1u);
  auto first = store_->conclude(a, "SPRT: H1 accepted after 3 pairs");
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_TRUE(*first);
  auto second = store_->conclude(a, "something else");
  ASSERT_TRUE(second.has_value());
  EXPECT_FALSE(*second);
  // Another connection (another worker) sees it too.
  auto other = open();
  ASSERT_TRUE(other);
  auto p = other->progress(a);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->concluded, "SPRT: H1 accepted after 3 pairs");
  EXPECT_EQ(p->done, 0);
  auto c = other->claim("w2", 10, 60s, 0);
  ASSERT_TRUE(c.has_value());
  ASSERT_EQ(c->size(), 2u);  // tournament b's only
  for (const Job& j : *c) EXPECT_EQ(j.tournament, b);
  EXPECT_TRUE(claim("w3", 10, 60s, a).empty());
  // A job claimed before the verdict is still stored.
  auto done = store_->complete(held[0].id, "w1", result_of(held[0], "late"));
  ASSERT_TRUE(done.has_value()) << done.error().message;
  EXPECT_TRUE(*done);
  EXPECT_EQ(store_->progress(a)->done, 1);
  EXPECT_FALSE(store_->progress(b)->concluded.has_value());
  EXPECT_FALSE(store_->conclude(a + b + 100, "nope").has_value());
}

TEST_P(StoreContract, CreatesAndFindsTournaments) {
  const auto a = make(3, 10);
  auto b = store_->create_tournament("second", "battleship", Json{{"salvo", true}}, 0, {});
  ASSERT_TRUE(b.has_value()) << b.error().message;
  EXPECT_NE(a, *b);
  auto found = store_->find_tournament(a);
  ASSERT_TRUE(found.has_value() && found->has_value());
  EXPECT_EQ((*found)->name, "t");
  EXPECT_EQ((*found)->game, "q");
  EXPECT_EQ((*found)->spec, (Json{{"players", 2}}));
  EXPECT_EQ((*found)->planned, 10);
  EXPECT_EQ((*found)->created.size(), 20u) << (*found)->created;  // 2026-11-22T12:00:00Z
  auto missing = store_->find_tournament(*b + 100);
  ASSERT_TRUE(missing.has_value());
  EXPECT_FALSE(missing->has_value());
  auto all = store_->tournaments();
  ASSERT_TRUE(all.has_value());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, a);
  EXPECT_EQ((*all)[1].game, "battleship");
}

TEST_P(StoreContract, ClaimsLowestFirstInBatchesAndNeverTwice) {
  const auto t = make(5);
  const auto first = claim("w1", 2);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].index, 0);
  EXPECT_EQ(first[1].index, 1);
  EXPECT_EQ(first[0].tournament, t);
  EXPECT_EQ(first[0].attempts, 1);
  EXPECT_EQ(first[1].spec, (Json{{"seats", {0, 1}}, {"seed", 1001}}));
  const auto second = claim("w2", 10);
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(second[0].index, 2);
  EXPECT_TRUE(claim("w3", 10).empty());
}

TEST_P(StoreContract, AnExpiredLeaseIsClaimedAgain) {
  make(1);
  ASSERT_EQ(claim("dead", 1, 150ms).size(), 1u);
  EXPECT_TRUE(claim("w2", 1).empty());
  std::this_thread::sleep_for(400ms);
  const auto again = claim("w2", 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].attempts, 2);
}

TEST_P(StoreContract, RenewalKeepsALease) {
  make(1);
  ASSERT_EQ(claim("w1", 1, 300ms).size(), 1u);
  std::this_thread::sleep_for(100ms);
  auto renewed = store_->renew("w1", 5s);
  ASSERT_TRUE(renewed.has_value()) << renewed.error().message;
  EXPECT_EQ(*renewed, 1);
  std::this_thread::sleep_for(400ms);
  EXPECT_TRUE(claim("w2", 1).empty());
  auto none = store_->renew("nobody", 5s);
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(*none, 0);
}

TEST_P(StoreContract, ALateRenewalDoesNotTakeBackAReclaimedJob) {
  const auto t = make(1);
  ASSERT_EQ(claim("slow", 1, 100ms).size(), 1u);
  std::this_thread::sleep_for(300ms);
  ASSERT_EQ(claim("fast", 1, 5s).size(), 1u);
  auto renewed = store_->renew("slow", 5s);
  ASSERT_TRUE(renewed.has_value());
  EXPECT_EQ(*renewed, 0);
  auto leases = store_->leases(t);
  ASSERT_TRUE(leases.has_value());
  ASSERT_EQ(leases->size(), 1u);
  EXPECT_EQ((*leases)[0].worker, "fast");
}

TEST_P(StoreContract, ASecondResultIsIgnoredAndCounted) {
  const auto t = make(2);
  const auto got = claim("w1", 1);
  ASSERT_EQ(got.size(), 1u);
  auto first = store_->complete(got[0].id, "w1", result_of(got[0], "first"));
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_TRUE(*first);
  auto second = store_->complete(got[0].id, "w2", result_of(got[0], "second"));
  ASSERT_TRUE(second.has_value()) << second.error().message;
  EXPECT_FALSE(*second);
  auto results = store_->results(t);
  ASSERT_TRUE(results.has_value());
  ASSERT_EQ(results->size(), 1u);
  EXPECT_EQ((*results)[0].result["tag"], "first");
  EXPECT_EQ((*results)[0].worker, "w1");
  EXPECT_DOUBLE_EQ((*results)[0].seconds, 0.25);
  auto log = store_->log(got[0].id);
  ASSERT_TRUE(log.has_value() && log->has_value());
  EXPECT_EQ((*log)->text, result_of(got[0], "first").log);
  EXPECT_EQ((*log)->damage, "");
  auto p = store_->progress(t);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->done, 1);
  EXPECT_EQ(p->duplicates, 1);
}

TEST_P(StoreContract, DoneJobsAreNeverClaimedAndAnyWorkerMayComplete) {
  make(2);
  const auto got = claim("w1", 2, 100ms);
  ASSERT_EQ(got.size(), 2u);
  // w2 completes a job it never claimed (it held an older lease, say): the result counts.
  auto done = store_->complete(got[1].id, "w2", result_of(got[1], "x"));
  ASSERT_TRUE(done.has_value());
  EXPECT_TRUE(*done);
  std::this_thread::sleep_for(300ms);
  const auto again = claim("w3", 10);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].id, got[0].id);
}

TEST_P(StoreContract, CompletingAnUnknownJobIsAnError) {
  make(1);
  auto r = store_->complete(987654, "w1", result_of(Job{.spec = jobs(0, 1)[0].spec}, "x"));
  ASSERT_FALSE(r.has_value());
  EXPECT_FALSE(r.error().message.empty());
}

TEST_P(StoreContract, ReleaseMakesJobsClaimableAtOnce) {
  make(3);
  const auto got = claim("w1", 3);
  ASSERT_EQ(got.size(), 3u);
  ASSERT_TRUE(store_->complete(got[0].id, "w1", result_of(got[0], "x")).has_value());
  auto released = store_->release("w1");
  ASSERT_TRUE(released.has_value()) << released.error().message;
  EXPECT_EQ(*released, 2);
  const auto again = claim("w2", 10);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].id, got[1].id);
  EXPECT_EQ(again[1].attempts, 2);
}

TEST_P(StoreContract, AddJobsIgnoresIndexesAlreadyThere) {
  const auto t = make(3, 6);
  auto added = store_->add_jobs(t, jobs(2, 4, 1));
  ASSERT_TRUE(added.has_value()) << added.error().message;
  EXPECT_EQ(*added, 3);
  auto again = store_->add_jobs(t, jobs(2, 4, 1));
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, 0);
  auto p = store_->progress(t);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->planned, 6);
  EXPECT_EQ(p->enqueued, 6);
  const auto all = claim("w", 10);
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[2].round, 0);  // index 2 kept its first round
  EXPECT_EQ(all[3].round, 1);
  EXPECT_FALSE(store_->add_jobs(t + 1000, jobs(0, 1)).has_value());
}

TEST_P(StoreContract, ProgressAndLeasesTellDoneLeasedAndExpired) {
  const auto t = make(4, 8);
  const auto a = claim("alive", 1, 60s);
  const auto b = claim("dead", 1, 100ms);
  const auto c = claim("done", 1, 60s);
  ASSERT_EQ(c.size(), 1u);
  ASSERT_TRUE(store_->complete(c[0].id, "done", result_of(c[0], "c")).has_value());
  std::this_thread::sleep_for(300ms);
  auto p = store_->progress(t);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->planned, 8);
  EXPECT_EQ(p->enqueued, 4);
  EXPECT_EQ(p->done, 1);
  EXPECT_EQ(p->leased, 1);
  EXPECT_EQ(p->duplicates, 0);
  auto leases = store_->leases(t);
  ASSERT_TRUE(leases.has_value());
  ASSERT_EQ(leases->size(), 2u);
  EXPECT_EQ((*leases)[0].worker, "alive");
  EXPECT_FALSE((*leases)[0].expired);
  EXPECT_EQ((*leases)[1].worker, "dead");
  EXPECT_TRUE((*leases)[1].expired);
  EXPECT_FALSE(store_->progress(t + 1000).has_value());
}

TEST_P(StoreContract, ClaimCanBeLimitedToOneTournament) {
  make(2);
  auto other = store_->create_tournament("u", "q", Json::object(), 2, jobs(0, 2));
  ASSERT_TRUE(other.has_value());
  const auto got = claim("w", 10, 60s, *other);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].tournament, *other);
  EXPECT_EQ(got[1].tournament, *other);
}

TEST_P(StoreContract, ResultsComeByIndexWithSpecAndRound) {
  const auto t = make(3);
  auto got = claim("w", 3);
  std::reverse(got.begin(), got.end());
  for (const Job& j : got)
    ASSERT_TRUE(store_->complete(j.id, "w", result_of(j, std::to_string(j.index))).has_value());
  auto results = store_->results(t);
  ASSERT_TRUE(results.has_value());
  ASSERT_EQ(results->size(), 3u);
  for (std::int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*results)[i].index, i);
    EXPECT_EQ((*results)[i].spec["seed"], 1000 + i);
    EXPECT_EQ((*results)[i].result["tag"], std::to_string(i));
  }
  auto none = store_->log(got[0].id + 1000);
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->has_value());
}

TEST_P(StoreContract, LargeLogsAndUnicodeSurvive) {
  make(1);
  const auto got = claim("w", 1);
  ASSERT_EQ(got.size(), 1u);
  std::string big;
  while (big.size() < (1u << 20)) big += "{\"type\":\"call\",\"text\":\"héllo \\\"quoted\\\" ✓\"}\n";
  JobResult r = result_of(got[0], "x");
  r.result["name"] = "Zoë ✓";
  r.log = log_of(got[0], r.result, big);
  ASSERT_TRUE(store_->complete(got[0].id, "w", r).has_value());
  auto log = store_->log(got[0].id);
  ASSERT_TRUE(log.has_value() && log->has_value());
  EXPECT_EQ((*log)->text, r.log);
  EXPECT_EQ((*log)->damage, "");
  auto results = store_->results(got[0].tournament);
  ASSERT_TRUE(results.has_value());
  EXPECT_EQ((*results)[0].result["name"], "Zoë ✓");
}

TEST_P(StoreContract, DataSurvivesReopening) {
  const auto t = make(2);
  const auto got = claim("w", 1);
  ASSERT_TRUE(store_->complete(got[0].id, "w", result_of(got[0], "kept")).has_value());
  store_.reset();
  auto reopened = open();
  ASSERT_NE(reopened, nullptr);
  auto p = reopened->progress(t);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->done, 1);
  EXPECT_EQ(p->enqueued, 2);
}

TEST_P(StoreContract, ConcurrentWorkersShareTheJobsExactlyOnce) {
  constexpr std::int64_t kJobs = 150;
  const auto t = make(kJobs);
  std::mutex mu;
  std::multiset<std::int64_t> claimed;
  std::atomic<int> errors{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w)
    workers.emplace_back([&, w] {
      auto own = open_store(url_);  // a connection of its own, as another process would have
      if (!own) {
        ++errors;
        return;
      }
      const std::string name = "w" + std::to_string(w);
      for (;;) {
        auto got = (*own)->claim(name, 3, 60s);
        if (!got) {
          ++errors;
          return;
        }
        if (got->empty()) return;
        for (const Job& j : *got) {
          {
            std::lock_guard lock(mu);
            claimed.insert(j.index);
          }
          if (!(*own)->complete(j.id, name, result_of(j, name))) ++errors;
        }
      }
    });
  for (auto& w : workers) w.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(static_cast<std::int64_t>(claimed.size()), kJobs);
  EXPECT_EQ(std::set<std::int64_t>(claimed.begin(), claimed.end()).size(), claimed.size());
  auto p = store_->progress(t);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->done, kJobs);
  EXPECT_EQ(p->duplicates, 0);
}

TEST_P(StoreContract, AWaitingWorkerWakesWhenJobsArrive) {
  const auto t = make(0, 1);
  auto other = open_store(url_);
  ASSERT_TRUE(other.has_value());
  std::thread adder([&] {
    std::this_thread::sleep_for(200ms);
    auto added = (*other)->add_jobs(t, jobs(0, 1));
    EXPECT_TRUE(added.has_value());
  });
  const auto start = std::chrono::steady_clock::now();
  std::vector<Job> got;
  while (got.empty() && std::chrono::steady_clock::now() - start < 20s) {
    store_->wait_for_work(20s);
    got = claim("w", 1);
  }
  const auto waited = std::chrono::steady_clock::now() - start;
  adder.join();
  EXPECT_EQ(got.size(), 1u);
  EXPECT_LT(waited, 10s);
}

TEST_P(StoreContract, LiveLinesOfTheCurrentAttemptAreReadInOrderUntilTheResult) {
  const auto t = make(3);
  auto got = claim("w", 2);
  ASSERT_EQ(got.size(), 2u);
  const Job& a = got[0];
  // Out of order, twice over, and a batch with a gap after it: read back in order, without gaps.
  ASSERT_TRUE(store_->append_live({{a.id, a.attempts, 2, {"c"}},
                                   {a.id, a.attempts, 0, {"a", "b"}},
                                   {a.id, a.attempts, 0, {"x", "y", "z"}},
                                   {a.id, a.attempts, 9, {"late"}}}));
  auto lines = store_->live_lines(a.id, 0, 100);
  ASSERT_TRUE(lines.has_value()) << lines.error().message;
  EXPECT_TRUE(lines->exists);
  EXPECT_TRUE(lines->playing);
  EXPECT_FALSE(lines->finished);
  EXPECT_EQ(lines->attempt, a.attempts);
  EXPECT_EQ(lines->lines, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(store_->live_lines(a.id, 1, 1)->lines, (std::vector<std::string>{"b"}));
  EXPECT_TRUE(store_->live_lines(a.id, 3, 100)->lines.empty());

  // Only jobs being played that have lines are listed.
  auto live = store_->live_jobs(t);
  ASSERT_TRUE(live.has_value()) << live.error().message;
  ASSERT_EQ(live->size(), 1u);
  EXPECT_EQ((*live)[0].job, a.id);
  EXPECT_EQ((*live)[0].index, a.index);
  EXPECT_EQ((*live)[0].worker, "w");
  EXPECT_EQ((*live)[0].lines, 4);  // a, b, c and the line after the gap
  EXPECT_EQ((*live)[0].spec, a.spec);

  // The result drops them, and later lines are refused.
  ASSERT_TRUE(store_->complete(a.id, "w", result_of(a, "one")));
  ASSERT_TRUE(store_->append_live({{a.id, a.attempts, 3, {"d"}}}));
  lines = store_->live_lines(a.id, 0, 100);
  ASSERT_TRUE(lines.has_value());
  EXPECT_TRUE(lines->finished);
  EXPECT_FALSE(lines->playing);
  EXPECT_TRUE(lines->lines.empty());
  EXPECT_TRUE(store_->live_jobs(t)->empty());

  // Unknown jobs: nothing stored, nothing read, no error.
  ASSERT_TRUE(store_->append_live({{999999, 1, 0, {"x"}}}));
  lines = store_->live_lines(999999, 0, 100);
  ASSERT_TRUE(lines.has_value());
  EXPECT_FALSE(lines->exists);
}

TEST_P(StoreContract, AReclaimedJobShowsOnlyItsNewAttemptsLines) {
  const auto t = make(1);
  auto first = claim("dead", 1, 200ms);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(store_->append_live({{first[0].id, first[0].attempts, 0, {"old0", "old1"}}}));
  std::this_thread::sleep_for(300ms);
  // The lease ran out: not listed, and its lines end there.
  EXPECT_TRUE(store_->live_jobs(t)->empty());
  EXPECT_FALSE(store_->live_lines(first[0].id, 0, 100)->playing);
  auto second = claim("alive", 1);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_GT(second[0].attempts, first[0].attempts);
  EXPECT_TRUE(store_->live_lines(second[0].id, 0, 100)->lines.empty());
  EXPECT_TRUE(store_->live_jobs(t)->empty());  // no line of the new attempt yet
  ASSERT_TRUE(store_->append_live({{second[0].id, second[0].attempts, 0, {"new0"}}}));
  auto lines = store_->live_lines(second[0].id, 0, 100);
  ASSERT_TRUE(lines.has_value());
  EXPECT_EQ(lines->lines, (std::vector<std::string>{"new0"}));
  EXPECT_EQ(lines->attempt, second[0].attempts);
  ASSERT_EQ(store_->live_jobs(t)->size(), 1u);
  EXPECT_EQ((*store_->live_jobs(t))[0].worker, "alive");
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreContract,
                         ::testing::ValuesIn(testing::contract_backends()),
                         [](const auto& info) {
                           return info.param == "sqlite" ? std::string("sqlite")
                                                         : std::string("postgresql");
                         });

// Integrity (integrity.h): rows are damaged here behind the store's back, with SQL that both
// back ends understand, and every read must say so.
class StoreIntegrity : public StoreContract {
 protected:
  // Two finished matches of one tournament; returns their jobs, by index.
  std::vector<Job> two_played() {
    tournament_ = make(2);
    auto got = claim("w", 2);
    EXPECT_EQ(got.size(), 2u);
    std::sort(got.begin(), got.end(), [](const Job& a, const Job& b) { return a.index < b.index; });
    for (const Job& j : got)
      EXPECT_TRUE(store_->complete(j.id, "w", result_of(j, "ok")).has_value());
    return got;
  }
  void sql(const std::string& statement) {
    ASSERT_NO_THROW(testing::execute_sql(url_, statement)) << statement;
  }
  std::string result_damage_of(std::int64_t job) {
    auto results = store_->results(tournament_);
    EXPECT_TRUE(results.has_value()) << (results ? "" : results.error().message);
    for (const StoredResult& r : results.value_or(std::vector<StoredResult>{}))
      if (r.job == job) return r.damage;
    ADD_FAILURE() << "no result for job " << job;
    return "";
  }
  StoredLog log_of_job(std::int64_t job) {
    auto log = store_->log(job);
    EXPECT_TRUE(log.has_value() && log->has_value()) << (log ? "" : log.error().message);
    return log && log->has_value() ? **log : StoredLog{};
  }
  std::int64_t tournament_ = 0;
};

TEST_P(StoreIntegrity, SoundRowsReadAsSoundWithAChecksum) {
  const auto got = two_played();
  for (const Job& j : got) {
    EXPECT_EQ(result_damage_of(j.id), "");
    const StoredLog log = log_of_job(j.id);
    EXPECT_EQ(log.damage, "");
    EXPECT_TRUE(log.checksummed);
    EXPECT_EQ(log.text, result_of(j, "ok").log);
  }
}

TEST_P(StoreIntegrity, AResultThatCannotBeItsJobsIsDamaged) {
  const auto got = two_played();
  const std::string id = std::to_string(got[0].id);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"winners":[7],"ejections":[],"scores":[3,1]})", "winner 7 is not one of its 2 seats"},
      {R"({"winners":[0,0],"ejections":[],"scores":[3,1]})", "seat 0 is named twice"},
      {R"({"winners":[0],"ejections":[],"scores":[3]})", "1 scores for 2 seats"},
      {R"({"winners":[0],"ejections":[{"seat":2,"why":"timeout"}],"scores":[3,1]})",
       "an ejection's seat 2"},
      {R"({"winners":[0],"ejections":[{"seat":1,"why":"timeout"},{"seat":1,"why":"foul"}],)"
       R"("scores":[3,1]})",
       "seat 1 is ejected twice"},
      {R"({"winners":[0],"ejections":[],"scores":[3,1],"aborted":true})", "aborted match has"},
      {R"({"winners":[0],"ejections":[],"scores":[3,1.5]})", "score 1.5 is not an integer"},
      {R"({"error":17})", "its error is not a string"},
      {R"({"winners":[0],)", "not a JSON object"},
  };
  for (const auto& [result, why] : cases) {
    sql("UPDATE results SET result = '" + result + "' WHERE job = " + id);
    const std::string damage = result_damage_of(got[0].id);
    EXPECT_NE(damage.find(why), std::string::npos) << result << " gave: " << damage;
    EXPECT_NE(log_of_job(got[0].id).damage, "") << result;
    EXPECT_EQ(result_damage_of(got[1].id), "");
  }
  sql("UPDATE jobs SET spec = '{\"seats\":[0,0],\"seed\":1000}' WHERE id = " + id);
  EXPECT_NE(result_damage_of(got[0].id).find("job spec"), std::string::npos);
}

TEST_P(StoreContract, BotVersionsAreNumberedPerNameAndKeepTheirStatus) {
  const Json manifest{{"name", "alice"}, {"game", "q"}, {"run", {"python3", "bot.py"}}};
  auto v1 = store_->add_bot_version("alice", "q", manifest, "sha256:aa", "building");
  ASSERT_TRUE(v1) << v1.error().message;
  EXPECT_EQ(v1->version, 1);
  EXPECT_EQ(v1->status, "building");
  EXPECT_EQ(v1->manifest, manifest);
  auto v2 = store_->add_bot_version("alice", "q", manifest, "sha256:bb", "building");
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->version, 2);
  ASSERT_TRUE(store_->add_bot_version("bob", "q", manifest, "sha256:cc", "active"));
  // A name plays one game.
  auto other = store_->add_bot_version("alice", "battleship", manifest, "sha256:dd", "building");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("plays q"), std::string::npos) << other.error().message;

  EXPECT_EQ(store_->bot_build_log("alice", 1).value(), std::nullopt);
  ASSERT_TRUE(store_->set_bot_status("alice", 1, "active", "", "sha256:ee", "built\nok\n"));
  ASSERT_TRUE(store_->set_bot_status("alice", 2, "build-failed", "exit 1"));
  EXPECT_FALSE(store_->set_bot_status("alice", 9, "active", ""));
  auto all = store_->bot_versions();
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].artifact, "sha256:ee");
  EXPECT_EQ((*all)[0].status, "active");
  EXPECT_EQ((*all)[1].status, "build-failed");
  EXPECT_EQ((*all)[1].reason, "exit 1");
  EXPECT_EQ((*all)[1].artifact, "");
  EXPECT_EQ((*all)[2].name, "bob");
  EXPECT_EQ(store_->bot_versions("alice")->size(), 2u);
  EXPECT_EQ(store_->bot_build_log("alice", 1).value(), std::optional<std::string>("built\nok\n"));
}

TEST_P(StoreContract, ABotNameBelongsToTheAuthorOfItsFirstVersion) {
  const Json manifest{{"name", "x"}, {"game", "q"}, {"run", {"./bot"}}};
  auto a1 = store_->add_bot_version("abot", "q", manifest, "sha256:a1", "building", "ann");
  ASSERT_TRUE(a1) << a1.error().message;
  EXPECT_EQ(a1->author, "ann");
  EXPECT_TRUE(store_->add_bot_version("abot", "q", manifest, "sha256:a2", "building", "ann"));
  // Another author may not add to it; the organizer (no author) may, and it stays ann's.
  auto stolen = store_->add_bot_version("abot", "q", manifest, "sha256:b1", "building", "ben");
  ASSERT_FALSE(stolen);
  EXPECT_NE(stolen.error().message.find("belongs to another author"), std::string::npos)
      << stolen.error().message;
  auto by_organizer = store_->add_bot_version("abot", "q", manifest, "sha256:o1", "building");
  ASSERT_TRUE(by_organizer);
  EXPECT_EQ(by_organizer->version, 3);
  EXPECT_EQ(by_organizer->author, "ann");
  // A name of the organizer's is no author's to add to.
  ASSERT_TRUE(store_->add_bot_version("house", "q", manifest, "sha256:h1", "active"));
  auto claimed = store_->add_bot_version("house", "q", manifest, "sha256:h2", "active", "ben");
  ASSERT_FALSE(claimed);
  EXPECT_NE(claimed.error().message.find("belongs to the organizer"), std::string::npos);
  const auto all = store_->bot_versions().value();
  for (const auto& v : all)
    EXPECT_EQ(v.author, v.name == "abot" ? "ann" : "") << v.name << "@" << v.version;
  EXPECT_EQ(store_->bot_versions("abot")->size(), 3u);
  // A new name that reads as another owner's is refused, whoever checked what before.
  for (const char* alike : {"ABot", "aB0t", "Abot"}) {
    auto refused = store_->add_bot_version(alike, "q", manifest, "sha256:z", "building", "ben");
    ASSERT_FALSE(refused) << alike;
    EXPECT_NE(refused.error().message.find("reads as abot"), std::string::npos)
        << refused.error().message;
  }
  EXPECT_TRUE(store_->add_bot_version("ABOT", "q", manifest, "sha256:y", "building", "ann"));
  EXPECT_EQ(name_as_it_reads("Ali1cE0"), "alllceo");
}

TEST_P(StoreContract, AuthorsAreStoredOnceAndRevokedForGood) {
  auto ann = store_->add_author("ann", "author", "s1", "h1");
  ASSERT_TRUE(ann) << ann.error().message;
  EXPECT_EQ(ann->role, "author");
  EXPECT_EQ(ann->revoked, "");
  EXPECT_FALSE(ann->created.empty());
  ASSERT_TRUE(store_->add_author("org", "organizer", "s2", "h2"));
  auto again = store_->add_author("ann", "organizer", "s3", "h3");
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("exists already"), std::string::npos);
  auto secret = store_->author_secret("ann").value();
  ASSERT_TRUE(secret);
  EXPECT_EQ(secret->salt, "s1");
  EXPECT_EQ(secret->hash, "h1");
  EXPECT_EQ(secret->author.role, "author");
  EXPECT_EQ(store_->author_secret("nobody").value(), std::nullopt);

  EXPECT_TRUE(store_->revoke_author("ann").value());
  EXPECT_FALSE(store_->revoke_author("ann").value());
  EXPECT_FALSE(store_->revoke_author("nobody").value());
  EXPECT_NE(store_->author_secret("ann").value()->author.revoked, "");
  EXPECT_FALSE(store_->add_author("ann", "author", "s4", "h4"));  // names are never reused
  const auto all = store_->authors().value();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "ann");
  EXPECT_NE(all[0].revoked, "");
  EXPECT_EQ(all[1].name, "org");
  EXPECT_EQ(all[1].revoked, "");
}

TEST_P(StoreContract, AnAuthorHasOneWebhookOrNone) {
  ASSERT_TRUE(store_->add_author("ann", "author", "s", "h"));
  EXPECT_EQ(store_->webhook("ann").value(), std::nullopt);
  ASSERT_TRUE(store_->set_webhook("ann", "http://127.0.0.1:9/a", "k1"));
  ASSERT_TRUE(store_->set_webhook("ann", "http://127.0.0.1:9/b", "k2"));
  auto hook = store_->webhook("ann").value();
  ASSERT_TRUE(hook);
  EXPECT_EQ(hook->first, "http://127.0.0.1:9/b");
  EXPECT_EQ(hook->second, "k2");
  ASSERT_TRUE(store_->set_webhook("ann", "", ""));
  EXPECT_EQ(store_->webhook("ann").value(), std::nullopt);
  EXPECT_FALSE(store_->set_webhook("nobody", "http://127.0.0.1:9/", "k"));
}

TEST_P(StoreContract, BlobsAreStoredOnceByHash) {
  const std::string bytes = std::string{'\0', '\x01', '\xff'} + "binary";
  EXPECT_TRUE(store_->put_blob("sha256:aa", bytes).value());
  EXPECT_FALSE(store_->put_blob("sha256:aa", "other").value());
  EXPECT_EQ(store_->blob("sha256:aa").value(), std::optional<std::string>(bytes));
  EXPECT_EQ(store_->blob("sha256:zz").value(), std::nullopt);
}

TEST_P(StoreContract, ASpecIsReplacedOnlyFromWhatIsStored) {
  const auto id = make(2);
  const Json stored{{"players", 2}};
  const Json grown{{"players", 3}};
  auto swapped = store_->replace_spec(id, stored, grown);
  ASSERT_TRUE(swapped.has_value()) << swapped.error().message;
  EXPECT_TRUE(*swapped);
  auto stale = store_->replace_spec(id, stored, Json{{"players", 4}});
  ASSERT_TRUE(stale.has_value());
  EXPECT_FALSE(*stale);  // another writer got there first
  auto t = store_->find_tournament(id);
  ASSERT_TRUE(t && *t);
  EXPECT_EQ((*t)->spec, grown);
  EXPECT_FALSE(store_->replace_spec(id + 100, grown, stored).has_value());
}

TEST_P(StoreContract, JobsAreListedFromAnIndexWithOrWithoutResults) {
  const auto id = make(4);
  const auto held = claim("w", 1);
  ASSERT_EQ(held.size(), 1u);
  ASSERT_TRUE(store_->complete(held[0].id, "w", result_of(held[0], "a")));
  auto all = store_->jobs(id, 1);
  ASSERT_TRUE(all.has_value()) << all.error().message;
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].index, 1);
  EXPECT_EQ((*all)[2].spec["seed"], 1003);
}

TEST_P(StoreContract, ARoundGoesInWholeOrNotAtAll) {
  const auto id = make(2);  // indices 0 and 1 are taken
  auto clash = store_->add_round(id, jobs(1, 3));
  ASSERT_TRUE(clash.has_value()) << clash.error().message;
  EXPECT_FALSE(*clash);
  auto p = store_->progress(id);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->enqueued, 2);  // not even index 2 or 3 went in
  auto fresh = store_->add_round(id, jobs(2, 3));
  ASSERT_TRUE(fresh);
  EXPECT_TRUE(*fresh);
  p = store_->progress(id);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->enqueued, 5);
  EXPECT_FALSE(store_->add_round(id + 50, jobs(0, 1)).has_value());
  // Two writers racing for the same indices: exactly one round of each pair of attempts wins.
  std::atomic<int> won{0};
  std::vector<std::thread> racers;
  for (int t = 0; t < 4; ++t)
    racers.emplace_back([&] {
      auto own = open();
      for (std::int64_t first = 5; first < 45; first += 4)
        if (auto r = own->add_round(id, jobs(first, 4)); r && *r) ++won;
    });
  for (auto& r : racers) r.join();
  EXPECT_EQ(won.load(), 10);
  p = store_->progress(id);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->enqueued, 45);
}

TEST_P(StoreContract, ResultsAreReadAtGivenIndices) {
  const auto id = make(5);
  const auto held = claim("w", 5);
  ASSERT_EQ(held.size(), 5u);
  for (const Job& j : held)
    if (j.index != 2) ASSERT_TRUE(store_->complete(j.id, "w", result_of(j, "x")));
  auto some = store_->results_at(id, {4, 2, 0, 0, 99});
  ASSERT_TRUE(some.has_value()) << some.error().message;
  ASSERT_EQ(some->size(), 2u);  // 2 has no result, 99 is no job; 0 asked twice comes once
  EXPECT_EQ((*some)[0].index, 0);
  EXPECT_EQ((*some)[1].index, 4);
  EXPECT_TRUE((*some)[1].damage.empty());
  auto none = store_->results_at(id, {});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST_P(StoreContract, LadderStateAndRatingsMoveTogetherFromTheMark) {
  const auto id = make(4);
  auto fresh = store_->ladder_state(id);
  ASSERT_TRUE(fresh.has_value()) << fresh.error().message;
  EXPECT_EQ(fresh->state, "running");
  EXPECT_EQ(fresh->mark, 0);
  ASSERT_TRUE(store_->set_ladder_state(id, "paused"));
  EXPECT_FALSE(store_->set_ladder_state(id + 100, "paused").has_value());

  const double mu = 25.0 + 1.0 / 3.0;  // not exact in decimal: must come back bit for bit
  const std::vector<RatingStep> first{{0, 0, mu, 7.5, 1, 0},
                                      {0, 1, 24.1, 7.5, 1, 1},
                                      {1, 0, 27.25, 7.0, 2, 0},
                                      {1, 2, 22.0, 7.0, 1, 1}};
  auto moved = store_->record_ratings(id, 0, 2, first);
  ASSERT_TRUE(moved.has_value()) << moved.error().message;
  EXPECT_TRUE(*moved);
  // A second coordinator with the same results: refused, nothing written twice.
  auto again = store_->record_ratings(id, 0, 2, first);
  ASSERT_TRUE(again.has_value());
  EXPECT_FALSE(*again);
  auto state = store_->ladder_state(id);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->state, "paused");
  EXPECT_EQ(state->mark, 2);

  auto now = store_->ratings(id);
  ASSERT_TRUE(now.has_value()) << now.error().message;
  ASSERT_EQ(now->size(), 3u);
  EXPECT_EQ((*now)[0].index, 1);  // entrant 0's latest
  EXPECT_EQ((*now)[0].mu, 27.25);
  EXPECT_EQ((*now)[0].games, 2);
  EXPECT_EQ((*now)[2].entrant, 2);

  auto history = store_->rating_history(id, 0);
  ASSERT_TRUE(history.has_value()) << history.error().message;
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].mu, mu);
  EXPECT_EQ((*history)[1].place, 0);
  auto later = store_->rating_history(id, 0, 1);
  ASSERT_TRUE(later);
  EXPECT_EQ(later->size(), 1u);

  // A step already stored is refused whole.
  auto twice = store_->record_ratings(id, 2, 3, {{2, 1, 1, 1, 2, 0}, {1, 2, 1, 1, 2, 0}});
  EXPECT_FALSE(twice.has_value());
  auto kept = store_->ladder_state(id);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->mark, 2);
  auto unchanged = store_->rating_history(id, 1);
  ASSERT_TRUE(unchanged);
  EXPECT_EQ(unchanged->size(), 1u);
  EXPECT_EQ(kept->unrated, 0);

  // Matches passed unrated (a test, an error) move the mark, not the count of rated ones; a
  // refused move counts none.
  ASSERT_TRUE(store_->record_ratings(id, 2, 5, {{3, 1, 26.0, 7.0, 2, 0}}, 2).value());
  EXPECT_FALSE(store_->record_ratings(id, 2, 5, {}, 3).value());
  auto counted = store_->ladder_state(id);
  ASSERT_TRUE(counted);
  EXPECT_EQ(counted->mark, 5);
  EXPECT_EQ(counted->unrated, 2);
  EXPECT_EQ(counted->rated(), 3);
}

TEST_P(StoreIntegrity, AResultTheLogDoesNotEndWithIsDamaged) {
  const auto got = two_played();
  // A shape the job allows, but not what the match's log says.
  sql("UPDATE results SET result = '{\"winners\":[1],\"ejections\":[],\"scores\":[1,3]}' "
      "WHERE job = " + std::to_string(got[0].id));
  EXPECT_EQ(result_damage_of(got[0].id), "");  // rows alone cannot tell
  EXPECT_NE(log_of_job(got[0].id).damage.find("is not the stored result"), std::string::npos)
      << log_of_job(got[0].id).damage;
}

TEST_P(StoreIntegrity, ALogWithOtherBytesIsDamaged) {
  const auto got = two_played();
  const std::string a = std::to_string(got[0].id), b = std::to_string(got[1].id);
  // Cut short: the stream no longer inflates.
  sql("UPDATE results SET log = substr(log, 1, 30) WHERE job = " + a);
  EXPECT_NE(log_of_job(got[0].id).damage.find("does not inflate"), std::string::npos)
      << log_of_job(got[0].id).damage;
  // The other match's log: it inflates, but its checksum is not the one stored here.
  sql("UPDATE results SET log = (SELECT log FROM results WHERE job = " + b + ") WHERE job = " + a);
  EXPECT_NE(log_of_job(got[0].id).damage.find("SHA-256"), std::string::npos)
      << log_of_job(got[0].id).damage;
  // ... moved with its checksum: the header is of another match (its seed).
  sql("UPDATE results SET log_sha256 = (SELECT log_sha256 FROM results WHERE job = " + b +
      ") WHERE job = " + a);
  EXPECT_NE(log_of_job(got[0].id).damage.find("seed 1001"), std::string::npos)
      << log_of_job(got[0].id).damage;
  EXPECT_EQ(log_of_job(got[1].id).damage, "");
}

TEST_P(StoreIntegrity, RowsFromBeforeChecksumsAreUnverifiedNotDamaged) {
  const auto got = two_played();
  // A store from before the column: dropped, then the store opened again adds it back empty.
  store_.reset();
  sql("ALTER TABLE results DROP COLUMN log_sha256");
  store_ = open();
  ASSERT_NE(store_, nullptr);
  const StoredLog old = log_of_job(got[0].id);
  EXPECT_EQ(old.damage, "");
  EXPECT_FALSE(old.checksummed);
  EXPECT_EQ(old.text, result_of(got[0], "ok").log);
  // Unverified logs are still checked against their job and result.
  sql("UPDATE results SET log = (SELECT log FROM results WHERE job = " +
      std::to_string(got[1].id) + ") WHERE job = " + std::to_string(got[0].id));
  EXPECT_NE(log_of_job(got[0].id).damage.find("seed"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreIntegrity,
                         ::testing::ValuesIn(testing::contract_backends()),
                         [](const auto& info) {
                           return info.param == "sqlite" ? std::string("sqlite")
                                                         : std::string("postgresql");
                         });

TEST(OpenStore, RejectsUnknownSchemesAndEmptyPaths) {
  auto bad = open_store("mysql://localhost/x");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("unknown scheme"), std::string::npos);
  EXPECT_FALSE(open_store("").has_value());
  EXPECT_FALSE(open_store("sqlite:").has_value());
  auto unwritable = open_store("sqlite:/proc/no/such/dir/x.db");
  ASSERT_FALSE(unwritable.has_value());
  EXPECT_NE(unwritable.error().message.find("cannot open"), std::string::npos);
}

// Every form of an SQLite store names the file SQLite opens: the private-path check of the
// walls reads the same file (a bot beside a store given as a file: URI read its own seed).
TEST(OpenStore, EveryFormOfAnSqliteStoreNamesTheFileItOpens) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("arbiter-target-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "real");
  fs::create_directory_symlink(dir / "real", dir / "link");
  const fs::path cwd = fs::current_path();
  fs::current_path(dir);
  const fs::path want = dir / "real" / "x.db";
  for (const std::string& url : std::vector<std::string>{
           "real/x.db", "sqlite:real/x.db", "sqlite://real/x.db", "sqlite:" + want.string(),
           "sqlite:link/x.db", "sqlite:file:real/x.db", "sqlite:file:" + want.string(),
           "sqlite:file://" + want.string(), "sqlite:file://localhost" + want.string(),
           "sqlite:file:real/x%2Edb?mode=rwc&cache=shared#frag", "sqlite:file:link/./x.db"}) {
    auto target = sqlite_target(url);
    ASSERT_TRUE(target) << url << ": " << target.error().message;
    ASSERT_TRUE(*target) << url;
    EXPECT_EQ((*target)->file, want) << url;
    auto store = open_store(url);
    ASSERT_TRUE(store) << url << ": " << store.error().message;
  }
  EXPECT_EQ((*sqlite_target("sqlite:file:real/x.db?mode=rwc&cache=shared"))->uri,
            "file:" + want.string() + "?mode=rwc&cache=shared");
  // The file SQLite made is the one named, and no other.
  EXPECT_TRUE(fs::exists(want));
  EXPECT_FALSE(fs::exists(dir / "file:real"));
  for (const std::string url :
       {"sqlite:file://elsewhere/x.db", "sqlite:file:x.db?vfs=unix-none",
        "sqlite:file:x.db?mode=memory", "sqlite::memory:", "sqlite:file:", "sqlite:file:x%2",
        "sqlite:file:x%00.db", "sqlite:file:x.db?modeof=ro"}) {
    auto target = sqlite_target(url);
    EXPECT_FALSE(target) << url;
    EXPECT_FALSE(open_store(url)) << url;
  }
  EXPECT_FALSE(*sqlite_target("postgresql://u:p@127.0.0.1/x"));
  fs::current_path(cwd);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace arbiter::tournament
