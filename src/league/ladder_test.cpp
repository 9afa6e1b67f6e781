// The ladder's pieces on a real store (league/ladder.h): enrollment of a thousand versions,
// benching and returning, freezing; entrant names; the rating book's walk (gaps, errors,
// unknown entrants) and its compare-and-set against a second book; test matches on request.
#include "league/ladder.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "core/seat_name.h"
#include "tournament/schedule.h"
#include "tournament/worker.h"

namespace arbiter::league {
namespace {

using tournament::Entrant;

class LadderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/arbiter-ladder-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    auto store = tournament::open_store("sqlite:" + dir_ + "/s.db");
    ASSERT_TRUE(store) << store.error().message;
    store_ = std::move(*store);
    auto spec = tournament::new_tournament_spec();
    spec.name = "cup";
    spec.game = "battleship";
    spec.schedule = tournament::Schedule::ladder;
    spec.ladder = tournament::Ladder{2, {}, 10, encode_skill_params({})};
    spec.players = {{"anchor", "hunt"}};
    auto id = create_ladder(*store_, spec);
    ASSERT_TRUE(id) << id.error().message;
    id_ = *id;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A version as `bot add` leaves an active one (files are not needed here).
  void active(const std::string& name) {
    auto v = store_->add_bot_version(name, "battleship", Json::object(), "sha256:src", "building");
    ASSERT_TRUE(v) << v.error().message;
    ASSERT_TRUE(store_->set_bot_status(name, v->version, "active", "",
                                       fmt::format("sha256:{:064x}", v->version)));
  }

  tournament::TournamentSpec spec() {
    auto s = tournament::load_spec(*store_, id_);
    EXPECT_TRUE(s) << s.error().message;
    return *s;
  }

  std::string dir_;
  std::unique_ptr<tournament::Store> store_;
  std::int64_t id_ = 0;
};

TEST_F(LadderTest, AThousandVersionsJoinInOneEnrollmentAndARoundSeatsThem) {
  for (int i = 0; i < 1000; ++i) active(fmt::format("bot{}", i % 100));  // 100 names, 10 each
  auto e = enroll(*store_, id_);
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_EQ(e->joined.size(), 1000u);
  const auto s = spec();
  ASSERT_EQ(s.players.size(), 1001u);
  std::set<std::string> names;
  for (const Entrant& p : s.players) {
    EXPECT_TRUE(valid_seat_name(p.name)) << p.name;
    names.insert(p.name);
  }
  EXPECT_EQ(names.size(), 1001u);
  auto again = enroll(*store_, id_);  // nothing new: nothing changes
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->joined.empty() && again->benched.empty());
  RatingBook book(id_, {});
  const auto jobs = plan_round(s, book, {}, 0, 0, 400);
  EXPECT_EQ(jobs.size(), 800u);  // 400 pairs, both seat orders
  std::set<std::size_t> seated;
  for (const auto& j : jobs)
    for (std::size_t e2 : tournament::seated(j.spec)) seated.insert(e2);
  EXPECT_EQ(seated.size(), 800u);
}

TEST_F(LadderTest, ARetiredVersionIsBenchedAndReturnsWhenActiveAgain) {
  active("alice");
  active("bob");
  ASSERT_TRUE(enroll(*store_, id_));
  ASSERT_TRUE(store_->set_bot_status("alice", 1, "retired", "superseded"));
  auto e = enroll(*store_, id_);
  ASSERT_TRUE(e);
  ASSERT_EQ(e->benched, std::vector<std::string>{"bot:alice@1"});
  auto s = spec();
  ASSERT_EQ(s.ladder->benched.size(), 1u);
  EXPECT_EQ(s.players[static_cast<std::size_t>(s.ladder->benched[0])].bot, "bot:alice@1");
  // A round never seats a benched entrant.
  RatingBook book(id_, {});
  for (std::int64_t r = 0; r < 20; ++r)
    for (const auto& j : plan_round(s, book, {}, 0, r, 1))
      for (std::size_t e2 : tournament::seated(j.spec))
        EXPECT_NE(static_cast<std::int64_t>(e2), s.ladder->benched[0]);
  ASSERT_TRUE(store_->set_bot_status("alice", 1, "active", ""));
  auto back = enroll(*store_, id_);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->returned, std::vector<std::string>{"bot:alice@1"});
  EXPECT_TRUE(spec().ladder->benched.empty());
}

TEST_F(LadderTest, AFrozenLadderTakesNoNewVersion) {
  ASSERT_TRUE(store_->set_ladder_state(id_, "frozen"));
  active("late");
  auto e = enroll(*store_, id_);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->joined.empty());
  EXPECT_EQ(spec().players.size(), 1u);
}

TEST_F(LadderTest, EntrantNamesFollowTheSeatRuleAndNeverCollide) {
  std::vector<Entrant> taken;
  EXPECT_EQ(entrant_name("alice", 3, taken), "alicev3");
  taken.push_back({"alicev3", "x"});
  const std::string twice = entrant_name("alice", 3, taken);
  EXPECT_NE(twice, "alicev3");
  EXPECT_TRUE(valid_seat_name(twice)) << twice;
  const std::string long_name = entrant_name("abcdefghijklmnopqrst", 123456, taken);
  EXPECT_TRUE(valid_seat_name(long_name)) << long_name;
  EXPECT_TRUE(long_name.ends_with("v123456")) << long_name;
  taken.push_back({long_name, "x"});
  const std::string cut = entrant_name("abcdefghijklmnopqrst", 123456, taken);
  EXPECT_TRUE(valid_seat_name(cut)) << cut;
  EXPECT_NE(cut, long_name);
}

// Plays job `index` (seats as given) as a finish of `winners`, or an error.
void store_result(tournament::Store& store, std::int64_t ladder, std::int64_t index,
                  std::vector<std::size_t> seats, Json result) {
  const tournament::TournamentSpec s = *tournament::load_spec(store, ladder);
  ASSERT_TRUE(store.add_jobs(ladder, {tournament::job(s, index, 0, seats, index, index)}));
  auto jobs = store.claim("w", 1, std::chrono::seconds(60), ladder);
  ASSERT_TRUE(jobs && jobs->size() == 1);
  result.erase("type");
  Json end = result;
  end["type"] = "result";
  const std::string log =
      dump(Json{{"type", "match"}, {"seed", (*jobs)[0].spec["seed"]}}) + "\n" + dump(end) + "\n";
  ASSERT_TRUE(store.complete((*jobs)[0].id, "w", {result, log, 0.1, {}}));
}

Json win(int seat) {
  return {{"winners", {seat}}, {"ejections", Json::array()}, {"scores", {1, 0}}};
}

TEST_F(LadderTest, TheBookRatesInMatchOrderPassesErrorsAndWaitsForGapsAndNewcomers) {
  active("alice");
  ASSERT_TRUE(enroll(*store_, id_));
  auto s = spec();
  ASSERT_EQ(s.players.size(), 2u);
  store_result(*store_, id_, 0, {0, 1}, win(0));
  store_result(*store_, id_, 1, {1, 0}, Json{{"error", "match-time-limit: abandoned"}});
  store_result(*store_, id_, 3, {0, 1}, win(1));  // job 2 is not there yet: a gap
  auto book = RatingBook::load(*store_, id_, {});
  ASSERT_TRUE(book);
  auto passed = book->catch_up(*store_, s);
  ASSERT_TRUE(passed) << passed.error().message;
  EXPECT_EQ(*passed, 2);  // 0 rated, 1 passed unrated, 3 waits for 2
  EXPECT_EQ(book->mark(), 2);
  EXPECT_EQ(book->standing(0).games, 1);
  EXPECT_EQ(book->standing(1).games, 1);
  // Job 2 seats an entrant this spec does not know (it joined elsewhere): the walk stops there.
  store_result(*store_, id_, 2, {0, 5}, win(0));
  auto stuck = book->catch_up(*store_, s);
  ASSERT_TRUE(stuck);
  EXPECT_EQ(*stuck, 0);
  EXPECT_EQ(book->mark(), 2);
}

// A test match goes after the queued jobs, seats whom it names (a version just made active
// too), and is passed by the ratings; a benched, unknown or doubled entrant, a wrong count of
// seats or a paused ladder is refused.
TEST_F(LadderTest, ATestMatchGoesAfterTheQueueAndIsNeverRated) {
  active("alice");
  ASSERT_TRUE(enroll(*store_, id_));
  store_result(*store_, id_, 0, {0, 1}, win(0));
  active("bob");  // not enrolled yet: the request enrolls it
  auto index = add_test_match(*store_, id_, {"alicev1", "bobv1"}, "alice");
  ASSERT_TRUE(index) << index.error().message;
  EXPECT_EQ(*index, 1);
  auto jobs = store_->jobs(id_, 1);
  ASSERT_TRUE(jobs);
  ASSERT_EQ(jobs->size(), 1u);
  const auto& job = (*jobs)[0];
  EXPECT_EQ(test_match_by(job.spec), "alice");
  EXPECT_EQ(tournament::seated(job.spec), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(job.spec["seed"], tournament::job(spec(), 1, 0, {1, 2}, 1, 1).spec["seed"]);
  // Played and stored like any match, then passed unrated.
  auto claimed = store_->claim("w", 1, std::chrono::seconds(60), id_);
  ASSERT_TRUE(claimed && claimed->size() == 1);
  const Json result = win(0);
  Json end = result;
  end["type"] = "result";
  const std::string log =
      dump(Json{{"type", "match"}, {"seed", (*claimed)[0].spec["seed"]}}) + "\n" + dump(end) + "\n";
  ASSERT_TRUE(store_->complete((*claimed)[0].id, "w", {result, log, 0.1, {}}));
  auto book = RatingBook::load(*store_, id_, {});
  ASSERT_TRUE(book);
  ASSERT_EQ(*book->catch_up(*store_, spec()), 2);
  EXPECT_EQ(book->standing(1).games, 1);  // alice's one rated match
  EXPECT_EQ(book->standing(2).games, 0);  // bob played only the test
  auto state = store_->ladder_state(id_);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->mark, 2);
  EXPECT_EQ(state->rated(), 1);  // the test is passed, not counted as rated
  auto wrong = verify_ratings(*store_, id_);
  ASSERT_TRUE(wrong);
  EXPECT_TRUE(wrong->empty());
  const auto refused = [&](std::vector<std::string> seats, std::string_view words) {
    auto r = add_test_match(*store_, id_, seats, "alice");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
  };
  refused({"alicev1", "nobody"}, "no entrant \"nobody\"");
  refused({"alicev1", "alicev1"}, "named twice");
  refused({"alicev1"}, "name 2 entrants");
  refused({"alicev1", "bobv1", "anchor"}, "name 2 entrants");
  ASSERT_TRUE(store_->set_bot_status("bob", 1, "retired", ""));
  refused({"alicev1", "bobv1"}, "benched");
  ASSERT_TRUE(store_->set_ladder_state(id_, "paused"));
  refused({"alicev1", "anchor"}, "paused");
}

TEST_F(LadderTest, ASecondBookFindsTheMarkMovedAndReadsTheStoredRatings) {
  active("alice");
  ASSERT_TRUE(enroll(*store_, id_));
  const auto s = spec();
  store_result(*store_, id_, 0, {0, 1}, win(0));
  auto first = RatingBook::load(*store_, id_, {});
  auto second = RatingBook::load(*store_, id_, {});
  ASSERT_TRUE(first && second);
  ASSERT_EQ(*first->catch_up(*store_, s), 1);
  auto late = second->catch_up(*store_, s);
  ASSERT_TRUE(late);
  EXPECT_EQ(*late, 0);           // nothing written twice ...
  EXPECT_EQ(second->mark(), 1);  // ... and it now knows what the first rated
  EXPECT_EQ(second->standing(0).skill.mu, first->standing(0).skill.mu);
  auto history = store_->rating_history(id_, 0);
  ASSERT_TRUE(history);
  EXPECT_EQ(history->size(), 1u);
  auto wrong = verify_ratings(*store_, id_);
  ASSERT_TRUE(wrong);
  EXPECT_TRUE(wrong->empty());
}

TEST_F(LadderTest, VerifyFindsRatingsTheResultsDoNotGive) {
  active("alice");
  ASSERT_TRUE(enroll(*store_, id_));
  store_result(*store_, id_, 0, {0, 1}, win(0));
  ASSERT_TRUE(rate_results(*store_, id_));
  auto clean = verify_ratings(*store_, id_);
  ASSERT_TRUE(clean);
  EXPECT_TRUE(clean->empty());
  // A rating for a match that has no result, written past the mark by someone else.
  ASSERT_TRUE(*store_->record_ratings(id_, 1, 2, {{1, 0, 99.0, 1.0, 2, 0}}));
  auto forged = verify_ratings(*store_, id_);
  ASSERT_TRUE(forged);
  ASSERT_FALSE(forged->empty());
  EXPECT_NE((*forged)[0].find("mark"), std::string::npos) << (*forged)[0];
}

}  // namespace
}  // namespace arbiter::league
