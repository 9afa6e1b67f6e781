#include "referee/turn_based.h"

#include <sstream>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "core/interrupt.h"
#include "referee/replay.h"
#include "referee/toy_game_test.h"

namespace arbiter {
namespace {

using namespace std::chrono_literals;
using toy::Countdown;
using toy::Taker;

class Thrower : public Taker {
 public:
  explicit Thrower(std::string on) : on_(std::move(on)) {}
  void setup(const Countdown::View& v) override {
    if (on_ == "setup") throw std::runtime_error("boom");
    Taker::setup(v);
  }
  int take_turn(const Countdown::View& v) override {
    if (on_ == "take_turn") throw std::runtime_error("boom");
    if (on_ == "foul") return 5;
    if (on_ == "hang") {
      hang_until_abandoned();
      return 1;
    }
    return Taker::take_turn(v);
  }
  void new_tiles(const Countdown::Hand& h) override {
    if (on_ == "new_tiles") throw std::runtime_error("boom");
    Taker::new_tiles(h);
  }
  void win(bool w) override {
    if (on_ == "win") throw std::runtime_error("boom");
    Taker::win(w);
  }

 private:
  std::string on_;
};

MatchResult play(std::vector<PlayerPtr<Countdown>> players, RefereeOptions options = {},
                 int stones = 10) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < players.size(); ++i) names.push_back("p" + std::to_string(i));
  return play_turn_based<Countdown>({static_cast<int>(players.size()), stones}, 7, names, players,
                                    options);
}

TEST(TurnReferee, PlaysToTheEndAndInformsEveryone) {
  auto a = std::make_shared<Taker>(3), b = std::make_shared<Taker>(1);
  const MatchResult r = play({a, b});
  // 10 -3-> 7 -1-> 6 -3-> 3 -1-> 2 -2-> 0: seat 0 takes the last stone.
  EXPECT_EQ(r.winners, Seats{0});
  EXPECT_TRUE(r.ejections.empty());
  EXPECT_EQ(a->setups, 1);
  EXPECT_EQ(b->setups, 1);
  EXPECT_EQ(a->received, 8);
  EXPECT_EQ(b->received, 2);
  EXPECT_EQ(a->won, true);
  EXPECT_EQ(b->won, false);
  EXPECT_EQ(r.scores, (std::vector<std::int64_t>{8, 2}));
}

TEST(TurnReferee, AnExceptionEjectsAndTheGameGoesOn) {
  auto bad = std::make_shared<Thrower>("take_turn");
  auto good = std::make_shared<Taker>(1);
  const MatchResult r = play({bad, good});
  EXPECT_EQ(r.winners, Seats{1});
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0], (Ejection{0, Why::exception, "take_turn", "boom"}));
  EXPECT_FALSE(bad->won.has_value());  // ejected players are not told the outcome
}

TEST(TurnReferee, AFoulEjectsWithTheRuleItBroke) {
  const MatchResult r = play({std::make_shared<Taker>(1), std::make_shared<Thrower>("foul")});
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0].why, Why::foul);
  EXPECT_EQ(r.ejections[0].detail, "bad-count: take 1 to 3");
  EXPECT_EQ(r.winners, Seats{0});
}

TEST(TurnReferee, AHangingPlayerIsEjectedAtTheDeadline) {
  RefereeOptions options;
  options.per_call = 50ms;
  const MatchResult r =
      play({std::make_shared<Thrower>("hang"), std::make_shared<Taker>(2)}, options);
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0].why, Why::timeout);
  EXPECT_EQ(r.winners, Seats{1});
}

// Takes one stone per turn after "thinking" for `think` of the referee's virtual clock.
class Thinker : public Taker {
 public:
  Thinker(ManualClock& clock, Duration think, Duration setup_think = {})
      : Taker(1), clock_(clock), think_(think), setup_think_(setup_think) {}
  void setup(const Countdown::View& v) override {
    clock_.advance(setup_think_);
    Taker::setup(v);
  }
  int take_turn(const Countdown::View& v) override {
    clock_.advance(think_);
    told.push_back(call_clock() != nullptr ? call_clock()->remaining : Duration(-1));
    return Taker::take_turn(v);
  }
  std::vector<Duration> told;

 private:
  ManualClock& clock_;
  Duration think_;
  Duration setup_think_;
};

// Options for a match in the virtual time of `clock`, calls made inline, recorded in `log` if
// given.
RefereeOptions virtual_time(ManualClock& clock, GameLog* log = nullptr) {
  RefereeOptions options;
  options.clock = &clock;
  options.isolation = Isolation::inline_call;
  options.log = log;
  return options;
}

TEST(TurnReferee, AClockedSeatThatSpendsItsBankIsEjectedInVirtualTime) {
  ManualClock clock;
  std::ostringstream text;
  GameLog log(&text, /*keep=*/true);
  RefereeOptions options = virtual_time(clock, &log);
  options.time_control = TimeControl{1000ms, 100ms, 0ms};
  auto thinker = std::make_shared<Thinker>(clock, 350ms);
  auto quick = std::make_shared<Taker>(1);
  const MatchResult r = play({thinker, quick}, options);
  // 1000 -350 +100 = 750 -350 +100 = 500 -350 +100 = 250: the 4th move may take 250 ms only.
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0],
            (Ejection{0, Why::time_bank, "take_turn", "its clock ran out: 250 ms left in its bank"}));
  EXPECT_EQ(to_string(Why::time_bank), "time-bank-exhausted");
  EXPECT_EQ(r.winners, Seats{1});
  EXPECT_EQ(thinker->told, (std::vector<Duration>{1000ms, 750ms, 500ms, 250ms}));
  // The log has the clock in the header and each call's bank as it started.
  EXPECT_EQ(log.lines()[0]["clock"], "1s+100ms");
  std::vector<std::int64_t> banks;
  for (const Json& line : log.lines())
    if (line.value("type", "") == "call" && line["seat"] == 0 && line["call"] == "take_turn")
      banks.push_back(line["clock_us"].get<std::int64_t>());
  EXPECT_EQ(banks, (std::vector<std::int64_t>{1'000'000, 750'000, 500'000, 250'000}));
  // The recorded match replays identically (the verdict is the recorded one).
  auto report = replay<Countdown>(log.lines());
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->identical) << report->difference;
}

TEST(TurnReferee, TheFirstCallsGraceIsNotDrawnFromTheBank) {
  ManualClock clock;
  RefereeOptions options = virtual_time(clock);
  options.time_control = TimeControl{1000ms, 0ms, 500ms};
  // Setup is the first call: it may take 1500 ms and its first 500 ms are free: 1000 - 700 =
  // 300 left. Moves are later calls and draw fully: 300 - 200 = 100, then 100 < 200: out.
  auto thinker = std::make_shared<Thinker>(clock, 200ms, 1200ms);
  const MatchResult r = play({thinker, std::make_shared<Taker>(1)}, options, 20);
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0].why, Why::time_bank);
  EXPECT_EQ(r.ejections[0].call, "take_turn");
  EXPECT_EQ(thinker->told, (std::vector<Duration>{300ms, 100ms}));
}

TEST(TurnReferee, ADelayIsFreeInEveryCallAndTheBankIsTheOverage) {
  ManualClock clock;
  RefereeOptions options = virtual_time(clock);
  // Kaggle's rule: every call's own allowance is free, the bank is the overage.
  // 1 s of every call is free and 500 ms of overage: moves of 1150 ms draw 150 ms each,
  // 500 -> 350 -> 200 -> 50, and then 1050 ms is not enough.
  options.time_control = TimeControl{500ms, 0ms, 0ms, 1000ms};
  auto thinker = std::make_shared<Thinker>(clock, 1150ms);
  const MatchResult r = play({thinker, std::make_shared<Taker>(1)}, options, 20);
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0].why, Why::time_bank);
  EXPECT_EQ(r.ejections[0].detail, "its clock ran out: 50 ms left in its bank and 1000 ms of grace");
  EXPECT_EQ(thinker->told, (std::vector<Duration>{500ms, 350ms, 200ms, 50ms}));
}

TEST(TurnReferee, EachSeatMayHaveItsOwnLimitsAndTheLogAndReplayKeepThem) {
  ManualClock clock;
  std::ostringstream text;
  GameLog log(&text, /*keep=*/true);
  RefereeOptions options = virtual_time(clock, &log);
  options.per_call = 1000ms;
  // Both think 300 ms a move. Seat 0 has a clock of its own (1 s + 0): 1000 -> 700 -> 400 ->
  // 100, then out; seat 1 has only a per-call limit of its own, 500 ms, which it never reaches.
  options.seat_time_control = {TimeControl{1000ms, 0ms, 0ms}, std::nullopt};
  options.seat_per_call = {std::nullopt, 500ms};
  auto slow = std::make_shared<Thinker>(clock, 300ms);
  auto also_slow = std::make_shared<Thinker>(clock, 300ms);
  const MatchResult r = play({slow, also_slow}, options, 30);
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0].seat, 0);
  EXPECT_EQ(r.ejections[0].why, Why::time_bank);
  EXPECT_EQ(slow->told, (std::vector<Duration>{1000ms, 700ms, 400ms, 100ms}));
  EXPECT_EQ(also_slow->told.front(), Duration(-1));  // seat 1 plays unclocked
  EXPECT_EQ(r.winners, Seats{1});
  const Json& header = log.lines()[0];
  EXPECT_FALSE(header.contains("clock"));
  EXPECT_EQ(header["seat_limits"],
            (Json::array({{{"per_call_ms", 1000}, {"clock", "1s+0s"}}, {{"per_call_ms", 500}}})));
  auto report = replay<Countdown>(log.lines());
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->identical) << report->difference;
  // A recorded answer slower than the seat's own limit cannot be replayed as valid.
  auto lines = log.lines();
  for (Json& line : lines)
    if (line.value("type", "") == "call" && line["seat"] == 1 && line["call"] == "take_turn") {
      line["elapsed_us"] = 700'000;  // within the common 1 s, past seat 1's own 500 ms
      break;
    }
  auto edited = replay<Countdown>(lines);
  EXPECT_TRUE(!edited || !edited->identical);
  // A match whose seats share the limits has no seat_limits.
  RefereeOptions same = options;
  same.seat_time_control.clear();
  same.seat_per_call = {1000ms, std::nullopt};
  GameLog plain(nullptr, /*keep=*/true);
  same.log = &plain;
  play({std::make_shared<Taker>(1), std::make_shared<Taker>(2)}, same);
  EXPECT_FALSE(plain.lines()[0].contains("seat_limits"));
}

TEST(TurnReferee, AnUnclockedMatchTellsNoClock) {
  ManualClock clock;
  RefereeOptions options = virtual_time(clock);
  auto thinker = std::make_shared<Thinker>(clock, 1ms);
  play({thinker, std::make_shared<Taker>(1)}, options);
  ASSERT_FALSE(thinker->told.empty());
  EXPECT_EQ(thinker->told.front(), Duration(-1));
}

TEST(TurnReferee, FailuresInEveryCallAreEjectionsInOrder) {
  auto setup = std::make_shared<Thrower>("setup");
  auto tiles = std::make_shared<Thrower>("new_tiles");
  auto good = std::make_shared<Taker>(1);
  const MatchResult r = play({setup, tiles, good});
  ASSERT_EQ(r.ejections.size(), 2u);
  EXPECT_EQ(r.ejections[0].call, "setup");
  EXPECT_EQ(r.ejections[0].seat, 0);
  EXPECT_EQ(r.ejections[1].call, "new_tiles");
  EXPECT_EQ(r.ejections[1].seat, 1);
  EXPECT_EQ(r.winners, Seats{2});
}

TEST(TurnReferee, AWinnerWhoseWinCallFailsIsNoWinner) {
  const MatchResult r = play({std::make_shared<Thrower>("win"), std::make_shared<Taker>(1)}, {}, 1);
  EXPECT_TRUE(r.winners.empty());
  ASSERT_EQ(r.ejections.size(), 1u);
  EXPECT_EQ(r.ejections[0].call, "win");
}

TEST(TurnReferee, EveryoneEjectedMeansNoWinners) {
  const MatchResult r =
      play({std::make_shared<Thrower>("setup"), std::make_shared<Thrower>("take_turn")});
  EXPECT_TRUE(r.winners.empty());
  EXPECT_EQ(r.ejections.size(), 2u);
}

TEST(TurnReferee, TheTurnLimitAbortsARunawayGame) {
  RefereeOptions options;
  options.max_turns = 2;
  const MatchResult r = play({std::make_shared<Taker>(1), std::make_shared<Taker>(1)}, options);
  EXPECT_TRUE(r.aborted);
  EXPECT_TRUE(r.winners.empty());
}

std::vector<Json> recorded_match() {
  GameLog log(nullptr, /*keep=*/true);
  RefereeOptions options;
  options.log = &log;
  play({std::make_shared<Taker>(3), std::make_shared<Thrower>("foul"), std::make_shared<Taker>(2)},
       options);
  return log.lines();
}

TEST(Replay, ARecordedMatchReplaysIdentically) {
  const auto log = recorded_match();
  ASSERT_GE(log.size(), 5u);
  EXPECT_EQ(log.front()["type"], "match");
  EXPECT_EQ(log.back()["type"], "result");
  auto report = replay<Countdown>(log);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->identical) << report->difference;
  // 10 -3-> 7, seat 1 fouls and is out, -2-> 5 -3-> 2 -2-> 0: seat 2 takes the last stone.
  EXPECT_EQ(report->result.winners, Seats{2});
}

TEST(Replay, RecordedTimeoutsAndExceptionsReplay) {
  GameLog log(nullptr, true);
  RefereeOptions options;
  options.log = &log;
  options.per_call = 30ms;
  play({std::make_shared<Thrower>("hang"), std::make_shared<Thrower>("new_tiles"),
        std::make_shared<Taker>(1)},
       options);
  auto report = replay<Countdown>(log.lines());
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->identical) << report->difference;
  EXPECT_EQ(report->result.ejections.size(), 2u);
}

TEST(Replay, ATamperedLogIsCaught) {
  auto log = recorded_match();
  for (auto& line : log)
    if (line["type"] == "call" && line["call"] == "take_turn" && line["seat"] == 0) {
      line["reply"] = 1;  // seat 0 took 3 stones, not 1
      break;
    }
  auto report = replay<Countdown>(log);
  ASSERT_TRUE(report);
  EXPECT_FALSE(report->identical);
  EXPECT_FALSE(report->difference.empty());
}

TEST(Replay, RejectsAnotherGamesLog) {
  auto log = recorded_match();
  log[0]["game"] = "chess";
  EXPECT_FALSE(replay<Countdown>(log));
}

// Spends CPU in its moves (half the time computing, half waiting), until given up.
class Dawdler : public Taker {
 public:
  explicit Dawdler(bool computes) : computes_(computes) {}
  int take_turn(const Countdown::View&) override {
    while (!call_abandoned()) {
      if (computes_) {
        const Duration until = thread_cpu_time() + 2ms;
        while (thread_cpu_time() < until && !call_abandoned()) {
        }
      }
      std::this_thread::sleep_for(2ms);
    }
    return 1;
  }

 private:
  bool computes_;
};

// A host whose load the test sets.
class SetLoad final : public HostLoad {
 public:
  explicit SetLoad(double pressure) : pressure_(pressure) {}
  std::optional<LoadReading> over_last(Duration) const override {
    return LoadReading{.pressure = pressure_};
  }

 private:
  double pressure_;
};

TEST(TurnReferee, ATimeoutOfASeatKeptFromACpuOnABusyHostIsTheHosts) {
  const SetLoad busy(0.8), calm(0.0);
  RefereeOptions options;
  options.per_call = 60ms;
  options.host_load = &busy;
  const MatchResult under =
      play({std::make_shared<Dawdler>(true), std::make_shared<Taker>(1)}, options);
  ASSERT_EQ(under.ejections.size(), 1u);
  EXPECT_EQ(under.ejections[0].why, Why::timeout_under_load);
  EXPECT_NE(under.ejections[0].detail.find("CPU pressure 80 %"), std::string::npos)
      << under.ejections[0].detail;
  // The same on a calm host, and a seat that was not computing (it sleeps) on a busy one, are
  // ordinary timeouts.
  options.host_load = &calm;
  const MatchResult alone =
      play({std::make_shared<Dawdler>(true), std::make_shared<Taker>(1)}, options);
  ASSERT_EQ(alone.ejections.size(), 1u);
  EXPECT_EQ(alone.ejections[0].why, Why::timeout);
  options.host_load = &busy;
  const MatchResult idle =
      play({std::make_shared<Dawdler>(false), std::make_shared<Taker>(1)}, options);
  ASSERT_EQ(idle.ejections.size(), 1u);
  EXPECT_EQ(idle.ejections[0].why, Why::timeout);
}

TEST(Replay, AMatchJudgedOnCpuTimeReplaysAndItsCpuTimeIsChecked) {
  std::ostringstream text;
  GameLog log(&text);
  RefereeOptions options;
  options.per_call = 500ms;
  options.limit_by = LimitBy::cpu;
  options.backstop = 2;
  options.log = &log;
  play({std::make_shared<Taker>(2), std::make_shared<Taker>(1)}, options);
  auto lines = read_game_log(text.str());
  ASSERT_TRUE(lines);
  EXPECT_EQ((*lines)[0]["limit_by"], "cpu");
  EXPECT_EQ((*lines)[0]["backstop"], 2.0);
  ASSERT_TRUE((*lines)[1].contains("cpu_us"));
  auto same = replay<Countdown>(*lines);
  ASSERT_TRUE(same);
  EXPECT_TRUE(same->identical) << same->difference;
  // An answer recorded with more CPU time than its limit did not happen so.
  (*lines)[1]["cpu_us"] = 600'000;
  auto forged = replay<Countdown>(*lines);
  ASSERT_TRUE(forged);
  EXPECT_FALSE(forged->identical);
  EXPECT_NE(forged->difference.find("CPU time"), std::string::npos) << forged->difference;
  // Its wall time may pass the limit, up to the backstop.
  (*lines)[1]["cpu_us"] = 1000;
  (*lines)[1]["elapsed_us"] = 900'000;
  auto slow = replay<Countdown>(*lines);
  ASSERT_TRUE(slow);
  EXPECT_TRUE(slow->identical) << slow->difference;
  // A call without cpu_us was held to the limit on the wall clock, as the referee holds a seat
  // it cannot measure: no backstop for it.
  (*lines)[1].erase("cpu_us");
  auto unmeasured = replay<Countdown>(*lines);
  ASSERT_TRUE(unmeasured);
  EXPECT_FALSE(unmeasured->identical);
  EXPECT_NE(unmeasured->difference.find("per-call limit"), std::string::npos)
      << unmeasured->difference;
  (*lines)[1]["cpu_us"] = 1000;
  (*lines)[1]["elapsed_us"] = 1'200'000;
  auto too_slow = replay<Countdown>(*lines);
  ASSERT_TRUE(too_slow);
  EXPECT_FALSE(too_slow->identical);
  EXPECT_NE(too_slow->difference.find("backstop"), std::string::npos) << too_slow->difference;
}

}  // namespace
}  // namespace arbiter
