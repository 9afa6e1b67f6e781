// Two-entrant statistics and the SPRT (docs/ratings.md, "Head to head" and "SPRT").
#include "tournament/head_to_head.h"

#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "tournament/schedule.h"
#include "tournament/standings.h"

namespace arbiter::tournament {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kZ95 = 1.959963984540054;  // the normal quantile of 0.975
constexpr double kConfidence = 0.975;       // each end of the 95 % interval
constexpr double kPrior = 0.25;              // pseudo-outcomes per category in the SPRT

struct Moments {
  double n = 0;
  double mean = 0;
  double variance = 0;
};

// Outcome i of k categories is worth i / (k - 1).
Moments moments(const std::vector<double>& counts) {
  Moments m;
  const double top = static_cast<double>(counts.size() - 1);
  for (double c : counts) m.n += c;
  if (m.n <= 0) return m;
  for (std::size_t i = 0; i < counts.size(); ++i) m.mean += counts[i] * (i / top);
  m.mean /= m.n;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const double d = i / top - m.mean;
    m.variance += counts[i] * d * d;
  }
  m.variance /= m.n;
  return m;
}

EloDifference interval(const Moments& m) {
  if (m.n <= 0) return {0, -kInf, kInf};
  // Every unit (game or pair) won, or every one lost: no finite estimate and no spread, but an
  // exact one-sided bound (Clopper-Pearson): n wins in n are below 2.5 % likely for a chance of
  // a full score under 0.025^(1/n), and the expected score is at least that chance.
  const double exact = std::pow(1 - kConfidence, 1.0 / m.n);
  if (m.mean >= 1) return {kInf, score_to_elo(exact), kInf};
  if (m.mean <= 0) return {-kInf, -kInf, score_to_elo(1 - exact)};
  const double se = std::sqrt(m.variance / m.n);
  auto at = [](double s) { return s <= 0 ? -kInf : s >= 1 ? kInf : score_to_elo(s); };
  return {at(m.mean), at(m.mean - kZ95 * se), at(m.mean + kZ95 * se)};
}

std::vector<double> as_doubles(const auto& counts) {
  return std::vector<double>(counts.begin(), counts.end());
}

// The first entrant's points in a counted match (1, 0.5 or 0), or nothing when the row cannot
// be counted (an error, damage, a seating without both entrants).
std::optional<double> first_entrant_points(const TournamentSpec& spec, const StoredResult& r) {
  if (!row_damage(spec, r).empty()) return std::nullopt;
  const auto finish = match_finish(r.spec, r.result);
  if (!finish || finish->size() != 2) return std::nullopt;
  const auto points = finish_points(*finish);
  for (std::size_t i = 0; i < finish->size(); ++i)
    if ((*finish)[i].entrant == 0) return points[i];
  return std::nullopt;
}

std::string elo_text(double x) {
  if (std::isinf(x)) return x > 0 ? "+inf" : "-inf";
  return fmt::format("{:+.1f}", x);
}

// "+147.2 [-33.4, +504.0]", or for a clean sweep the bound that holds and why there is no more.
std::string difference_text(const EloDifference& d, std::string_view units) {
  if (d.elo == kInf)
    return fmt::format("at least {} (95 %; every {} won, so no finite estimate)", elo_text(d.low),
                       units);
  if (d.elo == -kInf)
    return fmt::format("at most {} (95 %; every {} lost, so no finite estimate)", elo_text(d.high),
                       units);
  return fmt::format("{} [{}, {}]", elo_text(d.elo), elo_text(d.low), elo_text(d.high));
}

Json elo_json(double x) {
  if (std::isinf(x)) return x > 0 ? "+inf" : "-inf";
  return std::round(x * 100) / 100;
}

}  // namespace

double elo_to_score(double elo) { return 1.0 / (1.0 + std::pow(10.0, -elo / 400.0)); }

double score_to_elo(double score) {
  if (score <= 0) return -kInf;
  if (score >= 1) return kInf;
  return -400.0 * std::log10(1.0 / score - 1.0);
}

EloDifference trinomial_elo(const Trinomial& t) {
  return interval(moments(as_doubles(std::array{t.losses, t.draws, t.wins})));
}

EloDifference pentanomial_elo(const Pentanomial& p) { return interval(moments(as_doubles(p))); }

double likelihood_of_superiority(const Trinomial& t) {
  const double decisive = static_cast<double>(t.wins + t.losses);
  if (decisive == 0) return 0.5;
  return 0.5 * (1.0 + std::erf(static_cast<double>(t.wins - t.losses) / std::sqrt(2.0 * decisive)));
}

double sprt_llr(const std::vector<std::int64_t>& outcomes, double elo0, double elo1) {
  std::vector<double> counts = as_doubles(outcomes);
  for (double& c : counts) c += kPrior;
  const Moments m = moments(counts);
  const double s0 = elo_to_score(elo0);
  const double s1 = elo_to_score(elo1);
  const double s = m.mean;
  return m.n / 2.0 * ((s - s0) * (s - s0) - (s - s1) * (s - s1)) / m.variance;
}

SprtBounds sprt_bounds(double alpha, double beta) {
  return {std::log(beta / (1.0 - alpha)), std::log((1.0 - beta) / alpha)};
}

std::string sprt_verdict_name(SprtVerdict v) {
  switch (v) {
    case SprtVerdict::undecided:
      return "undecided";
    case SprtVerdict::h0:
      return "H0 accepted";
    case SprtVerdict::h1:
      return "H1 accepted";
  }
  return "?";
}

namespace {

// A match's points in half points for the first entrant, or nothing when it cannot be counted.
using Member = std::optional<double>;

// The pair of a row of a paired run: its "pair", or (a job spec that cannot be read) the pair
// its index has in a two-entrant, two-seat schedule, where every pair is two consecutive matches.
std::int64_t pair_of_row(const StoredResult& r) {
  if (auto pair = pair_of(r.spec)) return *pair;
  return r.index / 2;
}

// A unit's points in half points, when all `size` of its matches are stored and counted.
std::optional<std::size_t> unit_points(const std::vector<Member>& members, std::size_t size) {
  double sum = 0;
  for (const auto& m : members) {
    if (!m) return std::nullopt;
    sum += *m;
  }
  if (members.size() != size) return std::nullopt;
  return static_cast<std::size_t>(std::lround(sum * 2));
}

}  // namespace

SprtWalk::SprtWalk(const TournamentSpec& spec) : spec_(spec) {
  state_.bounds = sprt_bounds(spec.sprt->alpha, spec.sprt->beta);
  outcomes_.assign(spec.sprt->pentanomial ? 5 : 3, 0);
}

std::int64_t SprtWalk::next_index() const {
  return spec_.sprt->pentanomial ? next_unit_ * 2 : next_unit_;
}

void SprtWalk::advance(const std::vector<StoredResult>& rows) {
  if (state_.verdict != SprtVerdict::undecided) return;
  const bool pentanomial = spec_.sprt->pentanomial;
  const std::size_t per_unit = pentanomial ? 2 : 1;
  std::map<std::int64_t, std::vector<Member>> units;
  for (const StoredResult& r : rows) {
    if (r.index < next_index()) continue;
    const std::int64_t unit = pentanomial ? pair_of_row(r) : r.index;
    if (unit >= next_unit_) units[unit].push_back(first_entrant_points(spec_, r));
  }
  for (const auto& [id, members] : units) {
    if (id != next_unit_ || members.size() != per_unit) break;
    ++next_unit_;
    const auto p = unit_points(members, per_unit);
    if (!p) {
      ++state_.void_units;
      continue;
    }
    ++outcomes_[*p];
    ++state_.counted;
    state_.llr = sprt_llr(outcomes_, spec_.sprt->elo0, spec_.sprt->elo1);
    if (state_.llr >= state_.bounds.upper) state_.verdict = SprtVerdict::h1;
    else if (state_.llr <= state_.bounds.lower) state_.verdict = SprtVerdict::h0;
    if (state_.verdict != SprtVerdict::undecided) break;
  }
}

std::optional<HeadToHead> head_to_head(const TournamentSpec& spec,
                                       const std::vector<StoredResult>& results) {
  if (spec.players.size() != 2 || spec.seats != 2) return std::nullopt;
  HeadToHead h;
  std::map<std::int64_t, std::vector<Member>> pairs;
  for (const StoredResult& r : results) {
    const auto points = first_entrant_points(spec, r);
    if (points) {
      if (*points == 1) ++h.games.wins;
      else if (*points == 0) ++h.games.losses;
      else ++h.games.draws;
    }
    if (spec.pairing) pairs[pair_of_row(r)].push_back(points);
  }
  for (const auto& [id, members] : pairs) {
    if (auto p = unit_points(members, 2)) ++h.pairs[*p];
    else ++h.incomplete_pairs;
  }
  if (spec.sprt) {
    SprtWalk walk(spec);
    walk.advance(results);
    h.sprt = walk.state();
  }
  return h;
}

std::string head_to_head_text(const TournamentSpec& spec, const HeadToHead& h) {
  const auto& a = spec.players[0].name;
  const auto& b = spec.players[1].name;
  const Trinomial& t = h.games;
  std::string out = fmt::format("{} against {}: {} games, +{} ={} -{}", a, b, t.games(), t.wins,
                                t.draws, t.losses);
  const auto elo = trinomial_elo(t);
  out += fmt::format("; Elo of {} over {}: {}; LOS {:.1f} %; draw ratio {:.1f} %\n", a, b,
                     difference_text(elo, "game"), 100 * likelihood_of_superiority(t),
                     t.games() ? 100.0 * t.draws / t.games() : 0.0);
  if (spec.pairing) {
    const auto pe = pentanomial_elo(h.pairs);
    std::int64_t n = 0;
    for (auto c : h.pairs) n += c;
    out += fmt::format(
        "pairs: {} (LL {}, LD {}, DD/WL {}, WD {}, WW {}); pentanomial Elo of {} "
        "over {}: {}{}\n",
        n, h.pairs[0], h.pairs[1], h.pairs[2], h.pairs[3], h.pairs[4], a, b,
        difference_text(pe, "pair"),
        h.incomplete_pairs ? fmt::format("; {} pair(s) incomplete", h.incomplete_pairs) : "");
  }
  if (h.sprt && spec.sprt) {
    const auto& s = *h.sprt;
    out += fmt::format("SPRT ({}, elo0 {:g}, elo1 {:g}, alpha {:g}, beta {:g}): {}, LLR {:.2f} in "
                       "[{:.2f}, {:.2f}] after {} {}{}\n",
                       spec.sprt->pentanomial ? "pentanomial" : "trinomial", spec.sprt->elo0,
                       spec.sprt->elo1, spec.sprt->alpha, spec.sprt->beta,
                       sprt_verdict_name(s.verdict), s.llr, s.bounds.lower, s.bounds.upper,
                       s.counted, spec.sprt->pentanomial ? "pairs" : "games",
                       s.void_units ? fmt::format(" ({} void)", s.void_units) : "");
  }
  return out;
}

Json head_to_head_json(const TournamentSpec& spec, const HeadToHead& h) {
  const auto elo = trinomial_elo(h.games);
  Json j{{"first", spec.players[0].name},
         {"second", spec.players[1].name},
         {"wins", h.games.wins},
         {"draws", h.games.draws},
         {"losses", h.games.losses},
         {"elo", elo_json(elo.elo)},
         {"elo_low", elo_json(elo.low)},
         {"elo_high", elo_json(elo.high)},
         {"los", likelihood_of_superiority(h.games)},
         {"draw_ratio", h.games.games() ? static_cast<double>(h.games.draws) / h.games.games()
                                        : 0.0}};
  if (spec.pairing) {
    const auto pe = pentanomial_elo(h.pairs);
    j["pentanomial"] = h.pairs;
    j["pentanomial_elo"] = elo_json(pe.elo);
    j["pentanomial_elo_low"] = elo_json(pe.low);
    j["pentanomial_elo_high"] = elo_json(pe.high);
    j["incomplete_pairs"] = h.incomplete_pairs;
  }
  if (h.sprt && spec.sprt) {
    const auto& s = *h.sprt;
    j["sprt"] = {{"verdict", sprt_verdict_name(s.verdict)},
                 {"llr", s.llr},
                 {"lower", s.bounds.lower},
                 {"upper", s.bounds.upper},
                 {"counted", s.counted},
                 {"void", s.void_units},
                 {"model", spec.sprt->pentanomial ? "pentanomial" : "trinomial"},
                 {"elo0", spec.sprt->elo0},
                 {"elo1", spec.sprt->elo1},
                 {"alpha", spec.sprt->alpha},
                 {"beta", spec.sprt->beta}};
  }
  return j;
}

}  // namespace arbiter::tournament
