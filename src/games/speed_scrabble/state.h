// Speed Scrabble's rules (docs/games/speed_scrabble.md §1): the deal, entitlement to tiles through
// the distributor, validation of submitted boards against the tiles really dealt, the first full
// board wins, stalls and time limits, ejection of players that break the message limits.
// Pure: time arrives as an argument (durations since the start of play), and the dictionary is
// loaded by the host and handed in with the config.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/foul.h"
#include "core/realtime.h"
#include "core/rng.h"
#include "core/seat.h"
#include "core/standings.h"
#include "games/speed_scrabble/distributor.h"
#include "games/speed_scrabble/words.h"

namespace arbiter::speed_scrabble {

inline constexpr int kMinPlayers = 2;
inline constexpr int kMaxPlayers = 8;

// The 144-tile Bananagrams bag and the 98 lettered Scrabble tiles, as letter counts A..Z.
std::string bag_letters(std::string_view bag);  // "bananagrams" or "scrabble"; empty if unknown

struct Config {
  int players = 2;
  int hand = 15;  // tiles dealt to each player, in order
  int start = 7;  // tiles each player holds from the start
  std::string bag = "bananagrams";
  std::string dictionary = "scowl-70";  // scowl-SIZE, or a word-list file's path
  double stall_seconds = 30;            // no valid submission for this long ends the game
  double max_seconds = 300;             // no game lasts longer
  int max_invalid = 100;                // invalid boards a player may send; one more ejects it
  int max_rate = 200;                   // messages a second; more ejects
  int max_bytes = 65536;                // bytes in one message; more ejects
  // The loaded dictionary named by `dictionary` (not on the wire; the host resolves the name).
  std::shared_ptr<const Dictionary> words;

  friend bool operator==(const Config& a, const Config& b) {
    return a.players == b.players && a.hand == b.hand && a.start == b.start && a.bag == b.bag &&
           a.dictionary == b.dictionary && a.stall_seconds == b.stall_seconds &&
           a.max_seconds == b.max_seconds && a.max_invalid == b.max_invalid &&
           a.max_rate == b.max_rate && a.max_bytes == b.max_bytes;
  }
};

// What a seat is told at setup: the config and its first `start` tiles.
struct View {
  Config config;
  Tiles tiles;
  friend bool operator==(const View&, const View&) = default;
};

// A player's message: a board it submits.
using Message = Board;

// What the referee pushes: tiles just unlocked for this seat, or the verdict on a submission.
struct Notice {
  enum class Kind { new_tiles, verdict } kind = Kind::new_tiles;
  Tiles tiles;          // new_tiles: in ordinal order
  int k = 0;            // verdict: the number of letters on the judged board
  std::string verdict;  // verdict: "accepted", or the reason
  friend bool operator==(const Notice&, const Notice&) = default;
};

// When a seat's valid boards first reached each size.
struct Milestone {
  int k = 0;
  Duration at{};
  friend bool operator==(const Milestone&, const Milestone&) = default;
};

class State {
 public:
  // Deals `hand` tiles to each of config.players seats from the shuffled bag. REQUIRES: a valid
  // config (decode_config's checks) with `words` set.
  static State start(const Config& config, Rng& rng);

  Seats seats() const;
  View view(Seat p) const;
  Reaction<Notice> receive(Seat p, const Message& board, Duration at);
  Reaction<Notice> tick(Duration at);
  Duration deadline() const;
  bool over() const { return over_; }
  void eject(Seat p);
  Standings standings() const;

  const Config& config() const { return config_; }
  const std::vector<Tiles>& dealt() const { return dealt_; }
  // Shared with in-process house bots, which read their tiles from their own threads.
  std::shared_ptr<const Distributor> distributor() const { return distributor_; }
  // Per seat, in order: the sizes its valid boards reached and when.
  const std::vector<std::vector<Milestone>>& timeline() const { return timeline_; }
  // How the game ended: "won", "stalled", "time limit", "everyone out", or "" while running.
  const std::string& ending() const { return ending_; }

 private:
  void finish(std::string why);
  Notice verdict(int k, std::string text) const;

  Config config_;
  std::vector<Tiles> dealt_;
  std::shared_ptr<Distributor> distributor_;
  std::vector<bool> in_;
  std::vector<int> best_;  // the largest valid board per seat (0: none yet)
  std::vector<std::vector<Milestone>> timeline_;
  std::vector<int> invalid_;
  Duration last_valid_{};
  bool over_ = false;
  std::optional<Seat> winner_;
  std::string ending_;
};

}  // namespace arbiter::speed_scrabble
