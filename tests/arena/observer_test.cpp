// The observer hook (referee/observer.h) in every referee style: an observer attached to a match's
// GameLog receives every line the log records, in order, for a turn-based (Q, Battleship), a
// real-time (Speed Scrabble, the Dominosa race) and a lockstep (Concurrent Abalone) match, and
// the lockstep match's frames (what the Abalone GUI stream draws) when it wants them.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "arena/registry.h"
#include "arena/seating.h"
#include "referee/game_log.h"

namespace arbiter {
namespace {

class Recorder final : public MatchObserver {
 public:
  explicit Recorder(bool frames) : frames_(frames) {}
  void on_line(const Json& line) override { lines.push_back(line); }
  void on_frame(const Json& frame) override { frames.push_back(frame); }
  bool wants_frames() const override { return frames_; }

  std::vector<Json> lines;
  std::vector<Json> frames;

 private:
  bool frames_;
};

struct Watched {
  std::vector<Json> logged;  // what the log wrote, read back
  Recorder recorder;
  PlayOutcome outcome;
};

Watched watch(const std::string& game, std::vector<Seating> roster, std::uint64_t seed,
              Json config = Json(), bool frames = false) {
  const GameEntry* entry = find_game(game);
  EXPECT_NE(entry, nullptr) << game;
  std::ostringstream out;
  GameLog log(&out);
  Watched w{{}, Recorder(frames), {}};
  log.watch(w.recorder);
  PlaySpec spec;
  spec.roster = std::move(roster);
  spec.seed = seed;
  spec.config = std::move(config);
  spec.options.log = &log;
  auto outcome = play_match(*entry, spec);
  EXPECT_TRUE(outcome.has_value()) << (outcome ? "" : outcome.error().message);
  if (outcome) w.outcome = std::move(*outcome);
  auto read = read_game_log(out.str());
  EXPECT_TRUE(read.has_value());
  if (read) w.logged = std::move(*read);
  return w;
}

// Every line the log wrote reached the observer, the same and in the same order, from the
// header to the result.
void expect_every_line(const Watched& w, const std::string& style) {
  ASSERT_GE(w.logged.size(), 3u) << style;
  ASSERT_EQ(w.recorder.lines.size(), w.logged.size()) << style;
  for (std::size_t i = 0; i < w.logged.size(); ++i)
    EXPECT_EQ(w.recorder.lines[i], w.logged[i]) << style << " line " << i;
  EXPECT_EQ(string_or(w.recorder.lines.front(), "type"), "match") << style;
  EXPECT_EQ(string_or(w.recorder.lines.back(), "type"), "result") << style;
}

TEST(Observer, SeesEveryLineOfATurnBasedMatch) {
  auto q = watch("q", {{"a", "dag"}, {"b", "ldasg+raise=take-turn"}}, 3);
  expect_every_line(q, "turn-based q");
  EXPECT_EQ(q.outcome.result.ejections.size(), 1u);
  EXPECT_TRUE(q.recorder.frames.empty());
  auto b = watch("battleship", {{"a", "density"}, {"b", "hunt"}}, 4);
  expect_every_line(b, "turn-based battleship");
}

TEST(Observer, SeesEveryLineOfARealtimeMatch) {
  auto s = watch("speed_scrabble", {{"a", "solver"}, {"b", "solver"}}, 5);
  expect_every_line(s, "real-time speed_scrabble");
  auto d = watch("dominosa", {{"a", "solver"}, {"b", "slow=0.05"}}, 6, Json{{"n", 4}});
  expect_every_line(d, "real-time dominosa");
}

TEST(Observer, SeesEveryLineAndFrameOfALockstepMatch) {
  auto a = watch("abalone", {{"a", "team"}, {"b", "simple"}}, 7, Json{{"game_length", 300}},
                 /*frames=*/true);
  expect_every_line(a, "lockstep abalone");
  ASSERT_FALSE(a.recorder.frames.empty());
  // The first frame is the whole board (61 hexes and both scores); later ones are changes.
  const Json& first = a.recorder.frames.front();
  EXPECT_EQ(int_or(first, "cycle", -1), 0);
  EXPECT_GE(first.at("gui").size(), 63u);
  std::int64_t last_cycle = -1;
  for (const Json& f : a.recorder.frames) {
    EXPECT_EQ(string_or(f, "type"), "frame");
    EXPECT_GT(int_or(f, "cycle", -1), last_cycle);
    last_cycle = int_or(f, "cycle", -1);
    EXPECT_FALSE(f.at("gui").empty());
  }
  // Frames are not part of the log.
  for (const Json& line : a.logged) EXPECT_NE(string_or(line, "type"), "frame");
}

TEST(Observer, AnObserverThatWantsNoFramesGetsNone) {
  auto a = watch("abalone", {{"a", "simple"}, {"b", "simple"}}, 8, Json{{"game_length", 100}});
  expect_every_line(a, "lockstep abalone");
  EXPECT_TRUE(a.recorder.frames.empty());
}

}  // namespace
}  // namespace arbiter
