#include "league/matchmaker.h"

#include <algorithm>
#include <cmath>

#include "core/rng.h"

namespace arbiter::league {
namespace {

constexpr std::size_t kNearest = 8;

double uniform(Rng& rng) {
  return static_cast<double>(rng.next() >> 11) / 9007199254740992.0;
}

}  // namespace

std::vector<std::vector<std::size_t>> match_round(const std::vector<Contender>& contenders,
                                                  const RoundTerms& terms,
                                                  const SkillParams& params) {
  std::vector<std::vector<std::size_t>> groups;
  const std::size_t n = contenders.size();
  if (n < terms.seats_min || terms.seats_min == 0 || terms.groups == 0) return groups;
  Rng rng(terms.seed);

  // Work on a copy ordered by entrant, so the caller's order cannot matter.
  std::vector<Contender> all = contenders;
  std::sort(all.begin(), all.end(),
            [](const Contender& a, const Contender& b) { return a.entrant < b.entrant; });
  const auto wait = [&](const Contender& c) {
    const std::int64_t since = c.last_index < 0 ? 0 : terms.next_index - c.last_index;
    return static_cast<double>(std::max<std::int64_t>(since, 0)) / static_cast<double>(n);
  };
  std::vector<double> priority(n);
  std::vector<std::uint64_t> tiebreak(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Contender& c = all[i];
    priority[i] = (c.played < terms.placement ? 2.0 : 0.0) + c.skill.sigma / params.sigma + wait(c);
    tiebreak[i] = rng.next();
  }
  std::vector<std::size_t> by_priority(n);
  for (std::size_t i = 0; i < n; ++i) by_priority[i] = i;
  std::sort(by_priority.begin(), by_priority.end(), [&](std::size_t a, std::size_t b) {
    if (priority[a] != priority[b]) return priority[a] > priority[b];
    return tiebreak[a] < tiebreak[b];
  });
  std::vector<std::size_t> by_mu(n);
  for (std::size_t i = 0; i < n; ++i) by_mu[i] = i;
  std::sort(by_mu.begin(), by_mu.end(), [&](std::size_t a, std::size_t b) {
    if (all[a].skill.mu != all[b].skill.mu) return all[a].skill.mu < all[b].skill.mu;
    return a < b;
  });
  std::vector<std::size_t> mu_rank(n);
  for (std::size_t r = 0; r < n; ++r) mu_rank[by_mu[r]] = r;

  std::vector<bool> used(n, false);
  std::size_t free_left = n;
  const double beta2 = params.beta * params.beta;
  for (std::size_t focal : by_priority) {
    if (groups.size() >= terms.groups || free_left < terms.seats_min) break;
    if (used[focal]) continue;
    const std::size_t top = std::min(terms.seats_max, free_left);
    const std::size_t k = terms.seats_min + rng.below(top - terms.seats_min + 1);
    // The nearest free entrants in rating, walking out from the focal one both ways. Used
    // entrants are skipped; a round seats at most n entrants, so the walks cost O(n) a round.
    std::vector<std::size_t> near;
    std::size_t lo = mu_rank[focal], hi = mu_rank[focal];
    const double mu = all[focal].skill.mu;
    for (;;) {
      while (lo > 0 && used[by_mu[lo - 1]]) --lo;
      while (hi + 1 < n && used[by_mu[hi + 1]]) ++hi;
      const bool can_lo = lo > 0, can_hi = hi + 1 < n;
      if (near.size() >= kNearest || (!can_lo && !can_hi)) break;
      const bool take_lo = can_lo && (!can_hi || mu - all[by_mu[lo - 1]].skill.mu <=
                                                     all[by_mu[hi + 1]].skill.mu - mu);
      near.push_back(take_lo ? by_mu[--lo] : by_mu[++hi]);
    }
    if (near.size() + 1 < k) continue;  // cannot happen while free_left >= k; kept for safety
    std::vector<std::size_t> group{focal};
    std::vector<double> weight(near.size());
    for (std::size_t j = 0; j < near.size(); ++j) {
      const Contender& o = all[near[j]];
      const double d = o.skill.mu - mu;
      const double spread = 2 * beta2 + all[focal].skill.sigma * all[focal].skill.sigma +
                            o.skill.sigma * o.skill.sigma;
      // Floored, so that far ratings keep a (tiny) chance and the draw below always ends.
      weight[j] = std::max(std::exp(-d * d / (2 * spread)), 1e-9) * (1 + wait(o));
    }
    while (group.size() < k) {
      double total = 0;
      for (double w : weight) total += w;
      double pick = uniform(rng) * total;
      std::size_t j = 0;
      while (j + 1 < near.size() && (weight[j] == 0 || pick >= weight[j])) pick -= weight[j++];
      while (weight[j] == 0) j = (j + near.size() - 1) % near.size();  // rounding at the end
      group.push_back(near[j]);
      weight[j] = 0;
    }
    for (std::size_t g : group) {
      used[g] = true;
      --free_left;
    }
    std::vector<std::size_t> seated;
    for (std::size_t g : group) seated.push_back(all[g].entrant);
    rng.shuffle(seated.begin(), seated.end());
    groups.push_back(std::move(seated));
  }
  return groups;
}

}  // namespace arbiter::league
