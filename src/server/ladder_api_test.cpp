// The ladder API's contract (server/ladder_api.h) on a real store: shapes, errors, and what stays
// hidden: a match's seed and its bots' stderr while another rotation of its seed is still to be
// played, and stderr always unless the server was told to show it.
#include "server/ladder_api.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <limits>

#include "league/ladder.h"
#include "tournament/spec.h"
#include "tournament/store.h"
#include "tournament/worker.h"

namespace arbiter::server {
namespace {

class LadderApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/arbiter-ladder-api-XXXXXX";
    dir_ = mkdtemp(tmpl);
    auto store = tournament::open_store("sqlite:" + dir_ + "/s.db");
    ASSERT_TRUE(store) << store.error().message;
    store_ = std::move(*store);
    auto spec = tournament::new_tournament_spec();
    spec.name = "cup";
    spec.game = "battleship";
    spec.schedule = tournament::Schedule::ladder;
    spec.ladder = tournament::Ladder{2, {}, 10, league::encode_skill_params({})};
    spec.players = {{"a", "hunt"}, {"b", "random"}, {"c", "density"}};
    auto id = league::create_ladder(*store_, spec);
    ASSERT_TRUE(id) << id.error().message;
    id_ = *id;
    // One group: a and b in both seat orders, from one seed (jobs 0 and 1).
    auto loaded = tournament::load_spec(*store_, id_);
    ASSERT_TRUE(loaded);
    ASSERT_TRUE(store_->add_jobs(id_, {tournament::job(*loaded, 0, 0, {0, 1}, 0, 0),
                                       tournament::job(*loaded, 1, 0, {1, 0}, 0, 0)}));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Plays job `index` as a win for seat 0, with a line on stderr from each seat.
  void finish(std::int64_t index) {
    auto jobs = store_->claim("w", 1, std::chrono::seconds(60), id_);
    ASSERT_TRUE(jobs && jobs->size() == 1);
    ASSERT_EQ((*jobs)[0].index, index);
    const Json result{{"winners", {0}}, {"ejections", Json::array()}, {"scores", {17, 3}}};
    const auto& seats = (*jobs)[0].spec["seats"];
    const std::string names[] = {"a", "b", "c"};
    Json tails = Json::array();
    for (const Json& e : seats)
      tails.push_back({{"seat", names[e.get<int>()]},
                       {"bytes", 9},
                       {"tail", "secret of " + names[e.get<int>()]}});
    const std::string log = dump(Json{{"type", "match"}, {"seed", (*jobs)[0].spec["seed"]}}) +
                            "\n" +
                            dump(Json{{"type", "result"},
                                      {"winners", {0}},
                                      {"ejections", Json::array()},
                                      {"scores", {17, 3}}}) +
                            "\n";
    ASSERT_TRUE(store_->complete((*jobs)[0].id, "w", {result, log, 0.1, tails}));
    ASSERT_TRUE(league::rate_results(*store_, id_));
  }

  std::string dir_;
  std::unique_ptr<tournament::Store> store_;
  std::int64_t id_ = 0;
};

TEST_F(LadderApiTest, TheListAndTheLeaderboard) {
  LadderApi api(*store_, false);
  auto list = api.ladders();
  ASSERT_EQ(list.status, 200);
  ASSERT_EQ(list.body["ladders"].size(), 1u);
  EXPECT_EQ(list.body["ladders"][0]["name"], "cup");
  finish(0);
  auto board = api.ladder(id_);
  ASSERT_EQ(board.status, 200) << dump(board.body);
  ASSERT_EQ(board.body["rows"].size(), 3u);
  // The winner first, then the unplayed newcomer, then the loser (mu - 3 sigma).
  EXPECT_EQ(board.body["rows"][0]["name"], "a");
  EXPECT_EQ(board.body["rows"][1]["name"], "c");
  EXPECT_EQ(board.body["rows"][2]["name"], "b");
  EXPECT_EQ(board.body["rated"], 1);
  EXPECT_EQ(board.body["seats"], "2");
  EXPECT_EQ(api.ladder(id_ + 7).status, 404);
}

TEST_F(LadderApiTest, AHalfPlayedGroupKeepsItsSeedAndStderrUntilItsOtherRotationIsOver) {
  LadderApi api(*store_, true);
  finish(0);
  auto held = api.entrant(id_, 0);
  ASSERT_EQ(held.status, 200) << dump(held.body);
  ASSERT_EQ(held.body["recent"].size(), 1u);
  EXPECT_EQ(held.body["recent"][0]["held"], true);
  EXPECT_FALSE(held.body["recent"][0].contains("seed"));
  EXPECT_TRUE(held.body["stderr"].empty());
  finish(1);
  auto over = api.entrant(id_, 0);
  ASSERT_EQ(over.body["recent"].size(), 2u);
  EXPECT_EQ(over.body["recent"][0]["held"], false);
  EXPECT_TRUE(over.body["recent"][0].contains("seed"));
  // Its own stderr, never the other seat's.
  ASSERT_EQ(over.body["stderr"].size(), 2u);
  for (const Json& t : over.body["stderr"]) EXPECT_EQ(t["tail"], "secret of a");
  EXPECT_EQ(over.body["history"].size(), 2u);
  EXPECT_EQ(over.body["entrant"]["games"], 2);
}

TEST_F(LadderApiTest, StderrIsNotServedUnlessTheServerSaysSo) {
  LadderApi api(*store_, false);
  finish(0);
  finish(1);
  auto page = api.entrant(id_, 1);
  ASSERT_EQ(page.status, 200);
  EXPECT_FALSE(page.body.contains("stderr"));
  EXPECT_EQ(dump(page.body).find("secret"), std::string::npos);
}

TEST_F(LadderApiTest, HeadToHeadCountsTheirMeetings) {
  LadderApi api(*store_, false);
  finish(0);
  finish(1);
  auto duel = api.head_to_head(id_, 0, 1);
  ASSERT_EQ(duel.status, 200) << dump(duel.body);
  EXPECT_EQ(duel.body["meetings"], 2);
  EXPECT_EQ(duel.body["wins"], 1);  // a won as seat 0 of job 0, b as seat 0 of job 1
  EXPECT_EQ(duel.body["losses"], 1);
  EXPECT_EQ(api.head_to_head(id_, 0, 2).body["meetings"], 0);
  EXPECT_EQ(api.head_to_head(id_, 0, 0).status, 400);
  EXPECT_EQ(api.head_to_head(id_, 0, 9).status, 404);
  EXPECT_EQ(api.entrant(id_, -1).status, 404);
  EXPECT_EQ(api.entrant(id_ + 1, 0).status, 404);
}

TEST_F(LadderApiTest, TheTournamentRoutesNeverShowALaddersSeedNorItsStandings) {
  finish(0);
  finish(1);
  StoreApi plain(*store_);
  auto t = plain.tournament(id_);
  ASSERT_EQ(t.status, 200);
  EXPECT_TRUE(t.body["seed"].is_null());  // a ladder is never over
  EXPECT_EQ(plain.standings(id_).status, 404);
  MatchQuery huge;
  huge.offset = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(plain.matches(id_, huge).status, 400);
}

TEST_F(LadderApiTest, ATournamentIsNoLadder) {
  tournament::TournamentSpec t;
  t.name = "plain";
  t.game = "battleship";
  t.players = {{"x", "hunt"}, {"y", "random"}};
  auto id = tournament::create_tournament(*store_, t);
  ASSERT_TRUE(id);
  LadderApi api(*store_, false);
  EXPECT_EQ(api.ladder(*id).status, 404);
  EXPECT_EQ(api.ladders().body["ladders"].size(), 1u);
}

}  // namespace
}  // namespace arbiter::server
