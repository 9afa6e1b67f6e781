// Round robin, gauntlet and Swiss schedules.
#include "tournament/schedule.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>

#include "core/rng.h"
#include "core/seed_tree.h"
#include "tournament/standings.h"

namespace arbiter::tournament {
namespace {

// Calls `each` with every k-subset of [0, n) in lexicographic order.
template <class F>
void for_each_combination(std::size_t n, std::size_t k, F&& each) {
  std::vector<std::size_t> pick(k);
  std::iota(pick.begin(), pick.end(), 0);
  if (k > n) return;
  for (;;) {
    each(pick);
    std::size_t i = k;
    while (i > 0 && pick[i - 1] == n - k + i - 1) --i;
    if (i == 0) return;
    ++pick[i - 1];
    for (std::size_t j = i; j < k; ++j) pick[j] = pick[j - 1] + 1;
  }
}

std::size_t hero_index(const TournamentSpec& spec) {
  for (std::size_t i = 0; i < spec.players.size(); ++i)
    if (spec.players[i].name == spec.hero) return i;
  return 0;
}

// One round of round robin or gauntlet: every seating of every subset (with the hero, for a
// gauntlet), in a fixed order.
std::vector<std::vector<std::size_t>> cycle(const TournamentSpec& spec) {
  std::vector<std::vector<std::size_t>> seatings;
  const std::size_t hero = hero_index(spec);
  for_each_combination(spec.players.size(), static_cast<std::size_t>(spec.seats),
                       [&](std::vector<std::size_t> pick) {
                         if (spec.schedule == Schedule::gauntlet &&
                             std::find(pick.begin(), pick.end(), hero) == pick.end())
                           return;
                         do seatings.push_back(pick);
                         while (std::next_permutation(pick.begin(), pick.end()));
                       });
  return seatings;
}

std::int64_t factorial(std::int64_t k) {
  std::int64_t f = 1;
  for (std::int64_t i = 2; i <= k; ++i) f *= i;
  return f;
}

// Pairs `ranked` (best first) from the top, each with the best-ranked partner it has not met;
// backtracks when that leaves someone without a partner. Gives up (nothing) after `budget` steps.
bool pair_without_rematches(const std::vector<std::size_t>& ranked, std::vector<bool>& used,
                            const std::set<std::pair<std::size_t, std::size_t>>& met,
                            std::vector<std::pair<std::size_t, std::size_t>>& pairs,
                            long& budget) {
  auto first = std::find_if(ranked.begin(), ranked.end(),
                            [&](std::size_t e) { return !used[e]; });
  if (first == ranked.end()) return true;
  used[*first] = true;
  for (auto it = std::next(first); it != ranked.end(); ++it) {
    if (used[*it] || met.contains(std::minmax(*first, *it))) continue;
    if (--budget < 0) break;
    used[*it] = true;
    pairs.emplace_back(*first, *it);
    if (pair_without_rematches(ranked, used, met, pairs, budget)) return true;
    pairs.pop_back();
    used[*it] = false;
  }
  used[*first] = false;
  return false;
}

}  // namespace

JobSpec job(const TournamentSpec& spec, std::int64_t index, std::int64_t round,
            const std::vector<std::size_t>& seats, std::int64_t group_start, std::int64_t group) {
  if (!spec.pairing)
    return {index, round, Json{{"seats", seats}, {"seed", seeds::match(spec.seed, index)}}};
  return {index, round,
          Json{{"seats", seats}, {"seed", seeds::match(spec.seed, group_start)}, {"pair", group}}};
}

std::int64_t swiss_round_size(const TournamentSpec& spec) {
  return static_cast<std::int64_t>(spec.players.size() / 2) * 2;
}

std::int64_t planned_matches(const TournamentSpec& spec) {
  // A ladder never ends: no count of matches makes it over (and shows its master seed).
  if (spec.schedule == Schedule::ladder) return std::numeric_limits<std::int64_t>::max();
  if (spec.schedule == Schedule::swiss) return swiss_round_size(spec) * spec.rounds;
  return static_cast<std::int64_t>(cycle(spec).size()) * spec.rounds;
}

std::vector<JobSpec> initial_jobs(const TournamentSpec& spec) {
  std::vector<JobSpec> jobs;
  if (spec.schedule == Schedule::ladder) return jobs;
  if (spec.schedule == Schedule::swiss) return swiss_round(spec, 0, {});
  const auto seatings = cycle(spec);
  // cycle() lists the seatings of one set of entrants together, seats! of them.
  const std::int64_t group_size = factorial(spec.seats);
  for (std::int64_t r = 0; r < spec.rounds; ++r)
    for (const auto& seats : seatings) {
      const auto index = static_cast<std::int64_t>(jobs.size());
      jobs.push_back(job(spec, index, r, seats, index - index % group_size, index / group_size));
    }
  return jobs;
}

std::vector<JobSpec> swiss_round(const TournamentSpec& spec, std::int64_t round,
                                 const std::vector<StoredResult>& earlier) {
  const std::size_t n = spec.players.size();
  std::vector<double> points(n, 0.0);
  std::vector<bool> had_bye(n, false);
  std::vector<std::vector<bool>> played_in(static_cast<std::size_t>(round), std::vector<bool>(n));
  std::set<std::pair<std::size_t, std::size_t>> met;
  for (const StoredResult& r : earlier) {
    if (r.round < 0 || r.round >= round) continue;
    const auto seats = seated(r.spec);
    for (std::size_t e : seats)
      if (e < n) played_in[static_cast<std::size_t>(r.round)][e] = true;
    if (seats.size() == 2 && seats[0] < n && seats[1] < n) met.insert(std::minmax(seats[0], seats[1]));
    if (auto finish = match_finish(r.spec, r.result)) {
      const auto p = finish_points(*finish);
      for (std::size_t i = 0; i < finish->size(); ++i)
        if ((*finish)[i].entrant < n) points[(*finish)[i].entrant] += p[i];
    }
  }
  for (std::size_t r = 0; r < played_in.size(); ++r)
    for (std::size_t e = 0; e < n; ++e)
      if (!played_in[r][e]) had_bye[e] = true;

  // Rank by points; equal points in an order drawn from the seed, so no one is always first.
  std::vector<std::size_t> ranked(n);
  std::iota(ranked.begin(), ranked.end(), 0);
  Rng rng(seeds::swiss_round(spec.seed, round));
  rng.shuffle(ranked.begin(), ranked.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](std::size_t a, std::size_t b) { return points[a] > points[b]; });
  if (n % 2 == 1) {
    auto bye = std::find_if(ranked.rbegin(), ranked.rend(), [&](std::size_t e) { return !had_bye[e]; });
    ranked.erase(bye == ranked.rend() ? std::prev(ranked.end()) : std::next(bye).base());
  }

  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  std::vector<bool> used(n, false);
  long budget = 200'000;
  if (!pair_without_rematches(ranked, used, met, pairs, budget)) {
    pairs.clear();  // everyone has met everyone they could: pair neighbours in rank order
    for (std::size_t i = 0; i + 1 < ranked.size(); i += 2) pairs.emplace_back(ranked[i], ranked[i + 1]);
  }
  std::vector<JobSpec> jobs;
  std::int64_t index = round * swiss_round_size(spec);
  for (const auto& [a, b] : pairs) {
    jobs.push_back(job(spec, index, round, {a, b}, index, index / 2));
    jobs.push_back(job(spec, index + 1, round, {b, a}, index, index / 2));
    index += 2;
  }
  return jobs;
}

std::optional<std::int64_t> pair_of(const Json& job_spec) {
  const Json& pair = field_or_null(job_spec, "pair");
  if (!pair.is_number_integer() || pair.get<std::int64_t>() < 0) return std::nullopt;
  return pair.get<std::int64_t>();
}

std::int64_t seed_group_size(const TournamentSpec& spec) {
  if (!spec.pairing) return 1;
  if (spec.schedule == Schedule::ladder) return 0;
  std::int64_t n = 1;
  for (std::int64_t k = 2; k <= spec.seats; ++k) n *= k;
  return n;
}

std::optional<SeedGroups::Key> SeedGroups::key_of(const Json& job_spec) {
  const Json& seed = field_or_null(job_spec, "seed");
  if (!seed.is_number_unsigned()) return std::nullopt;
  return Key{seed.get<std::uint64_t>(), pair_of(job_spec).value_or(-1)};
}

SeedGroups::SeedGroups(const TournamentSpec& spec, const std::vector<StoredResult>& results)
    : size_(seed_group_size(spec)) {
  for (const StoredResult& r : results)
    if (auto key = key_of(r.spec); key && r.damage.empty()) ++done_[*key];
}

namespace {

// dealt_from_seed, given the spec's seed_group_size.
std::int64_t dealt_by(std::int64_t group_size, const Json& job_spec) {
  if (const Json& dealt = field_or_null(job_spec, "dealt"); dealt.is_number_integer())
    return dealt.get<std::int64_t>();
  // A ladder's group is one rotation per seat: as many matches as the job has seats.
  return group_size > 0 ? group_size : static_cast<std::int64_t>(seated(job_spec).size());
}

}  // namespace

std::int64_t dealt_from_seed(const TournamentSpec& spec, const Json& job_spec) {
  return dealt_by(seed_group_size(spec), job_spec);
}

bool SeedGroups::over(const Json& job_spec) const {
  const auto key = key_of(job_spec);
  if (!key) return false;
  const auto it = done_.find(*key);
  const auto size = dealt_by(size_, job_spec);
  return it != done_.end() && size > 0 && it->second >= size;
}

bool tournament_over(const Progress& progress) {
  return progress.done >= progress.planned || (progress.concluded && progress.leased == 0);
}

std::vector<std::size_t> seated(const Json& job_spec) {
  std::vector<std::size_t> seats;
  if (!job_spec.is_object() || !job_spec.contains("seats") || !job_spec["seats"].is_array())
    return seats;
  for (const Json& s : job_spec["seats"]) {
    if (!s.is_number_integer() || s.get<std::int64_t>() < 0) return {};
    seats.push_back(s.get<std::size_t>());
  }
  return seats;
}

}  // namespace arbiter::tournament
