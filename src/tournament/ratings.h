// Ratings of a tournament's entrants from its match results: Elo by maximum likelihood with
// confidence intervals, and Glicko-2 updated one rating period (tournament round) at a time.
// Pure functions of their arguments; docs/ratings.md explains the models and their parameters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace arbiter::tournament {

// One entrant's finish in one match: a lower place is better; equal places are a tie.
struct Finish {
  std::size_t entrant = 0;
  int place = 0;
};

// One match: any number of entrants, each at most once. A match with fewer than two entrants
// holds no games and is ignored.
using MatchFinish = std::vector<Finish>;

// One pairwise game of a match: `score` is a's result against b (1 win, 0.5 draw, 0 loss).
struct PairGame {
  std::size_t a = 0;
  std::size_t b = 0;
  double score = 0;
};

// The multiplayer decomposition both ratings use: every pair of entrants in the match is one
// game, won by the better place and drawn on equal places, so k entrants give k(k-1)/2 games.
// Pairs come in the match's order (a listed before b). Throws std::invalid_argument if an
// entrant appears twice.
std::vector<PairGame> pairwise_games(const MatchFinish& match);

// ---- Elo by maximum likelihood ---------------------------------------------------------------

struct EloParams {
  // Weak prior: every entrant with games also played this many virtual draws against a
  // virtual opponent rated at the mean (0). It keeps perfect records and comparison graphs in
  // several pieces finite. 0 turns it off: then the plain maximum-likelihood estimate must
  // exist (see elo_ratings). REQUIRES: finite and >= 0.
  double prior_draws = 1.0;
};

// elo: the rating; [low, high]: its 95% confidence interval; games: the entrant's real pairwise
// games (virtual draws not counted).
struct EloRating {
  double elo = 0;
  double low = 0;
  double high = 0;
  std::int64_t games = 0;
};

// Bradley-Terry on the pairwise games of all matches (pairwise_games), on the Elo scale: a
// difference of d points means an expected score of 1 / (1 + 10^(-d/400)). The ratings of the
// entrants with games are the (penalized) maximum-likelihood estimate under the constraint that
// they sum to 0; entrants without games are rated 0, so the mean of all entrants is 0. The
// interval is elo +- 1.96 standard errors from the inverse Fisher information (virtual draws
// counted as data) under the same constraint; entrants without games get the prior alone
// (+-681 / sqrt(prior_draws) points) or, with the prior off, (-inf, +inf).
// Result index = entrant. Solved by damped Newton to ~1e-8 points; O(n^3) time per iteration
// for n entrants with games, fine for a few hundred, seconds beyond a thousand.
// Throws std::invalid_argument for an entrant >= `entrants`, one entrant twice in a match, or
// bad params; with prior_draws == 0 throws std::domain_error when the estimate does not exist:
// some group of the entrants with games never scored (a win or a draw) against the others.
std::vector<EloRating> elo_ratings(std::size_t entrants, const std::vector<MatchFinish>& matches,
                                   const EloParams& params = {});

// ---- Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013) ----------------------------

struct GlickoRating {
  double rating = 1500;
  double rd = 350;  // rating deviation
  double volatility = 0.06;
};

// Starting values for everyone, and tau, the system constant that limits how fast volatility
// changes (the paper suggests 0.3 to 1.2). REQUIRES: rd >= 0, volatility > 0, tau > 0, finite.
struct GlickoParams {
  double rating = 1500;
  double rd = 350;
  double volatility = 0.06;
  double tau = 0.5;
};

struct GlickoGame {
  GlickoRating opponent;  // as of the start of the rating period
  double score = 0;       // 1 win, 0.5 draw, 0 loss; REQUIRES: within [0, 1]
};

// One player's update over one rating period (steps 2-8 of the paper). Without games only the
// RD grows (step 6): rd' = sqrt(rd^2 + (173.7178 volatility)^2). The volatility iteration stops
// at the paper's epsilon, 1e-6. Throws std::invalid_argument when a REQUIRES above fails.
GlickoRating glicko2_update(const GlickoRating& player, const std::vector<GlickoGame>& games,
                            double tau);

// Everyone starts at `params`; then each period, in order, updates every entrant at once from
// the ratings at the period's start. A match counts as one game against each other entrant in
// it (pairwise_games), so a k-entrant match gives each entrant k-1 games; an entrant who meets
// another in two matches of a period plays two games. Entrants without games in a period only
// get the step 6 RD increase. Result index = entrant. Throws std::invalid_argument as
// elo_ratings does for malformed matches, and for bad params.
std::vector<GlickoRating> glicko2_ratings(std::size_t entrants,
                                          const std::vector<std::vector<MatchFinish>>& periods,
                                          const GlickoParams& params = {});

}  // namespace arbiter::tournament
