#include "league/skill.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <gtest/gtest.h>

#include "core/rng.h"

namespace arbiter::league {
namespace {

// The worked example printed in the openskill packages' documentation (JavaScript, Python and
// Elixir alike; the Plackett-Luce model with the default mu 25, sigma 25/3, beta 25/6, kappa
// 1e-4 and no tau): a team of (25, 8.333) and (32.444, 5.123) beats one of (43.381, 2.421) and
// (25.188, 6.211).
TEST(Skill, PublishedTeamExample) {
  SkillParams p;
  p.tau = 0;
  auto rated = rate_teams({{{25.0, 25.0 / 3}, {32.444, 5.123}}, {{43.381, 2.421}, {25.188, 6.211}}},
                          {1, 2}, p);
  ASSERT_EQ(rated.size(), 2U);
  EXPECT_NEAR(rated[0][0].mu, 28.669648436582808, 1e-12);
  EXPECT_NEAR(rated[0][0].sigma, 8.071520788025197, 1e-12);
  EXPECT_NEAR(rated[0][1].mu, 33.83086971107981, 1e-12);
  EXPECT_NEAR(rated[0][1].sigma, 5.062772998705765, 1e-12);
  EXPECT_NEAR(rated[1][0].mu, 43.071274808241974, 1e-12);
  EXPECT_NEAR(rated[1][0].sigma, 2.4166900452721256, 1e-12);
  EXPECT_NEAR(rated[1][1].mu, 23.149503312339064, 1e-12);
  EXPECT_NEAR(rated[1][1].sigma, 6.1378606973362135, 1e-12);
  // The same packages' ordinal of the third: mu - 3 sigma.
  EXPECT_NEAR(conservative(rated[1][0], p), 35.821204672425594, 1e-12);
}

TEST(Skill, TwoNewcomersWinnerUpLoserDownBothSurer) {
  SkillParams p;
  auto r = rate_match({Skill{}, Skill{}}, {0, 1}, p);
  EXPECT_GT(r[0].mu, 25);
  EXPECT_LT(r[1].mu, 25);
  EXPECT_NEAR(r[0].mu - 25, 25 - r[1].mu, 1e-12);  // zero-sum between equals
  EXPECT_LT(r[0].sigma, 25.0 / 3);
  EXPECT_DOUBLE_EQ(r[0].sigma, r[1].sigma);
}

TEST(Skill, ADrawBetweenEqualsMovesNoMean) {
  auto r = rate_match({Skill{}, Skill{}, Skill{}}, {0, 0, 0});
  for (const Skill& s : r) {
    EXPECT_NEAR(s.mu, 25, 1e-12);
    EXPECT_LT(s.sigma, 25.0 / 3);
  }
}

TEST(Skill, PlacesNotSeatOrderDecide) {
  const std::vector<Skill> seats{{20, 5}, {30, 4}, {25, 6}, {27, 3}};
  auto a = rate_match(seats, {2, 0, 3, 1});
  std::vector<Skill> rev(seats.rbegin(), seats.rend());
  auto b = rate_match(rev, {1, 3, 0, 2});
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(a[i].mu, b[3 - i].mu, 1e-12);
    EXPECT_NEAR(a[i].sigma, b[3 - i].sigma, 1e-12);
  }
  // The winner gains, the last loses, and the means keep their sum (every seat is one team of
  // one: the paper's update is zero-sum when all sigmas are equal; here only the signs hold).
  EXPECT_GT(a[1].mu, 30);
  EXPECT_LT(a[2].mu, 25);
}

TEST(Skill, HugeRatingsStayFinite) {
  auto r = rate_match({{5000, 1}, {-5000, 1}}, {1, 0});
  EXPECT_TRUE(std::isfinite(r[0].mu));
  EXPECT_TRUE(std::isfinite(r[1].sigma));
  EXPECT_GT(r[0].sigma, 0);
}

TEST(Skill, BadInputIsRefused) {
  EXPECT_THROW(rate_match({Skill{}, Skill{}}, {0}), std::invalid_argument);
  EXPECT_THROW(rate_match({Skill{}, {25, 0}}, {0, 1}), std::invalid_argument);
  EXPECT_THROW(rate_match({Skill{}, {NAN, 1}}, {0, 1}), std::invalid_argument);
  EXPECT_THROW(rate_teams({{}, {Skill{}}}, {0, 1}), std::invalid_argument);
  SkillParams bad;
  bad.kappa = 0;
  EXPECT_THROW(rate_match({Skill{}, Skill{}}, {0, 1}, bad), std::invalid_argument);
  EXPECT_EQ(rate_match({Skill{}}, {0}).size(), 1U);
}

// Kendall's tau between two orders given as values (higher is better); pairs tied in `truth`
// are not counted.
double kendall_tau(const std::vector<double>& truth, const std::vector<double>& estimate) {
  double concordant = 0, discordant = 0;
  for (std::size_t i = 0; i < truth.size(); ++i)
    for (std::size_t j = i + 1; j < truth.size(); ++j) {
      if (truth[i] == truth[j]) continue;
      const double s = (truth[i] - truth[j]) * (estimate[i] - estimate[j]);
      (s > 0 ? concordant : discordant) += 1;
    }
  return (concordant - discordant) / (concordant + discordant);
}

// Bots of known strength: each match of 2 to 4 random bots is ranked by skill plus Gumbel noise,
// which is exactly the Plackett-Luce model. After 1,500 matches the conservative estimates are in
// the true order (Kendall tau >= 0.9) and the means lie on a line with the true strengths.
TEST(Skill, SimulatedBotsOfKnownStrengthAreOrdered) {
  constexpr int kBots = 12;
  std::vector<double> truth(kBots);
  for (int i = 0; i < kBots; ++i) truth[i] = 15.0 + 2.0 * i;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    Rng rng(seed);
    auto uniform = [&] {
      return (static_cast<double>(rng.next() >> 11) + 0.5) / 9007199254740992.0;
    };
    SkillParams p;
    std::vector<Skill> skills(kBots);
    for (int m = 0; m < 1500; ++m) {
      const int k = 2 + static_cast<int>(rng.below(3));
      std::vector<int> bots(kBots);
      std::iota(bots.begin(), bots.end(), 0);
      rng.shuffle(bots.begin(), bots.end());
      bots.resize(k);
      std::vector<double> perf(k);
      // Gumbel noise with scale beta: the winner of any subset is the Plackett-Luce draw.
      for (int s = 0; s < k; ++s)
        perf[s] = truth[bots[s]] - p.beta * std::log(-std::log(uniform()));
      std::vector<int> places(k);
      for (int s = 0; s < k; ++s)
        places[s] = static_cast<int>(
            std::count_if(perf.begin(), perf.end(), [&](double x) { return x > perf[s]; }));
      std::vector<Skill> seated;
      for (int b : bots) seated.push_back(skills[b]);
      auto rated = rate_match(seated, places, p);
      for (int s = 0; s < k; ++s) skills[bots[s]] = rated[s];
    }
    std::vector<double> est(kBots);
    for (int i = 0; i < kBots; ++i) est[i] = conservative(skills[i], p);
    EXPECT_GE(kendall_tau(truth, est), 0.9) << "seed " << seed;
    // mu is on the model's own scale (its c grows with the seats and sigmas), so what must
    // hold is a straight line: the means correlate with the true strengths.
    const double mt = std::accumulate(truth.begin(), truth.end(), 0.0) / kBots;
    double mm = 0;
    for (const Skill& s : skills) mm += s.mu / kBots;
    double sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < kBots; ++i) {
      sxy += (truth[i] - mt) * (skills[i].mu - mm);
      sxx += (truth[i] - mt) * (truth[i] - mt);
      syy += (skills[i].mu - mm) * (skills[i].mu - mm);
    }
    EXPECT_GE(sxy / std::sqrt(sxx * syy), 0.97) << "seed " << seed;
    // Every sigma came down from 8.33 (tau keeps it from going to 0: about 2 here).
    for (const Skill& s : skills) EXPECT_LT(s.sigma, 3.0);
  }
}

}  // namespace
}  // namespace arbiter::league
