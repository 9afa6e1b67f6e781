// Whole matches between Lua teams: determinism, bots that die, teams that cannot play.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "games/abalone/game.h"
#include "games/abalone/test_bots.h"

namespace arbiter::abalone {
namespace {

struct Played {
  MatchSummary summary;
  std::string log;
  std::vector<std::string> gui;
};

Played play(const std::string& black, const std::string& white, std::uint64_t seed,
            int game_length = 2000) {
  Config config;
  config.game_length = game_length;
  Played out;
  MatchEvents events;
  events.log = [&](const Json& e) { out.log += dump(e) + "\n"; };
  events.frame = [&](const Json& frame) {
    for (const auto& line : frame.at("gui")) out.gui.push_back(line.get<std::string>());
  };
  out.summary = play_match(config, Runtime{}, seed, {"black", black}, {"white", white}, events);
  return out;
}

TEST(AbaloneMatch, SimpleTeamsSpawnPlayAndReplayByteForByte) {
  const std::string simple = read_bot("simple.lua");
  ASSERT_FALSE(simple.empty());
  const Played a = play(simple, simple, 7);
  const Played b = play(simple, simple, 7);
  EXPECT_EQ(a.log, b.log);
  EXPECT_EQ(a.gui, b.gui);
  EXPECT_TRUE(a.summary.result.over);
  EXPECT_EQ(a.summary.cycles, 2000);
  EXPECT_GT(a.summary.pieces[0], 6) << "black spawned: " << a.summary.pieces[0];
  EXPECT_GT(a.summary.pieces[1], 6);
  EXPECT_NE(a.log.find("\"type\":\"resolution\""), std::string::npos);
  EXPECT_NE(play(simple, simple, 8).log, a.log);  // another seed, another game
  EXPECT_EQ(a.gui.front().rfind("set ", 0), 0u);
}

TEST(AbaloneMatch, ABotThatErrsOrReturnsDiesAndTheEnemyScores) {
  const std::string idle = "return function() while true do wait_turn() end end";
  const Played erring = play("return function() error('boom') end", idle, 1, 100);
  EXPECT_EQ(erring.summary.scores[1], 1);
  EXPECT_EQ(erring.summary.pieces[0], 0);
  EXPECT_NE(erring.log.find("boom"), std::string::npos);
  const Played returning = play(idle, "return function() return end", 1, 100);
  EXPECT_EQ(returning.summary.scores[0], 1);
  EXPECT_EQ(returning.summary.result.winner, Team::black);
}

TEST(AbaloneMatch, ATeamThatDoesNotLoadForfeits) {
  const std::string idle = "return function() while true do wait_turn() end end";
  const Played broken = play("this is not lua", idle, 1, 100);
  EXPECT_EQ(broken.summary.result.reason, EndReason::forfeit);
  EXPECT_EQ(broken.summary.result.winner, Team::white);
  EXPECT_FALSE(broken.summary.failure[0].empty());
  const Played no_main = play(idle, "return 42", 1, 100);
  EXPECT_EQ(no_main.summary.result.winner, Team::black);
}

TEST(AbaloneMatch, ATeamThatExhaustsItsMemoryForfeitsAndTheOtherIsUnaffected) {
  const std::string idle = "return function() while true do wait_turn() end end";
  const std::string hog =
      "return function() local t = {} local i = 0 while true do i = i + 1 "
      "t[i] = string.rep('x', 1000) .. i end end";
  const Played p = play(idle, hog, 1, 20000);
  EXPECT_EQ(p.summary.result.reason, EndReason::forfeit);
  EXPECT_EQ(p.summary.result.winner, Team::black);
  EXPECT_NE(p.summary.failure[1].find("memory"), std::string::npos);
}

TEST(AbaloneMatch, WaitingBotsUseNoBudgetAndWakeAfterResolutions) {
  // Black counts how often it woke from wait_turn: once per resolution, 100 cycles / 20 = 5.
  const std::string counter =
      "return function() local n = 0 while true do wait_turn() n = n + 1 talk('woke ' .. n) end end";
  const std::string idle = "return function() while true do wait_my_turn() end end";
  const Played p = play(counter, idle, 1, 100);
  EXPECT_NE(p.log.find("woke 4"), std::string::npos);
  EXPECT_EQ(p.log.find("woke 6"), std::string::npos);
}

}  // namespace
}  // namespace arbiter::abalone
