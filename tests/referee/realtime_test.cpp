// Tests for the real-time referee, driven with Speed Scrabble and a dictionary of every
// two-letter word, so that a "staircase" of any tiles (AB, then down BC, across CD, ...) is a
// valid board and test racers need no solver.
#include "referee/realtime.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "games/speed_scrabble/game.h"

namespace arbiter {
namespace {

using namespace std::chrono_literals;
using speed_scrabble::Board;
using speed_scrabble::Dictionary;
using speed_scrabble::SpeedScrabble;

std::shared_ptr<const Dictionary> pairs() {
  static const auto d = [] {
    std::vector<std::string> words;
    for (char a = 'a'; a <= 'z'; ++a)
      for (char b = 'a'; b <= 'z'; ++b) words.push_back({a, b});
    return std::make_shared<const Dictionary>(Dictionary::of(words, "pairs"));
  }();
  return d;
}

// Tiles laid out as a staircase: every run has two letters.
Board staircase(const std::string& tiles) {
  const int k = static_cast<int>(tiles.size());
  const int rows = k / 2 + 1, cols = (k + 1) / 2;
  Board b(rows, std::string(cols, '.'));
  for (int i = 0; i < k; ++i) b[(i + 1) / 2][i / 2] = tiles[i];
  return b;
}

// What a test racer may do wrong, besides playing.
enum class Behaviour { play, once, garbage, flood, invalid, silent };

class StairRacer final : public Racer {
 public:
  StairRacer(std::string name, Duration delay, Behaviour behaviour = Behaviour::play)
      : name_(std::move(name)), delay_(delay), behaviour_(behaviour) {}
  std::string name() override { return name_; }
  void race(Link& link) override {
    std::string tiles;
    for (;;) {
      auto m = link.receive(Deadline::after(SteadyClock::instance(), 10s));
      if (!m) return;
      const std::string kind = (*m)[0].get<std::string>();
      if (kind == "win") {
        won = (*m)[1][0].get<bool>();
        return;
      }
      if (kind == "verdict") {
        verdicts.push_back((*m)[1][1].get<std::string>());
        continue;
      }
      const Json& letters = kind == "setup" ? (*m)[1][1] : (*m)[1][0];
      for (const Json& l : letters) tiles += l.get<std::string>();
      std::this_thread::sleep_for(delay_);
      switch (behaviour_) {
        case Behaviour::play:
          link.send(SpeedScrabble::encode(staircase(tiles)));
          break;
        case Behaviour::garbage:
          link.send(Json("hello"));
          break;
        case Behaviour::flood:
          for (int i = 0; i < 500 && !link.closed(); ++i)
            link.send(SpeedScrabble::encode(Board{"Q"}));
          break;
        case Behaviour::invalid:
          for (int i = 0; i < 50 && !link.closed(); ++i)
            link.send(SpeedScrabble::encode(Board{"QQ", "Q."}));
          break;
        case Behaviour::once:
          if (kind == "setup") link.send(SpeedScrabble::encode(staircase(tiles)));
          break;
        case Behaviour::silent:
          break;
      }
    }
  }
  std::atomic<bool> won{false};
  std::vector<std::string> verdicts;

 private:
  std::string name_;
  Duration delay_;
  Behaviour behaviour_;
};

struct Match {
  SpeedScrabble::State state;
  std::vector<RealtimeSeat> seats;
  std::vector<std::shared_ptr<StairRacer>> racers;
  std::ostringstream text;
  GameLog log{&text, true};
};

std::unique_ptr<Match> make_match(std::vector<std::pair<Duration, Behaviour>> players,
                                  std::uint64_t seed, Json overrides = Json::object()) {
  overrides["players"] = players.size();
  auto config = SpeedScrabble::decode_config(overrides);
  EXPECT_TRUE(config) << config.error().message;
  config->words = pairs();
  Rng rng(seed);
  auto m = std::make_unique<Match>();  // in place: the log points at its text
  m->state = SpeedScrabble::start(*config, rng);
  Json names = Json::array();
  for (std::size_t p = 0; p < players.size(); ++p) {
    auto r =
        std::make_shared<StairRacer>(fmt::format("p{}", p), players[p].first, players[p].second);
    m->racers.push_back(r);
    m->seats.push_back({r->name(), nullptr, r, nullptr, nullptr, std::nullopt});
    names.push_back(r->name());
  }
  m->log.write({{"type", "match"},
                {"game", "speed_scrabble"},
                {"seed", seed},
                {"config", SpeedScrabble::encode(*config)},
                {"seats", names}});
  return m;
}

MatchResult run(Match& m, Json overrides = Json::object()) {
  RealtimeOptions options;
  options.log = &m.log;
  options.max_rate = static_cast<int>(int_or(overrides, "max_rate", 200));
  return run_realtime<SpeedScrabble>(m.state, m.seats, options);
}

void expect_replays(const Match& m, std::uint64_t seed) {
  auto config = SpeedScrabble::decode_config(m.log.lines()[0]["config"]);
  ASSERT_TRUE(config);
  config->words = pairs();
  Rng rng(seed);
  auto state = SpeedScrabble::start(*config, rng);
  const ReplayReport report = replay_realtime<SpeedScrabble>(state, m.log.lines());
  EXPECT_TRUE(report.identical) << report.difference;
  EXPECT_GT(report.calls, 0u);
}

TEST(Realtime, TheFasterRacerWinsAndEveryoneGetsEveryTile) {
  auto m = make_match({{0ms, Behaviour::play}, {30ms, Behaviour::play}}, 1);
  const MatchResult r = run(*m);
  EXPECT_EQ(r.winners, Seats{0});
  EXPECT_TRUE(r.ejections.empty());
  EXPECT_TRUE(m->racers[0]->won);
  EXPECT_FALSE(m->racers[1]->won);
  EXPECT_EQ(m->state.ending(), "won");
  // Seat 0 reached every size from 7 to 15, in order, at non-decreasing times.
  const auto& line = m->state.timeline()[0];
  ASSERT_EQ(line.size(), 9u);
  for (std::size_t i = 0; i < line.size(); ++i) EXPECT_EQ(line[i].k, 7 + static_cast<int>(i));
  for (std::size_t i = 1; i < line.size(); ++i) EXPECT_LE(line[i - 1].at, line[i].at);
  EXPECT_EQ(r.scores[0], 15);
  EXPECT_LT(r.scores[1], 15);
  expect_replays(*m, 1);
}

TEST(Realtime, ABatchOfNoticesGoesOutInADrawnSeatOrderEachSeatsInItsOwnOrder) {
  // A tile for everyone after seat 1's board: its verdict, then one tile per seat.
  const detail::Sends sends = {
      {1, Json("verdict")}, {0, Json("tile")}, {1, Json("tile")}, {2, Json("tile")}};
  Rng rng(7);
  int first[3] = {0, 0, 0};
  const int batches = 3000;
  for (int b = 0; b < batches; ++b) {
    const auto order = detail::sending_order(sends, rng);
    ASSERT_EQ(order.size(), sends.size());
    std::vector<std::size_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<std::size_t>{0, 1, 2, 3}));
    // Seat 1's verdict still comes before its tile, and its two messages stay together.
    const auto v = std::find(order.begin(), order.end(), 0u);
    ASSERT_NE(v + 1, order.end());
    EXPECT_EQ(*(v + 1), 2u);
    ++first[sends[order[0]].first];
  }
  // No seat is first by construction: each is first about a third of the time.
  for (int count : first) {
    EXPECT_GT(count, batches / 3 - 200);
    EXPECT_LT(count, batches / 3 + 200);
  }
}

TEST(Realtime, MessagesAreAppliedInTicketOrder) {
  auto m = make_match({{0ms, Behaviour::play}, {0ms, Behaviour::play}, {0ms, Behaviour::play}}, 2);
  run(*m);
  std::int64_t last_ticket = -1, last_at = -1;
  for (const Json& line : m->log.lines()) {
    if (line["type"] != "message") continue;
    EXPECT_GT(line["ticket"].get<std::int64_t>(), last_ticket);
    EXPECT_GE(line["at_us"].get<std::int64_t>(), last_at);
    last_ticket = line["ticket"];
    last_at = line["at_us"];
  }
  EXPECT_GE(last_ticket, 8);
  expect_replays(*m, 2);
}

TEST(Realtime, GarbageIsEjectedAndTheOthersFinish) {
  auto m = make_match({{0ms, Behaviour::garbage}, {5ms, Behaviour::play}}, 3);
  const MatchResult r = run(*m);
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0].seat, 0);
  EXPECT_EQ(r.ejections[0].why, Why::malformed);
  EXPECT_EQ(r.winners, Seats{1});
  expect_replays(*m, 3);
}

TEST(Realtime, AFloodIsEjected) {
  auto m = make_match({{0ms, Behaviour::flood}, {5ms, Behaviour::play}}, 4, {{"max_rate", 50}});
  const MatchResult r = run(*m, {{"max_rate", 50}});
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0].why, Why::foul);
  EXPECT_NE(r.ejections[0].detail.find("flood"), std::string::npos);
  EXPECT_EQ(r.winners, Seats{1});
  expect_replays(*m, 4);
}

TEST(Realtime, TooManyInvalidBoardsAreAFoulAndEachGetsAVerdict) {
  auto m =
      make_match({{0ms, Behaviour::invalid}, {20ms, Behaviour::play}}, 5, {{"max_invalid", 10}});
  const MatchResult r = run(*m);
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0].why, Why::foul);
  EXPECT_NE(r.ejections[0].detail.find("too-many-invalid"), std::string::npos);
  EXPECT_EQ(r.winners, Seats{1});
  int verdicts = 0;
  for (const Json& line : m->log.lines())
    verdicts += line["type"] == "notice" && line["seat"] == 0 && line["message"][0] == "verdict";
  EXPECT_EQ(verdicts, 11);
  expect_replays(*m, 5);
}

TEST(Realtime, AStallEndsTheGameAndTheLargestBoardWins) {
  // Seat 1 never submits; seat 0 submits its 7-board, so tile 8 unlocks, then goes silent.
  auto m =
      make_match({{0ms, Behaviour::once}, {0ms, Behaviour::silent}}, 6, {{"stall_seconds", 0.2}});
  const auto start = std::chrono::steady_clock::now();
  const MatchResult r = run(*m);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_EQ(m->state.ending(), "stalled");
  EXPECT_EQ(r.winners, Seats{0});  // the only valid board
  EXPECT_EQ(r.scores, (std::vector<std::int64_t>{7, 0}));
  expect_replays(*m, 6);
  // With nobody submitting anything, nobody wins.
  auto quiet = make_match({{0ms, Behaviour::silent}, {0ms, Behaviour::silent}}, 6,
                          {{"stall_seconds", 0.1}});
  EXPECT_TRUE(run(*quiet).winners.empty());
  EXPECT_EQ(quiet->state.ending(), "stalled");
}

TEST(Realtime, ASeatThatCouldNotStartIsOutAtOnce) {
  auto m = make_match({{0ms, Behaviour::play}, {0ms, Behaviour::play}}, 7);
  m->seats[1].racer = nullptr;
  m->seats[1].failed = Ejection{1, Why::hang_up, "setup", "cannot run \"nothing\""};
  const MatchResult r = run(*m);
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0].seat, 1);
  EXPECT_EQ(r.winners, Seats{0});
  expect_replays(*m, 7);
}

TEST(Realtime, ATamperedLogDoesNotReplay) {
  auto m = make_match({{0ms, Behaviour::play}, {10ms, Behaviour::play}}, 8);
  run(*m);
  std::vector<Json> lines = m->log.lines();
  for (Json& line : lines)
    if (line["type"] == "message") {
      line["seat"] = 1 - line["seat"].get<int>();
      break;
    }
  auto config = SpeedScrabble::decode_config(lines[0]["config"]);
  config->words = pairs();
  Rng rng(8);
  auto state = SpeedScrabble::start(*config, rng);
  EXPECT_FALSE(replay_realtime<SpeedScrabble>(state, lines).identical);
}

}  // namespace
}  // namespace arbiter
