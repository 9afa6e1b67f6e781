// Standings of a tournament from its stored results: how each match finished, points, wins,
// ejections, Elo with a confidence interval and Glicko-2, as a text table, CSV and JSON.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tournament/latency.h"
#include "tournament/ratings.h"
#include "tournament/spec.h"
#include "tournament/store.h"

namespace arbiter::tournament {

// How a stored match finished, one Finish per seat in seat order: winners take place 0; the
// others follow, those still in the game by score (higher is better), then the ejected, the
// later ejected ahead. Nothing for a result that records an error (the match could not be
// played) or does not fit its job.
std::optional<MatchFinish> match_finish(const Json& job_spec, const Json& result);

// Points per seat of a finish: the share of opponents beaten, ties counting half, so every
// match hands out seats-1 ... in all (a two-player match: 1 to the winner, or 0.5 each).
std::vector<double> finish_points(const MatchFinish& finish);

struct StandingsRow {
  std::string name;
  std::string bot;
  std::int64_t matches = 0;
  std::int64_t wins = 0;       // matches in which it was among the winners
  std::int64_t ejections = 0;  // matches in which it was ejected
  std::map<std::string, std::int64_t> ejected_for;  // those by reason (core/ejection.h's names)
  double points = 0;           // sum of finish_points
  double mean_score = 0;       // the game's score, averaged over its matches
  EloRating elo;
  GlickoRating glicko;
  LatencySummary latency;   // its calls' response times (tournament/latency.h)
  std::int64_t voided = 0;  // plays voided for its timeouts under load (and played again)
};

struct StandingsTable {
  std::vector<StandingsRow> rows;  // best first: by points, then Elo
  std::int64_t matches = 0;        // results counted
  std::int64_t errors = 0;         // results that record an error instead of a match
  std::int64_t damaged = 0;        // rows that cannot be believed (row_damage), left out
  std::int64_t voided = 0;         // plays voided for a timeout under load and played again
  bool cpu_judged = false;         // limits judged on CPU time (limit_share is of CPU time)
};

// Why a stored row cannot be counted for the tournament `spec`: its damage (store.h), or it
// seats an entrant the tournament lacks. Empty when it can.
std::string row_damage(const TournamentSpec& spec, const StoredResult& row);

// Damaged rows (row_damage) are left out and counted in `damaged`, never as matches or errors.
// REQUIRES: results belong to a tournament played from `spec`.
StandingsTable compute_standings(const TournamentSpec& spec, const std::vector<StoredResult>& results);

std::string standings_text(const StandingsTable& s);  // an aligned table for people
std::string standings_csv(const StandingsTable& s);
Json standings_json(const StandingsTable& s);

// Each entrant's points against each other one, from the pairwise games of every counted match
// (ratings.h: pairwise_games; a two-seat match is one game, a win 1 point, a tie 0.5).
struct CrosstableCell {
  double points = 0;
  std::int64_t games = 0;
};
struct Crosstable {
  std::vector<std::string> names;                   // in the order of the standings rows
  std::vector<std::vector<CrosstableCell>> cells;   // [i][j]: names[i] against names[j]
};

// Damaged and unplayed rows are left out, as in compute_standings. `order`: the standings of
// the same results (their row order is kept).
Crosstable compute_crosstable(const TournamentSpec& spec, const std::vector<StoredResult>& results,
                              const StandingsTable& order);
std::string crosstable_text(const Crosstable& c);  // "points/games" cells, aligned
std::string crosstable_csv(const Crosstable& c);   // one line per ordered pair
Json crosstable_json(const Crosstable& c);

// One line per match: index, round, pair, seed, seating, winners, scores, ejections and the
// `arbiter play` command that replays it. A damaged row has no outcome; its error column says
// "damaged: WHY".
std::string matches_csv(const TournamentSpec& spec, const std::vector<StoredResult>& results,
                        std::string_view store = "STORE");

// `arbiter play GAME --player P... --seed SEED [--config JSON] [--per-call S] [--clock C]
// [FLAGS...]`, each word quoted for a POSIX shell where needed (players are NAME:BOT; config
// null: left out; 6 s: left out; clock empty: left out; flags: further option words as they are,
// such as term_flags()).
std::string play_command(std::string_view game, const std::vector<std::string>& players,
                         std::uint64_t seed, const Json& config, double per_call_seconds,
                         std::string_view clock = {}, const std::vector<std::string>& flags = {});

// The `arbiter play` command that plays the match `job_spec` of `spec` again. Its programs get
// the seeds they had (--program-key) when `with_key`; without it (for spectators while the
// tournament runs: the key is secret until then) the deal is the same and the programs' seeds
// differ. A match of stored bots (bot:NAME@V) names the store they are in: `store` (a viewer,
// which keeps the store's URL to itself, leaves the word STORE for the reader to fill in).
std::string reproduce_command(const TournamentSpec& spec, const Json& job_spec,
                              bool with_key = true, std::string_view store = "STORE");

}  // namespace arbiter::tournament
