// The acceptance tests of the house teams: bots/abalone/team.lua beats the baseline simple.lua in
// at least 95 of 100 seeded games in each colour order (default Config and Runtime);
// lookahead.lua wins at least 60 of 100 games against team.lua (50 seeds, both colour orders).
// Each plays the same game byte for byte from the same seed, spawns its 14 pieces, and keeps to
// the rules of the sandbox while coordinating through `shared`, `cas` and a barrier.
#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "games/abalone/game.h"
#include "games/abalone/test_bots.h"

namespace arbiter::abalone {
namespace {

// The default Runtime: its watchdog confirms a slow step with the thread's CPU time, so the
// two match threads here on a loaded two-core machine (ctest -j2) do not make honest teams
// forfeit.
Runtime acceptance_runtime() {
  return Runtime{};
}

// Plays seeds first..last on `threads` threads (each match is single-threaded and independent)
// and returns the summaries in seed order.
std::vector<MatchSummary> play_seeds(const TeamProgram& black, const TeamProgram& white,
                                     std::uint64_t first, std::uint64_t last, int threads = 2) {
  std::vector<MatchSummary> out(last - first + 1);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < out.size(); i = next++) {
      out[i] = play_match(Config{}, acceptance_runtime(), first + i, black, white);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  return out;
}

// Checks that `team` won at least 95 of the games of seeds 1..100, with a useful message if not.
void expect_wins(const std::vector<MatchSummary>& games, Team team) {
  int wins = 0;
  std::string not_won;
  for (std::size_t i = 0; i < games.size(); ++i) {
    const MatchSummary& s = games[i];
    EXPECT_TRUE(s.failure[0].empty() && s.failure[1].empty())
        << "seed " << i + 1 << ": " << s.failure[0] << s.failure[1];
    if (s.result.winner == team) {
      ++wins;
    } else {
      not_won += ' ';
      not_won += std::to_string(i + 1);
    }
  }
  EXPECT_GE(wins, 95) << "seeds not won:" << not_won;
}

TEST(AbaloneTeam, BeatsSimpleAsBlack) {
  const TeamProgram team{"team", read_bot("team.lua")};
  const TeamProgram simple{"simple", read_bot("simple.lua")};
  ASSERT_FALSE(team.source.empty());
  ASSERT_FALSE(simple.source.empty());
  expect_wins(play_seeds(team, simple, 1, 100), Team::black);
}

TEST(AbaloneTeam, BeatsSimpleAsWhite) {
  const TeamProgram team{"team", read_bot("team.lua")};
  const TeamProgram simple{"simple", read_bot("simple.lua")};
  ASSERT_FALSE(team.source.empty());
  expect_wins(play_seeds(simple, team, 1, 100), Team::white);
}

struct Logged {
  MatchSummary summary;
  std::string log;
  std::vector<Json> events;
};

Logged play_logged(const std::string& black, const std::string& white, std::uint64_t seed) {
  Logged out;
  MatchEvents events;
  events.log = [&](const Json& e) {
    out.log += dump(e) + "\n";
    out.events.push_back(e);
  };
  out.summary =
      play_match(Config{}, acceptance_runtime(), seed, {"black", black}, {"white", white}, events);
  return out;
}

// Whether `word` occurs in `text` as a whole identifier (not inside a longer name).
bool has_word(const std::string& text, const std::string& word) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool start = at == 0 || !ident(text[at - 1]);
    const bool end = at + word.size() >= text.size() || !ident(text[at + word.size()]);
    if (start && end) return true;
  }
  return false;
}

// The Lua source without its `--` comments (team.lua has no "--" inside strings).
std::string strip_comments(const std::string& source) {
  std::string out;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) out += line.substr(0, line.find("--")) + "\n";
  return out;
}

// The house team in `file` against simple.lua from seed 42 in both colours: the same log twice,
// a win by score, 14 pieces, no piece ended but by being pushed off, and no forfeit.
void expect_a_well_kept_team(const std::string& file) {
  SCOPED_TRACE(file);
  const std::string team = read_bot(file);
  ASSERT_FALSE(team.empty());
  const std::string simple = read_bot("simple.lua");
  // The coordination the team is about, and nothing the sandbox forbids or that would make it
  // nondeterministic (`pairs` over string keys).
  for (const char* used : {"shared", "cas", "barrier", "wait_my_turn", "spawn"}) {
    EXPECT_TRUE(has_word(team, used)) << used;
  }
  EXPECT_NE(team.find("barrier.new("), std::string::npos);
  EXPECT_NE(team.find("barrier.wait("), std::string::npos);
  const std::string code = strip_comments(team);
  for (const char* forbidden :
       {"pairs", "next", "math.random", "io", "os", "debug", "package", "require", "load",
        "loadfile", "dofile", "collectgarbage", "coroutine"}) {
    EXPECT_FALSE(has_word(code, forbidden)) << forbidden;
  }

  for (const bool team_black : {true, false}) {
    SCOPED_TRACE(team_black ? "team plays black" : "team plays white");
    const Team side = team_black ? Team::black : Team::white;
    const std::string& black = team_black ? team : simple;
    const std::string& white = team_black ? simple : team;
    const Logged a = play_logged(black, white, 42);
    const Logged b = play_logged(black, white, 42);
    EXPECT_EQ(a.log, b.log);
    EXPECT_EQ(a.summary.result.winner, side);
    EXPECT_EQ(a.summary.result.reason, EndReason::winning_score);
    EXPECT_TRUE(a.summary.failure[0].empty() && a.summary.failure[1].empty());

    // The team's pieces: its main (PID 1 for black, 2 for white) and everything it spawned.
    std::set<int> own{team_black ? 1 : 2};
    int spawned = 0;
    for (const Json& e : a.events) {
      if (e.at("type") == "spawn" && own.contains(e.at("parent").get<int>())) {
        own.insert(e.at("pid").get<int>());
        ++spawned;
      }
    }
    EXPECT_EQ(spawned, 13);
    EXPECT_EQ(own.size(), 14u);
    // No piece of the team ever ended but by being pushed off (no error, return or overrun),
    // and the team never forfeited.
    for (const Json& e : a.events) {
      if (e.at("type") == "end_bot" && own.contains(e.at("pid").get<int>())) {
        EXPECT_EQ(e.at("why"), "pushed off") << dump(e);
      }
      EXPECT_NE(e.at("type"), "forfeit") << dump(e);
    }
  }
}

TEST(AbaloneTeam, ReplaysByteForByteSpawnsFourteenAndKeepsToTheRules) {
  expect_a_well_kept_team("team.lua");
}

// ---------------------------------------------------------------------------------------------
// lookahead.lua

TEST(AbaloneLookahead, ReplaysByteForByteSpawnsFourteenAndKeepsToTheRules) {
  expect_a_well_kept_team("lookahead.lua");
  // Against team too: the same log twice.
  const std::string lookahead = read_bot("lookahead.lua"), team = read_bot("team.lua");
  EXPECT_EQ(play_logged(lookahead, team, 7).log, play_logged(lookahead, team, 7).log);
  EXPECT_EQ(play_logged(team, lookahead, 7).log, play_logged(team, lookahead, 7).log);
}

TEST(AbaloneLookahead, WinsSixtyOfAHundredGamesAgainstTeam) {
  const TeamProgram lookahead{"lookahead", read_bot("lookahead.lua")};
  const TeamProgram team{"team", read_bot("team.lua")};
  ASSERT_FALSE(lookahead.source.empty());
  ASSERT_FALSE(team.source.empty());
  const auto as_black = play_seeds(lookahead, team, 1, 50);
  const auto as_white = play_seeds(team, lookahead, 1, 50);
  int wins = 0, draws = 0;
  for (const auto* games : {&as_black, &as_white}) {
    const Team side = games == &as_black ? Team::black : Team::white;
    for (const MatchSummary& s : *games) {
      EXPECT_TRUE(s.failure[0].empty() && s.failure[1].empty()) << s.failure[0] << s.failure[1];
      if (s.result.winner == side) ++wins;
      if (!s.result.winner) ++draws;
    }
  }
  std::printf("[lookahead] against team: %d wins, %d draws, %d losses of 100\n", wins, draws,
              100 - wins - draws);
  EXPECT_GE(wins, 60);
}

TEST(AbaloneLookahead, BeatsSimple) {
  const TeamProgram lookahead{"lookahead", read_bot("lookahead.lua")};
  const TeamProgram simple{"simple", read_bot("simple.lua")};
  int wins = 0;
  for (const MatchSummary& s : play_seeds(lookahead, simple, 1, 20))
    wins += s.result.winner == Team::black;
  for (const MatchSummary& s : play_seeds(simple, lookahead, 1, 20))
    wins += s.result.winner == Team::white;
  EXPECT_GE(wins, 38);
}

}  // namespace
}  // namespace arbiter::abalone
