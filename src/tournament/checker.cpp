// The checker: arrivals through audit_result, re-plays drawn and compared, disputes decided by a
// third play; and the outlier test over a tournament's results.
#include "tournament/checker.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "referee/game_log.h"
#include "tournament/audit.h"
#include "tournament/schedule.h"
#include "tournament/standings.h"
#include "tournament/worker.h"

namespace arbiter::tournament {

std::string role_of(const std::string& worker) {
  const auto slash = worker.find('/');
  return slash == std::string::npos ? std::string() : worker.substr(0, slash);
}

std::string plays_differ(const Json& result_a, const std::string& log_a, const Json& result_b,
                         const std::string& log_b) {
  if (outcome_of(result_a) != outcome_of(result_b))
    return fmt::format("outcomes differ: {} against {}", excerpt(outcome_of(result_a), 120),
                       excerpt(outcome_of(result_b), 120));
  auto a = read_game_log(log_a);
  auto b = read_game_log(log_b);
  if (!a || !b) return "a log does not read";
  if (auto difference = first_difference(*a, *b)) return "logs differ: " + *difference;
  return "";
}

Checker::Checker(Store& store, WorkerRoles& roles, std::uint64_t seed)
    : store_(store), roles_(roles), rng_(seed) {}

Expected<const TournamentSpec*> Checker::spec_of(std::int64_t tournament) {
  if (auto it = specs_.find(tournament); it != specs_.end()) return &it->second;
  auto spec = load_spec(store_, tournament);
  if (!spec) return std::unexpected(spec.error());
  return &specs_.emplace(tournament, std::move(*spec)).first->second;
}

std::shared_ptr<const std::map<std::int64_t, JobSpec>> Checker::scheduled(
    std::int64_t tournament, const TournamentSpec& spec, const StoredResult& row) {
  using Schedule_ = std::map<std::int64_t, JobSpec>;
  // A ladder's job is checked by its own row; Swiss rounds need the results before them; the
  // other schedules are fixed, so made once.
  if (spec.schedule == Schedule::ladder)
    return std::make_shared<const Schedule_>(scheduled_jobs(spec, {row}));
  if (spec.schedule == Schedule::swiss) {
    // The settled results, and this one (its round may have no settled result yet).
    auto all = store_.results(tournament);
    std::vector<StoredResult> rows = all ? *all : std::vector<StoredResult>{};
    rows.push_back(row);
    return std::make_shared<const Schedule_>(scheduled_jobs(spec, rows));
  }
  std::lock_guard lock(schedule_mu_);
  auto& fixed = fixed_schedules_[tournament];
  if (!fixed) fixed = std::make_shared<const Schedule_>(scheduled_jobs(spec, {}));
  return fixed;
}

Expected<CheckReport> Checker::check(std::int64_t max) {
  auto arrivals = roles_.arrivals(max);
  if (!arrivals) return std::unexpected(arrivals.error());
  // The replays, the costly part, run on every core; the verdicts are then taken in order.
  std::vector<Audit> audits(arrivals->size());
  for (const Arrival& a : *arrivals)
    if (auto spec = spec_of(a.tournament); !spec) return std::unexpected(spec.error());
  std::atomic<std::size_t> next{0};
  auto audit_some = [&] {
    for (std::size_t i; (i = next++) < arrivals->size();) audits[i] = audit((*arrivals)[i]);
  };
  std::vector<std::thread> helpers;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 1; t < cores && t < arrivals->size(); ++t) helpers.emplace_back(audit_some);
  audit_some();
  for (auto& h : helpers) h.join();

  CheckReport report;
  std::set<std::int64_t> touched;
  std::map<std::string, std::int64_t> counted;  // per role, this batch
  for (std::size_t i = 0; i < arrivals->size(); ++i) {
    Arrival& a = (*arrivals)[i];
    a.role_arrivals += counted[a.role]++;
    if (!audits[i].ok) return std::unexpected(audits[i].ok.error());
    if (auto ok = check_one(a, audits[i], report); !ok) return std::unexpected(ok.error());
    touched.insert(a.tournament);
  }
  for (std::int64_t t : touched) {
    auto open = roles_.unsettled(t);
    if (!open) return std::unexpected(open.error());
    if (*open > 0) continue;  // rounds and verdicts from settled results only
    auto spec = spec_of(t);
    if (!spec) return std::unexpected(spec.error());
    if (auto ok = advance(store_, t, **spec); !ok) return std::unexpected(ok.error());
    if (auto ok = check_sprt(store_, t, **spec); !ok) return std::unexpected(ok.error());
  }
  return report;
}

Checker::Audit Checker::audit(const Arrival& a) {
  Audit out;
  const TournamentSpec& spec = specs_.at(a.tournament);
  auto rows = store_.results_at(a.tournament, {a.index});
  if (!rows) return {std::unexpected(rows.error())};
  if (rows->empty() || rows->front().job != a.job) return out;  // voided meanwhile
  out.row = rows->front();
  if (!spec.checks.on_arrival && !a.role.empty()) return out;
  auto why = audit_result(store_, spec, *out.row, *scheduled(a.tournament, spec, *out.row));
  if (!why) return {std::unexpected(why.error())};
  out.damage = *why;
  return out;
}

Expected<void> Checker::check_one(const Arrival& a, const Audit& audit, CheckReport& report) {
  ++report.seen;
  const ResultChecks& terms = specs_.at(a.tournament).checks;
  if (!audit.row) return {};  // voided meanwhile
  const StoredResult& row = *audit.row;
  const bool trusted = a.role.empty();
  // 1. On arrival: the row, its job and its log vouch for the result.
  if (!audit.damage.empty()) {
    ++report.failed;
    report.notes.push_back(fmt::format("tournament {} match {}: {}'s result failed its check: {}",
                                       a.tournament, a.index, a.worker, audit.damage));
    return roles_.take_aside(a, "failed", audit.damage, {a.role});
  }
  // 2. A re-play of a result set aside, or the third play of a dispute.
  auto questions = roles_.open_questions(a.job);
  if (!questions) return std::unexpected(questions.error());
  if (!questions->empty()) {
    auto log = store_.log(a.job);
    if (!log) return std::unexpected(log.error());
    const std::string text = *log && (*log)->damage.empty() ? (*log)->text : std::string();
    const bool awaiting =
        std::any_of(questions->begin(), questions->end(),
                    [](const AsideResult& q) { return q.state == "awaiting-replay"; });
    std::vector<std::string> excluded{a.role};
    bool disagreed = false;
    for (const AsideResult& q : *questions) {
      const std::string difference = plays_differ(q.result, q.log, row.result, text);
      if (awaiting && q.state == "awaiting-replay") {
        if (difference.empty() || trusted) {
          // The organizer's own play decides at once.
          if (auto ok =
                  roles_.settle(q.id, difference.empty() ? "agreed" : "overruled", difference);
              !ok)
            return ok;
          ++(difference.empty() ? report.agreed : report.decided);
          if (!difference.empty()) ++report.disputes;
        } else {
          if (auto ok = roles_.settle(q.id, "disputed", difference); !ok) return ok;
          ++report.disputes;
          disagreed = true;
          excluded.push_back(q.role);
          report.notes.push_back(
              fmt::format("tournament {} match {}: {} and {} disagree: {}; a third worker decides",
                          a.tournament, a.index, q.worker, a.worker, difference));
        }
      } else if (!awaiting) {
        // The third play: it sides with one of the two.
        if (auto ok = roles_.settle(q.id, difference.empty() ? "upheld" : "overruled", difference);
            !ok)
          return ok;
        ++report.decided;
      }
    }
    if (disagreed) return roles_.take_aside(a, "disputed", "a re-play disagreed", excluded);
    ++report.passed;
    return roles_.pass(a);
  }
  // 3. A first result: played again by another worker, for a new worker always, otherwise by
  // the tournament's share. A match a worker says it could not play has no log to replay, so
  // it is always played again: otherwise a worker could wipe out the matches it dislikes.
  if (!trusted) {
    const bool newcomer = a.role_arrivals < terms.replay_first;
    const bool unplayed = row.result.contains("error");
    const bool drawn = terms.replay_share > 0 &&
                       static_cast<double>(rng_.below(1'000'000)) < terms.replay_share * 1e6;
    if (newcomer || unplayed || drawn) {
      ++report.replays;
      return roles_.take_aside(a, "awaiting-replay", "", {a.role});
    }
  }
  ++report.passed;
  return roles_.pass(a);
}

namespace {

// A pairing: the tournament's entrants in their seats.
using Pairing = std::vector<std::size_t>;

struct PointsOf {
  std::vector<double> sum;  // per seat
  std::int64_t n = 0;
};

}  // namespace

std::map<std::string, Outlier> outlier_scores(const TournamentSpec& spec,
                                              const std::vector<StoredResult>& results) {
  // Points per seat of each believable result, normalised to 0..1.
  struct Played {
    std::string role;
    Pairing pairing;
    std::vector<double> points;
  };
  std::vector<Played> played;
  for (const StoredResult& r : results) {
    if (!r.damage.empty()) continue;
    auto finish = match_finish(r.spec, r.result);
    if (!finish) continue;
    Pairing pairing = seated(r.spec);
    if (pairing.size() < 2) continue;
    std::vector<double> points = finish_points(*finish);
    if (points.size() != pairing.size()) continue;
    for (double& p : points) p /= static_cast<double>(pairing.size() - 1);
    played.push_back({role_of(r.worker), std::move(pairing), std::move(points)});
  }
  // Sums per pairing and per (pairing, role), so that "the others" is their difference.
  std::map<Pairing, PointsOf> all;
  std::map<std::pair<std::string, Pairing>, PointsOf> by_role;
  auto add = [](PointsOf& p, const std::vector<double>& points) {
    if (p.sum.empty()) p.sum.assign(points.size(), 0);
    for (std::size_t s = 0; s < points.size(); ++s) p.sum[s] += points[s];
    ++p.n;
  };
  for (const Played& p : played) {
    add(all[p.pairing], p.points);
    if (!p.role.empty()) add(by_role[{p.role, p.pairing}], p.points);
  }
  // Per role and entrant: the deviations from what the others scored in the same seat.
  std::map<std::string, std::map<std::size_t, std::pair<double, double>>> deviation;
  std::map<std::string, std::int64_t> matches;
  for (const Played& p : played) {
    if (p.role.empty()) continue;
    const PointsOf& everyone = all[p.pairing];
    const PointsOf& mine = by_role[{p.role, p.pairing}];
    const std::int64_t others = everyone.n - mine.n;
    if (others < 3) continue;
    ++matches[p.role];
    for (std::size_t s = 0; s < p.points.size(); ++s) {
      const double mean = (everyone.sum[s] - mine.sum[s]) / others;
      // The variance of a 0/1 score with a mean pulled toward 1/2 by one half-point of prior,
      // and at least 0.05: a pairing one side nearly always wins would make each rare upset a
      // huge deviation, and the sum far from normal.
      const double shrunk = (everyone.sum[s] - mine.sum[s] + 0.5) / (others + 1);
      const double var = std::max(0.05, shrunk * (1 - shrunk));
      auto& [d, v] = deviation[p.role][p.pairing[s]];
      d += p.points[s] - mean;
      v += var;
    }
  }
  std::map<std::string, Outlier> out;
  for (const auto& [role, n] : matches) {
    Outlier o;
    o.matches = n;
    for (const auto& [entrant, dv] : deviation[role]) {
      const double z = dv.second > 0 ? dv.first / std::sqrt(dv.second) : 0;
      if (std::abs(z) > std::abs(o.z)) {
        o.z = z;
        o.entrant = entrant < spec.players.size() ? spec.players[entrant].name : "?";
      }
    }
    out[role] = o;
  }
  return out;
}

}  // namespace arbiter::tournament
