// Tests of the ratings: worked examples computed by hand (in the comments), the paper's Glicko-2
// example, edge cases (perfect records, entrants without games, separate groups), and a seeded
// simulation that checks the Elo intervals cover the true ratings about 95% of the time.
#include "tournament/ratings.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter::tournament {
namespace {

constexpr double kEloPerNatural = 173.71779276130073;  // 400 / ln 10
constexpr double kZ95 = 1.959963984540054;
constexpr EloParams kNoPrior{.prior_draws = 0};

// `wins` matches a beats b and `losses` matches b beats a, as two-entrant finishes.
void add_games(std::vector<MatchFinish>& matches, std::size_t a, std::size_t b, int wins,
               int losses) {
  for (int i = 0; i < wins; ++i) matches.push_back({{a, 1}, {b, 2}});
  for (int i = 0; i < losses; ++i) matches.push_back({{a, 2}, {b, 1}});
}

void add_draws(std::vector<MatchFinish>& matches, std::size_t a, std::size_t b, int draws) {
  for (int i = 0; i < draws; ++i) matches.push_back({{a, 1}, {b, 1}});
}

// Uniform in [0, 1) from the raw bits, so the simulation is the same under every library.
double uniform(std::mt19937_64& gen) {
  return static_cast<double>(gen() >> 11) * 0x1.0p-53;
}

// ---- pairwise decomposition -------------------------------------------------------------------

TEST(PairwiseGames, MultiplayerFinishGivesEveryPair) {
  // Places 1, 2, 2, 4: the winner beats all three, the two seconds draw and both beat the last.
  const MatchFinish match{{7, 1}, {3, 2}, {5, 2}, {0, 4}};
  const std::vector<PairGame> games = pairwise_games(match);
  ASSERT_EQ(games.size(), 6u);  // 4 * 3 / 2
  const std::vector<PairGame> expected{{7, 3, 1},   {7, 5, 1}, {7, 0, 1},
                                       {3, 5, 0.5}, {3, 0, 1}, {5, 0, 1}};
  for (std::size_t i = 0; i < games.size(); ++i) {
    EXPECT_EQ(games[i].a, expected[i].a) << i;
    EXPECT_EQ(games[i].b, expected[i].b) << i;
    EXPECT_EQ(games[i].score, expected[i].score) << i;
  }
  const MatchFinish worse_first{{0, 3}, {1, 1}};
  ASSERT_EQ(pairwise_games(worse_first).size(), 1u);
  EXPECT_EQ(pairwise_games(worse_first)[0].score, 0.0);
  EXPECT_TRUE(pairwise_games({{4, 1}}).empty());
  EXPECT_TRUE(pairwise_games({}).empty());
}

TEST(PairwiseGames, RejectsAnEntrantTwice) {
  EXPECT_THROW(pairwise_games({{1, 1}, {2, 2}, {1, 3}}), std::invalid_argument);
}

// ---- Elo ---------------------------------------------------------------------------------------

TEST(Elo, TwoPlayersWorkedExample) {
  // 100 games, 75 won by entrant 0. The MLE sets the expected score to the observed one:
  // 1 / (1 + 10^(-d/400)) = 3/4, so d = 400 log10(3) = 190.8485 and the ratings are +-95.4243.
  // Fisher information of the difference in logits: n p (1 - p) = 100 * 3/16 = 18.75, so its
  // standard error is (400 / ln 10) / sqrt(18.75) = 40.1184 points and the 95% half-width is
  // 1.96 * 40.1184 = 78.6306. Under the mean-zero constraint each rating is +-d/2, so its
  // standard error is half of that: 20.0592, half-width 39.3153.
  std::vector<MatchFinish> matches;
  add_games(matches, 0, 1, 75, 25);
  const auto r = elo_ratings(2, matches, kNoPrior);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(r[0].elo - r[1].elo, 190.8485, 1e-4);
  EXPECT_NEAR(r[0].elo, 95.4243, 1e-4);
  EXPECT_NEAR(r[1].elo, -95.4243, 1e-4);
  EXPECT_NEAR(r[0].elo + r[1].elo, 0, 1e-9);
  for (const EloRating& e : r) {
    EXPECT_NEAR(e.high - e.elo, 39.3153, 1e-4);
    EXPECT_NEAR(e.elo - e.low, 39.3153, 1e-4);
    // Var(theta_0) = Var(d) / 4 = 1 / (4 * 18.75) = 1/75 logits^2.
    EXPECT_NEAR(e.high - e.elo, kZ95 * kEloPerNatural * std::sqrt(1.0 / 75), 1e-9);
    EXPECT_EQ(e.games, 100);
  }
  // The difference's half-width is twice each rating's, since the two move in lockstep.
  EXPECT_NEAR((r[0].high - r[0].low) + (r[1].high - r[1].low), 2 * 78.6306, 1e-3);
}

TEST(Elo, PriorShrinksTowardsTheMean) {
  // With one virtual draw each, the 75-25 record is pulled in a little, and never past 0.
  std::vector<MatchFinish> matches;
  add_games(matches, 0, 1, 75, 25);
  const auto r = elo_ratings(2, matches);
  EXPECT_LT(r[0].elo, 95.4243);
  EXPECT_GT(r[0].elo, 90);
  EXPECT_NEAR(r[0].elo, -r[1].elo, 1e-9);
}

TEST(Elo, TransitiveThreePlayersExact) {
  // Data chosen so that the MLE is exactly (ln 3, 0, -ln 3) logits = (+190.85, 0, -190.85):
  // then P(A>B) = P(B>C) = 3/4 and P(A>C) = sigmoid(2 ln 3) = 9/10, and every entrant's
  // expected score equals its observed score (the likelihood equations):
  //   A: 4 * 3/4 + 10 * 9/10 = 12 = 3 + 9;  B: 4 * 1/4 + 4 * 3/4 = 4 = 1 + 3;
  //   C: 4 * 1/4 + 10 * 1/10 = 2 = 1 + 1. The ratings also sum to 0.
  std::vector<MatchFinish> matches;
  add_games(matches, 0, 1, 3, 1);
  add_games(matches, 1, 2, 3, 1);
  add_games(matches, 0, 2, 9, 1);
  const auto r = elo_ratings(3, matches, kNoPrior);
  EXPECT_NEAR(r[0].elo, 190.8485, 1e-4);
  EXPECT_NEAR(r[1].elo, 0, 1e-4);
  EXPECT_NEAR(r[2].elo, -190.8485, 1e-4);
  EXPECT_EQ(r[0].games, 14);
  EXPECT_EQ(r[1].games, 8);
  EXPECT_EQ(r[2].games, 14);

  const auto p = elo_ratings(3, matches);  // the prior keeps the order
  EXPECT_GT(p[0].elo, p[1].elo);
  EXPECT_GT(p[1].elo, p[2].elo);
  EXPECT_NEAR(p[0].elo + p[1].elo + p[2].elo, 0, 1e-9);
}

TEST(Elo, DrawsOnlyRateEveryoneEqual) {
  std::vector<MatchFinish> matches;
  add_draws(matches, 0, 1, 5);
  add_draws(matches, 1, 2, 3);
  matches.push_back({{0, 2}, {1, 2}, {2, 2}});
  for (const EloParams& params : {EloParams{}, kNoPrior}) {
    const auto r = elo_ratings(3, matches, params);
    for (const EloRating& e : r) {
      EXPECT_NEAR(e.elo, 0, 1e-9);
      EXPECT_GT(e.high, 0);
      EXPECT_NEAR(e.low, -e.high, 1e-9);
    }
  }
}

TEST(Elo, SwappingEveryResultMirrorsTheRatings) {
  std::mt19937_64 gen(11);
  std::vector<MatchFinish> matches, mirrored;
  for (int i = 0; i < 300; ++i) {
    MatchFinish m, flipped;
    const std::size_t k = 2 + gen() % 3;
    for (std::size_t e = 0; e < 6 && m.size() < k; ++e) {
      if (gen() % 2 != 0) continue;
      const int place = static_cast<int>(gen() % 4);
      m.push_back({e, place});
      flipped.push_back({e, -place});
    }
    matches.push_back(m);
    mirrored.push_back(flipped);
  }
  for (const EloParams& params : {EloParams{}, kNoPrior}) {
    const auto a = elo_ratings(6, matches, params);
    const auto b = elo_ratings(6, mirrored, params);
    for (std::size_t e = 0; e < 6; ++e) {
      EXPECT_NEAR(a[e].elo, -b[e].elo, 1e-7);
      EXPECT_NEAR(a[e].low, -b[e].high, 1e-7);
      EXPECT_NEAR(a[e].high, -b[e].low, 1e-7);
      EXPECT_EQ(a[e].games, b[e].games);
    }
  }
}

TEST(Elo, MultiplayerMatchEqualsItsPairwiseGames) {
  // One 4-entrant finish (1, 2, 2, 4) counts exactly like its six two-entrant games.
  std::vector<MatchFinish> multi, pairs;
  for (int round = 0; round < 5; ++round) {
    multi.push_back({{0, 1}, {1, 2}, {2, 2}, {3, 4}});
    multi.push_back({{3, 1}, {0, 2}, {1, 3}, {2, 4}});
  }
  for (const MatchFinish& m : multi)
    for (const PairGame& g : pairwise_games(m)) {
      const int b_place = g.score == 1 ? 2 : g.score == 0 ? 0 : 1;
      pairs.push_back({{g.a, 1}, {g.b, b_place}});
    }
  ASSERT_EQ(pairs.size(), 60u);
  const auto a = elo_ratings(4, multi);
  const auto b = elo_ratings(4, pairs);
  for (std::size_t e = 0; e < 4; ++e) {
    EXPECT_EQ(a[e].games, 30);  // 10 matches, 3 opponents each
    EXPECT_EQ(b[e].games, 30);
    EXPECT_NEAR(a[e].elo, b[e].elo, 1e-9);
    EXPECT_NEAR(a[e].high, b[e].high, 1e-9);
  }
}

TEST(Elo, PerfectRecordStaysFinite) {
  // 10-0. With one virtual draw each the solution is symmetric, +-x logits, where the
  // likelihood equation of the winner is 10 (1 - sigmoid(2x)) = sigmoid(x) - 1/2 (real games'
  // shortfall = the virtual draw's surplus). Solving: x = 1.670839, i.e. +-290.254 points
  // (check: sigmoid(1.670839) - 0.5 = 0.34170, 10 (1 - sigmoid(3.341677)) = 0.34170).
  // Information along (1, -1)/sqrt 2: 2 * 10 p(1-p) at 2x plus the prior's sigmoid'(x):
  // 2 * 0.33004 + 0.13323 = 0.79331... so each rating's SE = sqrt(1 / (2 * 0.79331))
  // = 0.79392 logits = 137.917 points, half-width 270.312.
  std::vector<MatchFinish> matches;
  add_games(matches, 0, 1, 10, 0);
  const auto r = elo_ratings(2, matches);
  EXPECT_NEAR(r[0].elo, 290.254, 1e-3);
  EXPECT_NEAR(r[1].elo, -290.254, 1e-3);
  EXPECT_NEAR(r[0].high - r[0].elo, 270.312, 1e-3);
  const double x = r[0].elo / kEloPerNatural;
  const auto sigmoid = [](double t) { return 1 / (1 + std::exp(-t)); };
  EXPECT_NEAR(10 * (1 - sigmoid(2 * x)), sigmoid(x) - 0.5, 1e-9);

  // Without the prior there is no finite answer, and the function says so.
  EXPECT_THROW(elo_ratings(2, matches, kNoPrior), std::domain_error);
}

TEST(Elo, WeakPriorStillConverges) {
  // A far-off optimum (about +-12 logits) is reached through the damped steps, without NaN.
  std::vector<MatchFinish> matches;
  add_games(matches, 0, 1, 1000, 0);
  const auto r = elo_ratings(2, matches, {.prior_draws = 1e-6});
  EXPECT_TRUE(std::isfinite(r[0].elo) && std::isfinite(r[0].low) && std::isfinite(r[0].high));
  EXPECT_GT(r[0].elo, 1000);
  EXPECT_NEAR(r[0].elo, -r[1].elo, 1e-6);
}

TEST(Elo, EntrantWithoutGames) {
  // Entrant 2 never plays: rated at the mean, 0. With one virtual draw its only information is
  // 1/4 logit^-2, so its SE is 2 logits = 347.436 points and its half-width 680.961.
  // Without the prior nothing is known: the interval is the whole line.
  std::vector<MatchFinish> matches;
  add_games(matches, 0, 1, 3, 1);
  const auto r = elo_ratings(3, matches);
  EXPECT_EQ(r[2].elo, 0);
  EXPECT_EQ(r[2].games, 0);
  EXPECT_NEAR(r[2].high, 680.961, 1e-3);
  EXPECT_NEAR(r[2].low, -680.961, 1e-3);
  EXPECT_NEAR(r[0].elo + r[1].elo + r[2].elo, 0, 1e-9);

  const auto n = elo_ratings(3, matches, kNoPrior);
  EXPECT_EQ(n[2].elo, 0);
  EXPECT_EQ(n[2].low, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(n[2].high, std::numeric_limits<double>::infinity());
  // 3-1: d = 400 log10 3, as in the two-player example.
  EXPECT_NEAR(n[0].elo, 95.4243, 1e-4);
  EXPECT_TRUE(std::isfinite(n[0].low) && std::isfinite(n[0].high));
}

TEST(Elo, NoEntrantsNoMatches) {
  EXPECT_TRUE(elo_ratings(0, {}).empty());
  const auto r = elo_ratings(2, {{{0, 1}}, {}}, kNoPrior);  // no pairwise games at all
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].elo, 0);
  EXPECT_EQ(r[0].games, 0);
}

TEST(Elo, SeparateGroupsWithThePrior) {
  // {0, 1} and {2, 3} never meet. The prior ties the groups at the mean; each group's result
  // is the same 3-1, so the ratings are symmetric and sum to 0.
  std::vector<MatchFinish> matches;
  add_games(matches, 0, 1, 3, 1);
  add_games(matches, 2, 3, 3, 1);
  const auto r = elo_ratings(4, matches);
  EXPECT_NEAR(r[0].elo, r[2].elo, 1e-9);
  EXPECT_NEAR(r[1].elo, r[3].elo, 1e-9);
  EXPECT_NEAR(r[0].elo, -r[1].elo, 1e-9);
  EXPECT_GT(r[0].elo, 0);
  for (const EloRating& e : r) EXPECT_TRUE(std::isfinite(e.low) && std::isfinite(e.high));
  EXPECT_THROW(elo_ratings(4, matches, kNoPrior), std::domain_error);
}

TEST(Elo, RejectsBadInput) {
  EXPECT_THROW(elo_ratings(2, {{{0, 1}, {2, 2}}}), std::invalid_argument);
  EXPECT_THROW(elo_ratings(2, {{{0, 1}, {0, 2}}}), std::invalid_argument);
  EXPECT_THROW(elo_ratings(2, {}, {.prior_draws = -1}), std::invalid_argument);
  EXPECT_THROW(elo_ratings(2, {}, {.prior_draws = std::nan("")}), std::invalid_argument);
}

TEST(Elo, SimulationRecoversTrueRatingsWithinTheInterval) {
  // Four entrants with true ratings -150, -50, 50, 150 (mean 0) play a round robin of 200
  // games per pair, 300 times over. Each 95% interval should hold its true rating in about 95%
  // of the 1200 cases (binomial SD 0.6%), and the estimates should be unbiased within noise.
  const std::vector<double> truth{-150, -50, 50, 150};
  std::mt19937_64 gen(20240611);
  int covered = 0, total = 0;
  std::vector<double> mean_error(4, 0);
  constexpr int kTrials = 300;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<MatchFinish> matches;
    for (std::size_t a = 0; a < 4; ++a)
      for (std::size_t b = a + 1; b < 4; ++b) {
        const double p = 1 / (1 + std::pow(10.0, (truth[b] - truth[a]) / 400));
        for (int g = 0; g < 200; ++g) {
          const bool a_wins = uniform(gen) < p;
          matches.push_back({{a, a_wins ? 1 : 2}, {b, a_wins ? 2 : 1}});
        }
      }
    const auto r = elo_ratings(4, matches);
    for (std::size_t e = 0; e < 4; ++e) {
      covered += r[e].low <= truth[e] && truth[e] <= r[e].high;
      ++total;
      mean_error[e] += (r[e].elo - truth[e]) / kTrials;
    }
  }
  const double coverage = static_cast<double>(covered) / total;
  EXPECT_GT(coverage, 0.92);
  EXPECT_LT(coverage, 0.98);
  // SE per rating is about 20 points, so the mean of 300 is within about 1.2 points; the prior
  // pulls the outer two in by about 1 point.
  for (std::size_t e = 0; e < 4; ++e) EXPECT_NEAR(mean_error[e], 0, 5) << e;
}

// ---- Glicko-2 ----------------------------------------------------------------------------------

TEST(Glicko2, PaperExample) {
  // Glickman's example: 1500 / 200 / 0.06 plays 1400/30 (win), 1550/100 (loss), 1700/300
  // (loss), tau = 0.5. On the Glicko-2 scale mu = 0, phi = 1.1513; the paper's steps give
  // g = 0.9955, 0.9531, 0.7242; E = 0.639, 0.432, 0.303; v = 1.7785; delta = -0.4834;
  // sigma' = 0.05999; phi* = 1.152862; phi' = 0.8722; mu' = -0.2069, so r' = 1464.06,
  // RD' = 151.52. The paper rounds its intermediate values; carried in full precision they
  // give v = 1.77898, delta = -0.48393, and r' = 1464.0507, RD' = 151.5165, sigma' = 0.0599960.
  const GlickoRating player{1500, 200, 0.06};
  const std::vector<GlickoGame> games{
      {{1400, 30, 0.06}, 1}, {{1550, 100, 0.06}, 0}, {{1700, 300, 0.06}, 0}};
  const GlickoRating r = glicko2_update(player, games, 0.5);
  EXPECT_NEAR(r.rating, 1464.06, 0.01);
  EXPECT_NEAR(r.rd, 151.52, 0.01);
  EXPECT_NEAR(r.volatility, 0.05999, 1e-5);
  EXPECT_NEAR(r.rating, 1464.0507, 1e-3);
  EXPECT_NEAR(r.rd, 151.5165, 1e-3);
  EXPECT_NEAR(r.volatility, 0.0599960, 1e-6);
}

TEST(Glicko2, NoGamesOnlyIncreasesRd) {
  // Step 6 alone: phi* = sqrt(phi^2 + sigma^2); in points, sqrt(200^2 + (0.06 * 173.7178)^2)
  // = sqrt(40000 + 108.6403) = 200.2714.
  const GlickoRating r = glicko2_update({1500, 200, 0.06}, {}, 0.5);
  EXPECT_EQ(r.rating, 1500);
  EXPECT_NEAR(r.rd, 200.2714, 1e-4);
  EXPECT_EQ(r.volatility, 0.06);
}

TEST(Glicko2, OneGameBetweenNewcomers) {
  // Both 1500 / 350 / 0.06. phi = 350 / 173.7178 = 2.014761, g(phi) = 1 / sqrt(1 + 3 phi^2 /
  // pi^2) = 0.669069, E = 1/2, v = 1 / (g^2 / 4) = 8.935475, delta = v g / 2 = 2.989226.
  // Since delta^2 = 8.935 < phi^2 + v = 12.995, the volatility barely moves: sigma' = 0.0599997.
  // phi* = sqrt(phi^2 + sigma'^2) = 2.015655, phi' = 1 / sqrt(1/phi*^2 + 1/v) = 1.671210,
  // mu' = phi'^2 g / 2 = 0.934337: winner 1500 + 173.7178 * 0.934337 = 1662.311, loser
  // 1337.689, both RD 173.7178 * 1.671210 = 290.319.
  const auto r = glicko2_ratings(2, {{{{0, 1}, {1, 2}}}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(r[0].rating, 1662.311, 1e-3);
  EXPECT_NEAR(r[1].rating, 1337.689, 1e-3);
  EXPECT_NEAR(r[0].rd, 290.319, 1e-3);
  EXPECT_NEAR(r[1].rd, 290.319, 1e-3);
  EXPECT_NEAR(r[0].volatility, 0.0599997, 1e-6);
}

TEST(Glicko2, PeriodsUseStartOfPeriodRatingsAndSittersOutOnlyGainRd) {
  // Period 1: a 3-entrant match (0 first, 1 and 2 tie); entrant 3 sits out. Period 2: 3 beats
  // 0; 1 and 2 sit out.
  const std::vector<std::vector<MatchFinish>> periods{
      {{{0, 1}, {1, 2}, {2, 2}}},
      {{{3, 1}, {0, 2}}},
  };
  const GlickoParams params{.rating = 1500, .rd = 300, .volatility = 0.05, .tau = 0.7};
  const auto r = glicko2_ratings(4, periods, params);

  const GlickoRating s{1500, 300, 0.05};
  const GlickoRating p1_0 = glicko2_update(s, {{s, 1}, {s, 1}}, 0.7);
  const GlickoRating p1_1 = glicko2_update(s, {{s, 0}, {s, 0.5}}, 0.7);
  const GlickoRating p1_2 = glicko2_update(s, {{s, 0}, {s, 0.5}}, 0.7);
  const GlickoRating p1_3 = glicko2_update(s, {}, 0.7);
  EXPECT_NEAR(p1_3.rd, std::sqrt(300.0 * 300 + std::pow(0.05 * 173.7178, 2)), 1e-9);

  const GlickoRating p2_0 = glicko2_update(p1_0, {{p1_3, 0}}, 0.7);
  const GlickoRating p2_3 = glicko2_update(p1_3, {{p1_0, 1}}, 0.7);
  const GlickoRating p2_1 = glicko2_update(p1_1, {}, 0.7);
  const GlickoRating p2_2 = glicko2_update(p1_2, {}, 0.7);
  const std::vector<GlickoRating> expected{p2_0, p2_1, p2_2, p2_3};
  for (std::size_t e = 0; e < 4; ++e) {
    EXPECT_DOUBLE_EQ(r[e].rating, expected[e].rating) << e;
    EXPECT_DOUBLE_EQ(r[e].rd, expected[e].rd) << e;
    EXPECT_DOUBLE_EQ(r[e].volatility, expected[e].volatility) << e;
  }
  EXPECT_EQ(r[1].rating, p1_1.rating);  // sitting out moves nothing but the RD
  EXPECT_GT(r[1].rd, p1_1.rd);
  EXPECT_GT(r[0].rating, 1500);
  EXPECT_LT(r[1].rating, 1500);
}

TEST(Glicko2, NoPeriodsGiveTheStart) {
  const auto r = glicko2_ratings(3, {});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[2].rating, 1500);
  EXPECT_EQ(r[2].rd, 350);
  EXPECT_EQ(r[2].volatility, 0.06);
}

TEST(Glicko2, ExtremeGapsStayFinite) {
  // An opponent 200,000 points away: the outcome is certain, so nothing is learnt (step 6).
  const GlickoRating r = glicko2_update({1500, 50, 0.06}, {{{201500, 50, 0.06}, 0}}, 0.5);
  EXPECT_TRUE(std::isfinite(r.rating) && std::isfinite(r.rd) && std::isfinite(r.volatility));
  EXPECT_NEAR(r.rating, 1500, 1e-6);
  // A long winning streak of a newcomer against a tight field, round after round.
  std::vector<std::vector<MatchFinish>> periods(50, {{{0, 1}, {1, 2}, {2, 3}, {3, 4}}});
  const auto s = glicko2_ratings(4, periods);
  for (const GlickoRating& g : s)
    EXPECT_TRUE(std::isfinite(g.rating) && std::isfinite(g.rd) && std::isfinite(g.volatility));
  EXPECT_GT(s[0].rating, s[1].rating);
  EXPECT_GT(s[1].rating, s[2].rating);
  EXPECT_GT(s[2].rating, s[3].rating);
  EXPECT_LT(s[0].rd, 350);
}

TEST(Glicko2, RejectsBadInput) {
  const GlickoRating ok{1500, 200, 0.06};
  EXPECT_THROW(glicko2_update(ok, {}, 0), std::invalid_argument);
  EXPECT_THROW(glicko2_update({1500, -1, 0.06}, {}, 0.5), std::invalid_argument);
  EXPECT_THROW(glicko2_update({1500, 200, 0}, {}, 0.5), std::invalid_argument);
  EXPECT_THROW(glicko2_update(ok, {{ok, 1.5}}, 0.5), std::invalid_argument);
  EXPECT_THROW(glicko2_ratings(2, {{{{0, 1}, {5, 2}}}}), std::invalid_argument);
  EXPECT_THROW(glicko2_ratings(2, {}, {.tau = -1}), std::invalid_argument);
}

}  // namespace
}  // namespace arbiter::tournament
