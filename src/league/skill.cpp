#include "league/skill.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace arbiter::league {
namespace {

void check(const SkillParams& p) {
  const auto positive = [](double x) { return std::isfinite(x) && x > 0; };
  if (!positive(p.beta) || !positive(p.sigma) || !positive(p.z) || !std::isfinite(p.mu) ||
      !(p.kappa > 0 && p.kappa <= 1) || !(std::isfinite(p.tau) && p.tau >= 0))
    throw std::invalid_argument("skill params out of range");
}

struct Team {
  double mu = 0;
  double var = 0;  // sigma^2, summed over the members
  int place = 0;
};

}  // namespace

std::vector<std::vector<Skill>> rate_teams(const std::vector<std::vector<Skill>>& teams,
                                           const std::vector<int>& places,
                                           const SkillParams& params) {
  check(params);
  if (teams.size() != places.size()) throw std::invalid_argument("one place per team is required");
  std::vector<std::vector<Skill>> out = teams;
  for (auto& team : out) {
    if (team.empty()) throw std::invalid_argument("a team has no members");
    for (Skill& s : team) {
      if (!std::isfinite(s.mu) || !std::isfinite(s.sigma) || s.sigma <= 0)
        throw std::invalid_argument("a skill is not finite with a positive sigma");
      s.sigma = std::sqrt(s.sigma * s.sigma + params.tau * params.tau);
    }
  }
  const std::size_t k = out.size();
  if (k < 2) return out;

  std::vector<Team> t(k);
  double c2 = 0;
  for (std::size_t i = 0; i < k; ++i) {
    for (const Skill& s : out[i]) {
      t[i].mu += s.mu;
      t[i].var += s.sigma * s.sigma;
    }
    t[i].place = places[i];
    c2 += t[i].var + params.beta * params.beta;
  }
  const double c = std::sqrt(c2);
  // exp(mu/c) only enters through ratios, so a common shift keeps it finite for any scale.
  double top = t[0].mu;
  for (const Team& x : t) top = std::max(top, x.mu);
  std::vector<double> e(k);
  for (std::size_t i = 0; i < k; ++i) e[i] = std::exp((t[i].mu - top) / c);
  // The paper's C_q sums e over the teams that did not finish ahead of q (r(s) >= r(q)); A_q
  // counts the teams tied with q, q included.
  std::vector<double> sum_from(k, 0.0);
  std::vector<double> ties(k, 0.0);
  for (std::size_t q = 0; q < k; ++q)
    for (std::size_t s = 0; s < k; ++s) {
      if (t[s].place >= t[q].place) sum_from[q] += e[s];
      if (t[s].place == t[q].place) ties[q] += 1;
    }

  for (std::size_t i = 0; i < k; ++i) {
    double omega = 0;
    double delta = 0;
    for (std::size_t q = 0; q < k; ++q) {
      if (t[q].place > t[i].place) continue;  // q finished behind i: its term has no i
      const double share = e[i] / sum_from[q];
      omega += ((q == i ? 1.0 : 0.0) - share) / ties[q];
      delta += share * (1 - share) / ties[q];
    }
    const double gamma = std::sqrt(t[i].var) / c;
    omega *= t[i].var / c;
    delta *= gamma * t[i].var / c2;
    for (Skill& s : out[i]) {
      const double part = s.sigma * s.sigma / t[i].var;
      s.mu += part * omega;
      s.sigma *= std::sqrt(std::max(1 - part * delta, params.kappa));
    }
  }
  return out;
}

std::vector<Skill> rate_match(const std::vector<Skill>& seats, const std::vector<int>& places,
                              const SkillParams& params) {
  std::vector<std::vector<Skill>> teams;
  teams.reserve(seats.size());
  for (const Skill& s : seats) teams.push_back({s});
  auto rated = rate_teams(teams, places, params);
  std::vector<Skill> out;
  out.reserve(rated.size());
  for (auto& team : rated) out.push_back(team[0]);
  return out;
}

double conservative(const Skill& s, const SkillParams& params) {
  return s.mu - params.z * s.sigma;
}

}  // namespace arbiter::league
