// Two entrants compared the way engine testers compare two versions of a program (fastchess,
// cutechess-cli): the Elo difference with its 95 % interval, the likelihood of superiority, the
// draw ratio, the pentanomial counts over pairs of matches with swapped seats, and the
// sequential probability ratio test that stops a run once it knows the answer. Pure functions;
// docs/ratings.md gives every formula.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "tournament/spec.h"
#include "tournament/store.h"

namespace arbiter::tournament {

// Single games from the first entrant's side.
struct Trinomial {
  std::int64_t losses = 0;
  std::int64_t draws = 0;
  std::int64_t wins = 0;
  std::int64_t games() const { return losses + draws + wins; }
};

// Pairs of games, by the first entrant's points in the pair in half points: [0] LL, [1] LD,
// [2] DD or WL, [3] WD, [4] WW.
using Pentanomial = std::array<std::int64_t, 5>;

// An Elo difference and its 95 % interval. Where every game (or pair) was won, `elo` and `high`
// are +inf and `low` the exact one-sided bound (Clopper-Pearson: the chance of a full score is at
// least 0.025^(1/N)); every one lost, the mirror image.
struct EloDifference {
  double elo = 0;
  double low = 0;
  double high = 0;
};

// The expected score of a side `elo` points stronger: 1 / (1 + 10^(-elo/400)); and back
// (score 0: -inf, score 1: +inf). REQUIRES: score in [0, 1].
double elo_to_score(double elo);
double score_to_elo(double score);

// From the mean score per game and its standard error (normal approximation). A run without
// games gives 0 in (-inf, +inf).
EloDifference trinomial_elo(const Trinomial& t);
// The same over pairs: each pair's score is its points / 2; the error comes from the spread of
// the pair scores, so luck that the pairing cancels does not widen the interval.
EloDifference pentanomial_elo(const Pentanomial& p);

// Likelihood of superiority: the probability that the first entrant is the stronger, from wins
// and losses alone: 0.5 (1 + erf((W - L) / sqrt(2 (W + L)))); 0.5 without decisive games.
double likelihood_of_superiority(const Trinomial& t);

// The SPRT's log-likelihood ratio of H1 (elo1) against H0 (elo0) by the normal approximation of
// the generalized SPRT: N/2 ((s - s0)^2 - (s - s1)^2) / var, where N, s and var are the
// count, mean and variance of the outcomes after adding a weak prior of a quarter of an outcome
// in each category (so that a run of identical outcomes does not decide on its first one), and
// s0, s1 the expected scores at elo0 and elo1. `outcomes[i]` counts outcomes worth
// i / (size - 1): three for single games, five for pairs. REQUIRES: 2 <= size.
double sprt_llr(const std::vector<std::int64_t>& outcomes, double elo0, double elo1);

// Wald's bounds: accept H0 at or below log(beta / (1 - alpha)), H1 at or above
// log((1 - beta) / alpha).
struct SprtBounds {
  double lower = 0;
  double upper = 0;
};
SprtBounds sprt_bounds(double alpha, double beta);

enum class SprtVerdict { undecided, h0, h1 };

struct SprtState {
  SprtVerdict verdict = SprtVerdict::undecided;
  double llr = 0;                    // at the decision, or over everything counted so far
  SprtBounds bounds;
  std::int64_t counted = 0;          // pairs (pentanomial) or games (trinomial) it counted
  std::int64_t void_units = 0;       // pairs or games skipped: an error or damage in them
};

// The SPRT's walk through its units in order (pairs by id when pentanomial, single matches by
// index when trinomial), resumable: it stops at the first unit whose matches are not all stored
// and goes on from there when given more rows, so a worker need not read the whole tournament
// after every match. A unit with a match that records an error or is damaged (row_damage) is
// void; a row whose job spec cannot be read counts as match index / 2's pair.
class SprtWalk {
 public:
  explicit SprtWalk(const TournamentSpec& spec);  // REQUIRES: spec.sprt, two entrants, two seats
  // Rows of the tournament with index >= next_index() (more are ignored; any order).
  void advance(const std::vector<StoredResult>& rows);
  std::int64_t next_index() const;  // the first match index it still needs
  const SprtState& state() const { return state_; }

 private:
  TournamentSpec spec_;
  SprtState state_;
  std::vector<std::int64_t> outcomes_;
  std::int64_t next_unit_ = 0;
};

struct HeadToHead {
  Trinomial games;                   // every counted match, first entrant's side
  Pentanomial pairs{};               // every pair whose matches all finished
  std::int64_t incomplete_pairs = 0; // pairs with a match missing, failed or damaged
  std::optional<SprtState> sprt;     // when the spec has one
};

// The comparison of spec.players[0] with spec.players[1] in a two-entrant, two-seat tournament
// (nothing otherwise). The SPRT goes through pairs (or, trinomial, matches) in order and stops at
// the first whose prefix has every result stored, so its verdict depends on the results alone,
// never on the order in which workers stored them: the same run decides at the same pair however
// many workers play it. Rows that record an error or are damaged (row_damage) void their unit.
std::optional<HeadToHead> head_to_head(const TournamentSpec& spec,
                                       const std::vector<StoredResult>& results);

std::string sprt_verdict_name(SprtVerdict v);  // "undecided", "H0 accepted", "H1 accepted"

// Text for people (a few lines) and JSON.
std::string head_to_head_text(const TournamentSpec& spec, const HeadToHead& h);
Json head_to_head_json(const TournamentSpec& spec, const HeadToHead& h);

}  // namespace arbiter::tournament
