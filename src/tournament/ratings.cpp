// Elo by penalized maximum likelihood (Bradley-Terry, damped Newton under a sum-zero constraint)
// and Glicko-2 as in Glickman's 2013 example paper.
#include "tournament/ratings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

namespace arbiter::tournament {
namespace {

constexpr double kEloPerNatural = 400.0 / std::numbers::ln10;  // Elo points per logit
constexpr double kZ95 = 1.959963984540054;                     // two-sided 95% normal quantile
constexpr double kGlickoScale = 173.7178;                      // the paper's constant
constexpr double kInf = std::numeric_limits<double>::infinity();

double sigmoid(double x) {
  if (x >= 0) return 1 / (1 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1 + e);
}

double log_sigmoid(double x) {
  return x >= 0 ? -std::log1p(std::exp(-x)) : x - std::log1p(std::exp(x));
}

// p(1 - p) for p = sigmoid(x), without the cancellation of 1 - p near p = 1.
double sigmoid_variance(double x) {
  return sigmoid(x) * sigmoid(-x);
}

// A dense square matrix factored as PA = LU with partial pivoting.
class Lu {
 public:
  explicit Lu(std::size_t n) : n_(n), a_(n * n, 0.0), perm_(n) {}

  double& at(std::size_t r, std::size_t c) { return a_[r * n_ + c]; }

  // Factors in place; false when the matrix is singular to working precision.
  bool factor() {
    double scale = 0;
    for (double v : a_) scale = std::max(scale, std::abs(v));
    for (std::size_t i = 0; i < n_; ++i) perm_[i] = i;
    for (std::size_t k = 0; k < n_; ++k) {
      std::size_t p = k;
      for (std::size_t r = k + 1; r < n_; ++r)
        if (std::abs(at(r, k)) > std::abs(at(p, k))) p = r;
      if (!(std::abs(at(p, k)) > scale * 1e-30)) return false;
      if (p != k) {
        for (std::size_t c = 0; c < n_; ++c) std::swap(at(p, c), at(k, c));
        std::swap(perm_[p], perm_[k]);
      }
      const double pivot = at(k, k);
      for (std::size_t r = k + 1; r < n_; ++r) {
        const double f = at(r, k) /= pivot;
        if (f == 0) continue;
        for (std::size_t c = k + 1; c < n_; ++c) at(r, c) -= f * at(k, c);
      }
    }
    return true;
  }

  // x with A x = b, after factor() succeeded.
  std::vector<double> solve(const std::vector<double>& b) {
    std::vector<double> x(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      double s = b[perm_[i]];
      for (std::size_t c = 0; c < i; ++c) s -= at(i, c) * x[c];
      x[i] = s;
    }
    for (std::size_t i = n_; i-- > 0;) {
      double s = x[i];
      for (std::size_t c = i + 1; c < n_; ++c) s -= at(i, c) * x[c];
      x[i] = s / at(i, i);
    }
    return x;
  }

 private:
  std::size_t n_;
  std::vector<double> a_;
  std::vector<std::size_t> perm_;
};

void check_entrant(std::size_t entrant, std::size_t entrants) {
  if (entrant >= entrants)
    throw std::invalid_argument("ratings: entrant " + std::to_string(entrant) + " out of range (" +
                                std::to_string(entrants) + " entrants)");
}

// True when every node reaches every other along `edge` (i -> j when edge(i, j)).
template <class Edge>
bool strongly_connected(std::size_t n, Edge edge) {
  if (n == 0) return true;
  for (bool forward : {true, false}) {
    std::vector<bool> seen(n, false);
    std::vector<std::size_t> stack{0};
    seen[0] = true;
    std::size_t reached = 1;
    while (!stack.empty()) {
      const std::size_t i = stack.back();
      stack.pop_back();
      for (std::size_t j = 0; j < n; ++j) {
        if (seen[j] || !(forward ? edge(i, j) : edge(j, i))) continue;
        seen[j] = true;
        ++reached;
        stack.push_back(j);
      }
    }
    if (reached != n) return false;
  }
  return true;
}

// The penalized Bradley-Terry problem on the m entrants with games, in logits.
// score[i * m + j]: i's points against j (draws half each way).
class BradleyTerry {
 public:
  BradleyTerry(std::size_t m, std::vector<double> score, double prior)
      : m_(m), score_(std::move(score)), prior_(prior) {}

  double objective(const std::vector<double>& t) const {
    double f = 0;
    for (std::size_t i = 0; i < m_; ++i) {
      for (std::size_t j = i + 1; j < m_; ++j) {
        const double d = t[i] - t[j];
        f += s(i, j) * log_sigmoid(d) + s(j, i) * log_sigmoid(-d);
      }
      f += prior_ * 0.5 * (log_sigmoid(t[i]) + log_sigmoid(-t[i]));
    }
    return f;
  }

  // The bordered system [H 1; 1' 0] of the constrained Newton step, H the negated Hessian, and
  // the gradient in `grad`.
  Lu newton_system(const std::vector<double>& t, std::vector<double>& grad) const {
    Lu b(m_ + 1);
    grad.assign(m_, 0.0);
    for (std::size_t i = 0; i < m_; ++i) {
      for (std::size_t j = i + 1; j < m_; ++j) {
        const double games = s(i, j) + s(j, i);
        if (games == 0) continue;
        const double d = t[i] - t[j];
        const double r = s(i, j) - games * sigmoid(d);
        grad[i] += r;
        grad[j] -= r;
        const double w = games * sigmoid_variance(d);
        b.at(i, i) += w;
        b.at(j, j) += w;
        b.at(i, j) -= w;
        b.at(j, i) -= w;
      }
      grad[i] += prior_ * (0.5 - sigmoid(t[i]));
      b.at(i, i) += prior_ * sigmoid_variance(t[i]);
      b.at(i, m_) = 1;
      b.at(m_, i) = 1;
    }
    return b;
  }

 private:
  double s(std::size_t i, std::size_t j) const { return score_[i * m_ + j]; }

  std::size_t m_;
  std::vector<double> score_;
  double prior_;
};

void check_glicko(const GlickoRating& r, const char* who) {
  if (!std::isfinite(r.rating) || !std::isfinite(r.rd) || !(r.rd >= 0) ||
      !std::isfinite(r.volatility) || !(r.volatility > 0))
    throw std::invalid_argument(std::string("glicko2: bad ") + who +
                                " (need finite rating, rd >= 0, volatility > 0)");
}

// Step 5 of the paper: the new volatility, by the Illinois variant of regula falsi on f.
double new_volatility(double delta, double phi, double v, double sigma, double tau) {
  const double a = std::log(sigma * sigma);
  const double phi2 = phi * phi;
  const auto f = [&](double x) {
    const double ex = std::exp(x);
    const double den = phi2 + v + ex;
    return ex * (delta * delta - phi2 - v - ex) / (2 * den * den) - (x - a) / (tau * tau);
  };
  constexpr double kEpsilon = 1e-6;
  double lo = a;
  double hi;
  if (delta * delta > phi2 + v) {
    hi = std::log(delta * delta - phi2 - v);
  } else {
    // f(x) grows like -(x - a) / tau^2 as x falls, so this ends after a few steps.
    int k = 1;
    while (f(a - k * tau) < 0 && k < 100000) ++k;
    hi = a - k * tau;
  }
  double f_lo = f(lo);
  double f_hi = f(hi);
  for (int i = 0; i < 10000 && std::abs(hi - lo) > kEpsilon; ++i) {
    const double c = lo + (lo - hi) * f_lo / (f_hi - f_lo);
    const double f_c = f(c);
    if (f_c * f_hi <= 0) {
      lo = hi;
      f_lo = f_hi;
    } else {
      f_lo /= 2;
    }
    hi = c;
    f_hi = f_c;
  }
  return std::exp(lo / 2);
}

}  // namespace

std::vector<PairGame> pairwise_games(const MatchFinish& match) {
  std::vector<PairGame> games;
  if (match.size() < 2) return games;
  games.reserve(match.size() * (match.size() - 1) / 2);
  for (std::size_t i = 0; i < match.size(); ++i) {
    for (std::size_t j = i + 1; j < match.size(); ++j) {
      const Finish& a = match[i];
      const Finish& b = match[j];
      if (a.entrant == b.entrant)
        throw std::invalid_argument("ratings: entrant " + std::to_string(a.entrant) +
                                    " twice in one match");
      const double score = a.place < b.place ? 1.0 : a.place == b.place ? 0.5 : 0.0;
      games.push_back({a.entrant, b.entrant, score});
    }
  }
  return games;
}

std::vector<EloRating> elo_ratings(std::size_t entrants, const std::vector<MatchFinish>& matches,
                                   const EloParams& params) {
  const double prior = params.prior_draws;
  if (!std::isfinite(prior) || prior < 0)
    throw std::invalid_argument("elo: prior_draws must be finite and >= 0");

  std::vector<std::int64_t> games(entrants, 0);
  std::vector<PairGame> all;
  for (const MatchFinish& match : matches) {
    for (const Finish& f : match) check_entrant(f.entrant, entrants);
    for (const PairGame& g : pairwise_games(match)) {
      ++games[g.a];
      ++games[g.b];
      all.push_back(g);
    }
  }

  // Only entrants with games take part in the fit; the others sit at the mean, 0.
  std::vector<std::size_t> slot(entrants, 0);
  std::size_t m = 0;
  for (std::size_t e = 0; e < entrants; ++e)
    if (games[e] > 0) slot[e] = m++;
  std::vector<double> score(m * m, 0.0);
  for (const PairGame& g : all) {
    score[slot[g.a] * m + slot[g.b]] += g.score;
    score[slot[g.b] * m + slot[g.a]] += 1 - g.score;
  }
  // Without the prior, the estimate exists exactly when no group of entrants failed to score
  // against the rest (Ford 1957; Hunter 2004, assumption 1).
  if (prior == 0 &&
      !strongly_connected(m, [&](std::size_t i, std::size_t j) { return score[i * m + j] > 0; }))
    throw std::domain_error(
        "elo: without a prior the ratings are unbounded (some entrants never scored against the "
        "others, or the results fall into separate groups)");

  const BradleyTerry model(m, std::move(score), prior);
  std::vector<double> theta(m, 0.0);
  std::vector<double> grad;
  Lu system(0);
  bool factored = false;
  double previous = kInf;
  for (int iteration = 0; m > 0 && iteration < 200; ++iteration) {
    system = model.newton_system(theta, grad);
    factored = system.factor();
    if (!factored) break;
    std::vector<double> rhs = grad;
    rhs.push_back(0);
    std::vector<double> step = system.solve(rhs);
    step.pop_back();
    double largest = 0;
    double slope = 0;  // the directional derivative, >= 0 since H is positive on sum-zero steps
    for (std::size_t i = 0; i < m; ++i) {
      largest = std::max(largest, std::abs(step[i]));
      slope += grad[i] * step[i];
    }
    // Converged (1e-10 logits is 2e-8 points), or the steps stopped shrinking quadratically:
    // they are rounding noise now.
    if (largest < 1e-10 || !(slope > 0) || (largest < 1e-6 && largest > previous / 4)) break;
    previous = largest;
    std::vector<double> next(m);
    for (std::size_t i = 0; i < m; ++i) next[i] = theta[i] + step[i];
    // Far from the optimum (perfect records under a weak prior), backtrack until the objective
    // rises enough. Small steps are taken whole: the quadratic model is accurate there, while
    // the gain would drown in the objective's rounding noise and stall the search.
    if (largest > 1e-4) {
      const double base = model.objective(theta);
      double alpha = 1;
      while (model.objective(next) < base + 1e-4 * alpha * slope) {
        alpha /= 2;
        if (alpha < 1e-12) break;
        for (std::size_t i = 0; i < m; ++i) next[i] = theta[i] + alpha * step[i];
      }
      if (alpha < 1e-12) break;  // no ascent left at working precision
    }
    theta = std::move(next);
  }

  std::vector<double> variance(m, kInf);
  if (factored) {
    // The top-left block of the bordered matrix's inverse is the covariance of the estimate
    // under the sum-zero constraint (the pseudo-inverse of H when H is a bare graph Laplacian).
    std::vector<double> unit(m + 1, 0.0);
    for (std::size_t i = 0; i < m; ++i) {
      unit[i] = 1;
      variance[i] = std::max(0.0, system.solve(unit)[i]);
      unit[i] = 0;
    }
  }

  const double lone_se = prior > 0 ? 2 / std::sqrt(prior) : kInf;  // information prior / 4
  std::vector<EloRating> out(entrants);
  for (std::size_t e = 0; e < entrants; ++e) {
    const bool fitted = games[e] > 0;
    const double elo = fitted ? theta[slot[e]] * kEloPerNatural : 0.0;
    const double half = kZ95 * kEloPerNatural * (fitted ? std::sqrt(variance[slot[e]]) : lone_se);
    out[e] = {elo, elo - half, elo + half, games[e]};
  }
  return out;
}

GlickoRating glicko2_update(const GlickoRating& player, const std::vector<GlickoGame>& games,
                            double tau) {
  check_glicko(player, "player");
  if (!std::isfinite(tau) || !(tau > 0)) throw std::invalid_argument("glicko2: tau must be > 0");
  for (const GlickoGame& g : games) {
    check_glicko(g.opponent, "opponent");
    if (!(g.score >= 0 && g.score <= 1))
      throw std::invalid_argument("glicko2: a score must be within [0, 1]");
  }

  // Step 2: to the Glicko-2 scale.
  const double mu = (player.rating - 1500) / kGlickoScale;
  const double phi = player.rd / kGlickoScale;
  const double sigma = player.volatility;

  // Steps 3 and 4: the estimated variance v and the sum behind the improvement delta = v * sum.
  double information = 0;
  double sum = 0;
  for (const GlickoGame& g : games) {
    const double mu_j = (g.opponent.rating - 1500) / kGlickoScale;
    const double phi_j = g.opponent.rd / kGlickoScale;
    const double g_j = 1 / std::sqrt(1 + 3 * phi_j * phi_j / (std::numbers::pi * std::numbers::pi));
    const double x = g_j * (mu - mu_j);
    information += g_j * g_j * sigmoid_variance(x);
    sum += g_j * (g.score - sigmoid(x));
  }
  const double v = 1 / information;
  // No games, or only games whose outcome was certain to working precision (ratings thousands
  // of points apart): nothing to learn, so the period is step 6 alone.
  if (games.empty() || !std::isfinite(v)) {
    return {player.rating, kGlickoScale * std::sqrt(phi * phi + sigma * sigma), sigma};
  }
  const double delta = v * sum;

  // Step 5, then steps 6 and 7: the new volatility, the pre-period RD, the new RD and rating.
  const double sigma_new = new_volatility(delta, phi, v, sigma, tau);
  const double phi_star2 = phi * phi + sigma_new * sigma_new;
  const double phi_new = 1 / std::sqrt(1 / phi_star2 + 1 / v);
  const double mu_new = mu + phi_new * phi_new * sum;

  // Step 8: back to the Glicko scale.
  return {kGlickoScale * mu_new + 1500, kGlickoScale * phi_new, sigma_new};
}

std::vector<GlickoRating> glicko2_ratings(std::size_t entrants,
                                          const std::vector<std::vector<MatchFinish>>& periods,
                                          const GlickoParams& params) {
  const GlickoRating start{params.rating, params.rd, params.volatility};
  check_glicko(start, "params");
  if (!std::isfinite(params.tau) || !(params.tau > 0))
    throw std::invalid_argument("glicko2: tau must be > 0");

  std::vector<GlickoRating> ratings(entrants, start);
  std::vector<std::vector<GlickoGame>> games(entrants);
  for (const std::vector<MatchFinish>& period : periods) {
    for (auto& g : games) g.clear();
    for (const MatchFinish& match : period) {
      for (const Finish& f : match) check_entrant(f.entrant, entrants);
      for (const PairGame& g : pairwise_games(match)) {
        games[g.a].push_back({ratings[g.b], g.score});
        games[g.b].push_back({ratings[g.a], 1 - g.score});
      }
    }
    std::vector<GlickoRating> next(entrants);
    for (std::size_t e = 0; e < entrants; ++e)
      next[e] = glicko2_update(ratings[e], games[e], params.tau);
    ratings = std::move(next);
  }
  return ratings;
}

}  // namespace arbiter::tournament
