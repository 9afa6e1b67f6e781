// The world of Concurrent Abalone (docs/games/abalone.md §2-3): the pieces, the scores and the
// rules that change them (spawning, committing, resolution, bots ending, the end of the game),
// plus the queries behind the bot API of §4. Pure: no Lua, threads, I/O or clock; the only
// randomness is the Rng handed to spawn. Cycles and turns belong to the host's scheduler, which
// calls resolve() every CYCLES_PER_TURN cycles and at_game_end() after GAME_LENGTH cycles.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/rng.h"
#include "core/standings.h"
#include "games/abalone/board.h"

namespace arbiter::abalone {

enum class Team { black, white };
inline constexpr std::array<Team, 2> kTeams{Team::black, Team::white};

constexpr Team enemy_of(Team t) {
  return t == Team::black ? Team::white : Team::black;
}
// 0 for black, 1 for white: the team's seat and its slot in per-team arrays.
constexpr std::size_t team_index(Team t) {
  return t == Team::black ? 0 : 1;
}
std::string_view team_name(Team t);  // "black", "white"
std::optional<Team> team_from_name(std::string_view name);

// The team resolved at resolution number `turn_index` (0 = the first): black first, then
// alternating (§3 Scheduling).
constexpr Team resolving_team(std::int64_t turn_index) {
  return turn_index % 2 == 0 ? Team::black : Team::white;
}

// §2's constants that the world uses (STEP_BUDGET and ACTION_COST belong to the bot runtime).
struct Config {
  int winning_score = 6;
  int max_pieces = 14;       // live pieces per team
  int cycles_per_turn = 20;  // for the scheduler; the world only carries it
  int game_length = 20'000;  // cycles; likewise
  Hex black_start{-3, -1};   // B-1
  Hex white_start{3, 1};     // H1
  friend bool operator==(const Config&, const Config&) = default;
};

// {"winning_score", "max_pieces", "cycles_per_turn", "game_length", "black_start",
// "white_start"}, every key optional (the default above), starts as hex names (`B-1`, `~` also
// accepted). Ranges: winning_score 1..1000, max_pieces 1..30, cycles_per_turn 1..1e6,
// game_length 1..1e9, starts on the board and distinct. Unknown keys are an error.
Json encode_config(const Config& c);
Expected<Config> decode_config(const Json& j);

// PIDs are global and increase in creation order (§3); the first is 1.
using Pid = int;

struct Piece {
  Pid pid = 0;
  Team team = Team::black;
  Hex hex;
  Dir dir = kNoDir;  // the committed move, kNoDir when none
  friend bool operator==(const Piece&, const Piece&) = default;
};

// §2's object codes; the numeric values are the bot API's T_EMPTY .. T_OFFBOARD.
enum class ObjectCode : int { empty = 1, piece = 2, opiece = 3, offboard = 4 };

struct MyStat {  // mystat() -> r, d, dir
  int r = 0;
  int d = 0;
  Dir dir = kNoDir;
  friend bool operator==(const MyStat&, const MyStat&) = default;
};

struct TeamStat {  // one half of teamstat() -> pc, s, ns, pco, so, nso
  int pieces = 0;  // live pieces
  int score = 0;
  int spawns_left = 0;  // max_pieces - pieces while the team may still spawn, else 0
  friend bool operator==(const TeamStat&, const TeamStat&) = default;
};

// What one chain did during a resolution.
struct ChainMove {
  Dir dir = kNoDir;
  std::vector<Pid> chain;  // the chain's pieces, tail first, head last
  Hex head;                // the head's hex before the move
  bool legal = false;
  std::vector<Pid> pushed;    // enemies pushed (legal moves only), nearest first
  std::optional<Pid> killed;  // the pushed enemy that left the board (the mover scored)
  friend bool operator==(const ChainMove&, const ChainMove&) = default;
};

// What resolve(team) did, chain by chain in the order they were taken.
struct Resolution {
  Team team = Team::black;
  std::vector<ChainMove> chains;
  std::vector<Pid> killed() const;  // the pieces that left the board: the host ends their bots
  friend bool operator==(const Resolution&, const Resolution&) = default;
};

enum class EndReason {
  none,           // not over
  winning_score,  // a team reached WINNING_SCORE (§3)
  higher_score,   // GAME_LENGTH reached: the higher score won
  more_pieces,    // GAME_LENGTH reached, equal scores: more pieces left won
  draw,           // GAME_LENGTH reached, equal scores and pieces
  forfeit,        // the loser's runtime failed as a whole (§5: out of memory, watchdog)
};
std::string_view end_reason_name(EndReason r);

struct Result {
  bool over = false;
  std::optional<Team> winner;  // empty while not over, and for a draw
  EndReason reason = EndReason::none;
  friend bool operator==(const Result&, const Result&) = default;
};

class World {
 public:
  // The start of §3: one piece per team at its start hex, black's (PID 1) then white's (PID 2).
  // Both teams may spawn until their first resolution. REQUIRES: config as decode_config checks.
  static World start(const Config& config);

  // A world holding exactly `pieces` (any PIDs, commitments as given) and `scores`, both teams
  // still allowed to spawn, not over; the next new PID is one above the largest. For tests and
  // for positions set up from outside. Fails (one line) on a PID outside 1..1e9 or repeated, a hex
  // off the board or taken twice, a dir outside 0..6, more than max_pieces pieces in a team, or a
  // score outside 0..winning_score-1.
  static Expected<World> from_pieces(const Config& config, std::vector<Piece> pieces,
                                     std::array<int, 2> scores = {0, 0});

  // ---- Changes. Once over(), the world is frozen: each of these does nothing. ----

  // §3 spawn: a new piece of the spawner's team, committed to nothing, on an empty neighbour of
  // the spawner drawn uniformly with rng.below among the empty neighbours in direction order
  // 1..6. Returns its PID, or nothing (and draws nothing) when the spawner is not a live piece,
  // no neighbour is empty, the team's first resolution has happened, or the team already has
  // max_pieces live pieces.
  std::optional<Pid> spawn(Pid spawner, Rng& rng);

  // §3 commit: records pid's move (0 clears it). False, changing nothing, when pid is not a live
  // piece or dir is outside 0..6; whether that is the bot's error is the bot API's decision.
  bool commit(Pid pid, std::int64_t dir);

  // §3 Resolution of `team`'s committed moves: repeatedly the lowest-PID piece of the team with
  // a committed move, the largest chain through it along its direction (pieces of the team in a
  // contiguous line, all committed to that direction), judged on H1..H3 in front of the head;
  // legal moves move the chain and push the enemies in front, an enemy pushed off the board dies
  // and the team scores; every judged chain's commitments are cleared. Stops at once when the
  // team reaches winning_score. Closes the team's spawning window (§3: its first turn has ended).
  // Enemy commitments, including those of pushed pieces, are untouched.
  Resolution resolve(Team team);

  // pid's bot ended (error, return, ejection): the piece leaves the board and the enemy team
  // scores 1 (§3 Scoring). Returns the removed piece, or nothing when pid was not a live piece.
  std::optional<Piece> kill(Pid pid);

  // §5: `team` forfeits (its runtime failed as a whole): the enemy wins.
  void forfeit(Team team);

  // §3 after GAME_LENGTH cycles: the higher score wins; equal scores, more pieces left wins;
  // else a draw.
  void at_game_end();

  // ---- Queries. ----

  const Config& config() const { return config_; }
  // Live pieces in PID order.
  const std::vector<Piece>& pieces() const { return pieces_; }
  // The live piece `pid`, or null. The pointer is invalidated by any change.
  const Piece* find(Pid pid) const;
  bool alive(Pid pid) const { return find(pid) != nullptr; }
  // The PID on hex h, or nothing (also when h is off the board).
  std::optional<Pid> at(Hex h) const;
  Pid next_pid() const { return next_pid_; }

  int score(Team t) const { return scores_[team_index(t)]; }
  int piece_count(Team t) const;
  // Whether `team`'s first resolution has not happened yet (the spawning window of §3).
  bool may_spawn(Team t) const { return !turn_ended_[team_index(t)]; }

  // The bot API of §4, from the point of view of the asking piece or team. Each REQUIRES
  // alive(pid) where it takes a pid.
  MyStat mystat(Pid pid) const;
  TeamStat teamstat(Team t) const;  // call for the own team, then enemy_of(own)
  ObjectCode inspect(Team asker, std::int64_t r, std::int64_t d) const;
  // From the nearest hex outward, ending with offboard (so never empty for a move dir); empty
  // when dir is not 1..6.
  std::vector<ObjectCode> look(Pid pid, std::int64_t dir) const;
  std::array<ObjectCode, kDirCount> scan(Pid pid) const;  // directions 1..6

  const Result& result() const { return result_; }
  bool over() const { return result_.over; }
  // Seat 0 = black, seat 1 = white; scores = the teams' scores; a draw lists both as winners.
  // Empty winners and losers while not over.
  Standings standings() const;

  friend bool operator==(const World&, const World&) = default;

 private:
  World() = default;
  Piece* find_mutable(Pid pid);
  Pid& cell(Hex h) { return cells_[static_cast<std::size_t>(cell_index(h))]; }
  Pid cell(Hex h) const { return cells_[static_cast<std::size_t>(cell_index(h))]; }
  void place(Piece& p, Hex to);  // moves p to the empty hex `to`
  // Removes the live piece `pid` from the board and the list.
  void remove(Pid pid);
  // Adds a point for `t`; reaching winning_score ends the game.
  void award(Team t);
  // The chain through p along its committed direction, tail first.
  std::vector<Pid> chain_through(const Piece& p) const;
  // Judges and (if legal) performs the move of `chain` (tail first), clearing its commitments.
  ChainMove resolve_chain(std::vector<Pid> chain);

  Config config_;
  std::vector<Piece> pieces_;            // live, ascending PID
  std::array<Pid, kCellCount> cells_{};  // occupant per cell_index, 0 = empty
  std::array<int, 2> scores_{0, 0};
  std::array<bool, 2> turn_ended_{false, false};  // the team's first resolution happened
  Pid next_pid_ = 1;
  Result result_;
};

// The world as JSON for logs and §8's View (the host adds turn and cycle):
// {"pieces": [{"pid", "team", "hex", "r", "d", "dir"}, ...] in PID order,
//  "scores": {"black", "white"}, "may_spawn": {"black", "white"}, "result": {...} when over}.
// Deterministic: the same world always gives the same bytes under dump().
Json encode_world(const World& w);
Json encode_resolution(const Resolution& r);

// A picture of the board for logs and test failures: rows I (top) to A, each hex `.` or the
// team letter and committed direction (`b3`, `w0`), then a line with the scores.
std::string render(const World& w);

}  // namespace arbiter::abalone
