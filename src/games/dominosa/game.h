// The Dominosa race (docs/games/dominosa.md §5, "The race"): a real-time game (core/realtime.h).
// The referee generates a unique puzzle from the match seed and sends it to every player; players
// submit solutions at any time; the first valid one wins. Wrong answers are answered with a
// reason and count toward ejection like Speed Scrabble's invalid boards.
//   referee to player  ["setup", [Puzzle]]   ["verdict", ["accepted" | Reason]]   ["win", [b]]
//   player to referee  ["submit", [Solution]]
// Puzzle as JSON ({"n", "grid"}), Solution as L/R/T/B letters (puzzle.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/json.h"
#include "core/realtime.h"
#include "core/rng.h"
#include "core/seat.h"
#include "core/standings.h"
#include "games/dominosa/puzzle.h"

namespace arbiter::dominosa {

struct RaceConfig {
  int players = 2;  // 1 to 8
  int n = 10;       // the puzzle's size
  Level level = Level::basic;
  double max_seconds = 300;  // then nobody wins
  int max_invalid = 20;      // wrong solutions a player may send; one more ejects it
  int max_rate = 50;         // messages a second
  int max_bytes = 1 << 20;   // bytes in one message
  friend bool operator==(const RaceConfig&, const RaceConfig&) = default;
};

struct RaceView {
  Puzzle puzzle;
  friend bool operator==(const RaceView&, const RaceView&) = default;
};

struct Verdict {
  std::string text;  // "accepted" or the reason
  friend bool operator==(const Verdict&, const Verdict&) = default;
};

class RaceState {
 public:
  // Generates the puzzle from the rng's next draw. REQUIRES: a config decode_race_config accepts.
  static RaceState start(const RaceConfig& config, Rng& rng);

  Seats seats() const;
  RaceView view(Seat p) const {
    (void)p;
    return {puzzle_};
  }
  Reaction<Verdict> receive(Seat p, const Solution& s, Duration at);
  Reaction<Verdict> tick(Duration at);
  Duration deadline() const;
  bool over() const { return over_; }
  void eject(Seat p);
  Standings standings() const;

  const Puzzle& puzzle() const { return puzzle_; }
  std::optional<Duration> solved_at() const { return solved_at_; }

 private:
  RaceConfig config_;
  Puzzle puzzle_;
  std::vector<bool> in_;
  std::vector<int> invalid_;
  std::optional<Seat> winner_;
  std::optional<Duration> solved_at_;
  bool over_ = false;
};

Json encode(const RaceConfig& c);
Expected<RaceConfig> decode_race_config(const Json& j);

struct DominosaRace {
  static constexpr std::string_view kName = "dominosa";
  static constexpr int kMinSeats = 1;
  static constexpr int kMaxSeats = 8;
  using Config = RaceConfig;
  using State = RaceState;
  using Message = Solution;
  using Notice = Verdict;
  using View = RaceView;

  static State start(const Config& c, Rng& rng) { return State::start(c, rng); }
  static Json encode(const Config& c) { return dominosa::encode(c); }
  static Json encode(const Message& s) { return Json::array({"submit", Json::array({s})}); }
  static Json encode(const Notice& n) { return Json::array({"verdict", Json::array({n.text})}); }
  static Json encode_setup(const View& v) {
    return Json::array({"setup", Json::array({to_json(v.puzzle)})});
  }
  static Expected<Config> decode_config(const Json& j) { return decode_race_config(j); }
  static Expected<Message> decode_message(const Json& j);
  static Expected<Notice> decode_notice(const Json& j);
  static Expected<View> decode_setup(const Json& j);
};

}  // namespace arbiter::dominosa
