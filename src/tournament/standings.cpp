// StandingsTable: finishes from stored results, the table, and its renderings.
#include "tournament/standings.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "arena/bot_shelf.h"

#include "core/ejection.h"
#include "core/entropy.h"
#include "core/shell_words.h"
#include "tournament/schedule.h"

namespace arbiter::tournament {

namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::optional<MatchFinish> match_finish(const Json& job_spec, const Json& result) {
  const auto seats = seated(job_spec);
  if (seats.empty() || !result.is_object() || result.contains("error")) return std::nullopt;
  const std::size_t k = seats.size();
  if (std::set<std::size_t>(seats.begin(), seats.end()).size() != k) return std::nullopt;
  std::vector<bool> won(k, false);
  std::vector<int> ejected_at(k, -1);
  std::vector<std::int64_t> score(k, 0);
  // A seat is an integer in 0..k-1; a float is refused before any conversion (a huge one has
  // no value as an integer at all: found by fuzz/targets/store_rows.cpp).
  const auto seat_of = [k](const Json& v) -> std::optional<std::size_t> {
    if (!v.is_number_integer()) return std::nullopt;
    const bool in_range = v.is_number_unsigned()
                              ? v.get<std::uint64_t>() < k
                              : v.get<std::int64_t>() >= 0 &&
                                    static_cast<std::uint64_t>(v.get<std::int64_t>()) < k;
    if (!in_range) return std::nullopt;
    return v.get<std::size_t>();
  };
  try {
    for (const Json& w : result.at("winners")) {
      const auto s = seat_of(w);
      if (!s) return std::nullopt;
      won[*s] = true;
    }
    int order = 0;
    for (const Json& e : result.at("ejections")) {
      const auto s = seat_of(e.at("seat"));
      if (!s) return std::nullopt;
      ejected_at[*s] = order++;
    }
    const Json& scores = result.at("scores");
    for (std::size_t s = 0; s < k && s < scores.size(); ++s) {
      if (!scores[s].is_number_integer()) return std::nullopt;
      score[s] = scores[s].get<std::int64_t>();
    }
  } catch (const Json::exception&) {
    return std::nullopt;
  }
  // Sort keys, smaller is better: winners; then still in, by score; then ejected, latest first.
  auto key = [&](std::size_t s) {
    if (won[s]) return std::tuple<int, std::int64_t>(0, 0);
    if (ejected_at[s] < 0) return std::tuple<int, std::int64_t>(1, -score[s]);
    return std::tuple<int, std::int64_t>(2, -ejected_at[s]);
  };
  MatchFinish finish;
  for (std::size_t s = 0; s < k; ++s) {
    int place = 0;
    for (std::size_t o = 0; o < k; ++o)
      if (key(o) < key(s)) ++place;
    finish.push_back({seats[s], place});
  }
  return finish;
}

std::vector<double> finish_points(const MatchFinish& finish) {
  std::vector<double> points(finish.size(), 0.0);
  if (finish.size() < 2) return points;
  for (std::size_t i = 0; i < finish.size(); ++i) {
    for (std::size_t j = 0; j < finish.size(); ++j) {
      if (i == j) continue;
      if (finish[i].place < finish[j].place) points[i] += 1.0;
      if (finish[i].place == finish[j].place) points[i] += 0.5;
    }
    points[i] /= static_cast<double>(finish.size() - 1);
  }
  return points;
}

std::string row_damage(const TournamentSpec& spec, const StoredResult& row) {
  if (!row.damage.empty()) return row.damage;
  for (std::size_t e : seated(row.spec))
    if (e >= spec.players.size())
      return fmt::format("it seats entrant {}, the tournament has {}", e, spec.players.size());
  return "";
}

namespace {

// A result's per-seat latency (worker.cpp: seat_latency of its log), added to its entrants'. A
// row whose latency does not decode adds none (a stored row is not taken on trust).
void add_latency(const Json& result, const MatchFinish& finish, bool cpu_judged,
                 std::vector<EntrantLatency>& latency) {
  const Json& seats = field_or_null(result, "latency");
  if (!seats.is_array() || seats.size() != finish.size()) return;
  for (std::size_t s = 0; s < finish.size(); ++s) {
    auto wall = LatencyHistogram::decode(field_or_null(seats[s], "wall"));
    if (!wall) continue;
    const Json& cpu_field = field_or_null(seats[s], "cpu");
    auto cpu = cpu_field.is_null() ? Expected<LatencyHistogram>(LatencyHistogram())
                                   : LatencyHistogram::decode(cpu_field);
    if (!cpu) continue;
    EntrantLatency& l = latency[finish[s].entrant];
    l.wall.merge(*wall);
    l.judged.merge(cpu_judged && cpu->count() > 0 ? *cpu : *wall);
  }
}

// A result's plays voided for a timeout under load, counted for the table and for the
// entrants whose timeouts they were.
void add_voided(const Json& result, const MatchFinish& finish, StandingsTable& out) {
  const Json& voided = field_or_null(result, "voided");
  if (!voided.is_array()) return;
  for (const Json& play : voided) {
    ++out.voided;
    const Json& ejections = field_or_null(play, "ejections");
    if (!ejections.is_array()) continue;
    for (const Json& e : ejections) {
      const Json& seat = field_or_null(e, "seat");
      if (seat.is_number_unsigned() && seat.get<std::size_t>() < finish.size())
        ++out.rows[finish[seat.get<std::size_t>()].entrant].voided;
    }
  }
}

}  // namespace

StandingsTable compute_standings(const TournamentSpec& spec, const std::vector<StoredResult>& results) {
  const std::size_t n = spec.players.size();
  StandingsTable out;
  out.rows.resize(n);
  std::vector<double> score_sum(n, 0.0);
  for (std::size_t e = 0; e < n; ++e) {
    out.rows[e].name = spec.players[e].name;
    out.rows[e].bot = spec.players[e].bot;
  }
  std::vector<MatchFinish> matches;
  std::map<std::int64_t, std::vector<MatchFinish>> by_round;
  std::vector<EntrantLatency> latency(n);
  out.cpu_judged = spec.limit_by == LimitBy::cpu;
  for (const StoredResult& r : results) {
    if (!row_damage(spec, r).empty()) {
      ++out.damaged;
      continue;
    }
    auto finish = match_finish(r.spec, r.result);
    if (!finish) {
      ++out.errors;
      continue;
    }
    ++out.matches;
    const auto points = finish_points(*finish);
    const Json& scores = r.result["scores"];
    for (std::size_t s = 0; s < finish->size(); ++s) {
      StandingsRow& row = out.rows[(*finish)[s].entrant];
      ++row.matches;
      row.points += points[s];
      if ((*finish)[s].place == 0 && !r.result["winners"].empty()) ++row.wins;
      if (s < scores.size() && scores[s].is_number_integer())
        score_sum[(*finish)[s].entrant] += scores[s].get<double>();
    }
    for (const Json& e : r.result["ejections"]) {
      StandingsRow& row = out.rows[(*finish)[e["seat"].get<std::size_t>()].entrant];
      ++row.ejections;
      // Only the names core/ejection.h knows: a stored row is not taken on trust.
      const std::string why = string_or(e, "why");
      ++row.ejected_for[why_from_string(why) ? why : "unknown"];
      if (why == "timeout" || why == "time-bank-exhausted" || why == "timeout-under-load")
        ++latency[(*finish)[e["seat"].get<std::size_t>()].entrant].timeouts;
    }
    add_latency(r.result, *finish, out.cpu_judged, latency);
    add_voided(r.result, *finish, out);
    matches.push_back(*finish);
    by_round[r.round].push_back(std::move(*finish));
  }
  const auto elo = elo_ratings(n, matches);
  std::vector<std::vector<MatchFinish>> periods;
  for (auto& [round, finishes] : by_round) periods.push_back(std::move(finishes));
  const auto glicko = glicko2_ratings(n, periods);
  for (std::size_t e = 0; e < n; ++e) {
    out.rows[e].elo = elo[e];
    out.rows[e].glicko = glicko[e];
    out.rows[e].latency = latency[e].summary(
        std::chrono::milliseconds(spec.players[e].per_call_ms.value_or(spec.per_call_ms)));
    if (out.rows[e].matches > 0)
      out.rows[e].mean_score = score_sum[e] / static_cast<double>(out.rows[e].matches);
  }
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const auto& a, const auto& b) {
    if (a.points != b.points) return a.points > b.points;
    return a.elo.elo > b.elo.elo;
  });
  return out;
}

namespace {

// A stored bot's entrant shows the version it plays: "alice (alice@3)".
std::string shown_name(const StandingsRow& r) {
  if (!is_stored_bot(r.bot)) return r.name;
  return fmt::format("{} ({})", r.name, r.bot.substr(kStoredBotPrefix.size()));
}

}  // namespace

namespace {

std::string ms_text(const std::optional<Duration>& d) {
  if (!d) return "-";
  const double ms = std::chrono::duration<double, std::milli>(*d).count();
  return ms < 10 ? fmt::format("{:.2f} ms", ms) : fmt::format("{:.0f} ms", ms);
}

// The latency table (as fastchess's -show-latency), when some entrant's calls were timed.
std::string latency_text(const StandingsTable& s) {
  if (std::none_of(s.rows.begin(), s.rows.end(),
                   [](const StandingsRow& r) { return r.latency.calls > 0; }))
    return "";
  std::size_t width = 4;
  for (const auto& r : s.rows) width = std::max(width, r.name.size());
  std::string out =
      fmt::format("     {:<{}}  {:>7}  {:>9}  {:>9}  {:>10}  {:>8}\n", "latency", width, "calls",
                  "median", "p99", s.cpu_judged ? "p99 cpu/lim" : "p99/limit", "timeouts");
  for (const auto& r : s.rows) {
    const LatencySummary& l = r.latency;
    out += fmt::format("     {:<{}}  {:>7}  {:>9}  {:>9}  {:>10}  {:>8}\n", r.name, width, l.calls,
                       ms_text(l.median), ms_text(l.p99),
                       l.limit_share ? fmt::format("{:.0f} %", *l.limit_share * 100) : "-",
                       l.timeouts);
  }
  return out;
}

}  // namespace

std::string standings_text(const StandingsTable& s) {
  std::size_t width = 4;
  for (const auto& r : s.rows) width = std::max(width, shown_name(r).size());
  std::string out = fmt::format("{:>3}  {:<{}}  {:>7} {:>6} {:>8} {:>6}  {:>16}  {:>13}  {:>8}\n",
                                "#", "name", width, "matches", "wins", "points", "ejects",
                                "elo±95% (mean 0)", "glicko-2", "score");
  int place = 0;
  for (const auto& r : s.rows) {
    const double half = (r.elo.high - r.elo.low) / 2;
    out += fmt::format(
        "{:>3}  {:<{}}  {:>7} {:>6} {:>8.1f} {:>6}  {:>+7.0f} ± {:<6.0f}  {:>6.0f} ± {:<4.0f}  "
        "{:>8.1f}\n",
        ++place, shown_name(r), width, r.matches, r.wins, r.points, r.ejections,
        std::abs(r.elo.elo) < 0.5 ? 0.0 : r.elo.elo, std::isfinite(half) ? half : 9999.0,
        r.glicko.rating, 2 * r.glicko.rd, r.mean_score);
  }
  for (const auto& r : s.rows) {
    if (r.ejected_for.empty()) continue;
    std::vector<std::string> parts;
    for (const auto& [why, n] : r.ejected_for) parts.push_back(fmt::format("{} {}", n, why));
    out += fmt::format("     ejections of {}: {}\n", r.name, fmt::join(parts, ", "));
  }
  out += latency_text(s);
  if (s.voided > 0) {
    std::vector<std::string> parts;
    for (const auto& r : s.rows)
      if (r.voided > 0) parts.push_back(fmt::format("{} {}", r.name, r.voided));
    out += fmt::format("     voided for a timeout under load and played again: {} ({})\n", s.voided,
                       fmt::join(parts, ", "));
  }
  out += fmt::format("{} matches", s.matches);
  if (s.errors > 0) out += fmt::format(", {} could not be played (see tournament results --matches)", s.errors);
  if (s.damaged > 0)
    out += fmt::format(", {} damaged (left out; see tournament verify)", s.damaged);
  out += "\n";
  return out;
}

std::string standings_csv(const StandingsTable& s) {
  std::string out =
      "rank,name,bot,matches,wins,points,ejections,mean_score,elo,elo_low,elo_high,glicko,"
      "glicko_rd,glicko_volatility,calls,median_ms,p99_ms,limit_share,timeouts,voided\n";
  int rank = 0;
  const auto ms = [](const std::optional<Duration>& d) {
    return d ? fmt::format("{:.3f}", std::chrono::duration<double, std::milli>(*d).count())
             : std::string();
  };
  for (const auto& r : s.rows) {
    const LatencySummary& l = r.latency;
    out += fmt::format(
        "{},{},{},{},{},{:.3f},{},{:.3f},{:.1f},{:.1f},{:.1f},{:.1f},{:.1f},{:.6f},{},{},{},{},{},{"
        "}\n",
        ++rank, r.name, csv_field(r.bot), r.matches, r.wins, r.points, r.ejections, r.mean_score,
        r.elo.elo, r.elo.low, r.elo.high, r.glicko.rating, r.glicko.rd, r.glicko.volatility,
        l.calls, ms(l.median), ms(l.p99),
        l.limit_share ? fmt::format("{:.4f}", *l.limit_share) : std::string(), l.timeouts,
        r.voided);
  }
  return out;
}

namespace {

Json latency_json(const LatencySummary& l) {
  const auto ms = [](const std::optional<Duration>& d) {
    return d ? Json(std::chrono::duration<double, std::milli>(*d).count()) : Json(nullptr);
  };
  return {{"calls", l.calls},
          {"median_ms", ms(l.median)},
          {"p99_ms", ms(l.p99)},
          {"limit_share", l.limit_share ? Json(*l.limit_share) : Json(nullptr)},
          {"timeouts", l.timeouts}};
}

}  // namespace

Json standings_json(const StandingsTable& s) {
  Json rows = Json::array();
  auto finite = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  for (const auto& r : s.rows)
    rows.push_back(
        {{"name", r.name},
         {"bot", r.bot},
         {"matches", r.matches},
         {"wins", r.wins},
         {"points", r.points},
         {"ejections", r.ejections},
         {"ejected_for", r.ejected_for},
         {"mean_score", r.mean_score},
         {"elo", {{"rating", r.elo.elo}, {"low", finite(r.elo.low)}, {"high", finite(r.elo.high)}}},
         {"glicko2",
          {{"rating", r.glicko.rating}, {"rd", r.glicko.rd}, {"volatility", r.glicko.volatility}}},
         {"latency", latency_json(r.latency)},
         {"voided", r.voided}});
  return {{"standings", rows},  {"matches", s.matches},
          {"errors", s.errors}, {"damaged", s.damaged},
          {"voided", s.voided}, {"limit_by", s.cpu_judged ? "cpu" : "wall"}};
}

std::string play_command(std::string_view game, const std::vector<std::string>& players,
                         std::uint64_t seed, const Json& config, double per_call_seconds,
                         std::string_view clock, const std::vector<std::string>& flags) {
  std::string cmd = "arbiter play " + std::string(game);
  for (const auto& p : players) cmd += " --player " + shell_word(p);
  cmd += " --seed " + std::to_string(seed);
  if (!config.is_null()) cmd += " --config " + shell_word(dump(config));
  if (per_call_seconds != 6.0) cmd += fmt::format(" --per-call {}", per_call_seconds);
  if (!clock.empty()) cmd += " --clock " + shell_word(std::string(clock));
  for (const auto& word : flags) cmd += " " + shell_word(word);
  return cmd;
}

namespace {

// The job's seed; 0 for a damaged spec (never thrown on: these read back stored data).
std::uint64_t seed_of(const Json& job_spec) {
  return to_natural(field_or_null(job_spec, "seed"), "the seed").value_or(0);
}

Json array_or_empty(const Json& object, std::string_view key) {
  Json j = field_or_null(object, key);
  return j.is_array() ? j : Json::array();
}

}  // namespace

std::string reproduce_command(const TournamentSpec& spec, const Json& job_spec, bool with_key,
                              std::string_view store) {
  std::vector<std::string> players;
  // The first seated program's terms are play's flags; another program's own terms are
  // --entrant settings over them (a comment where settings cannot say it: an emptied list).
  std::optional<ProgramTerms> terms;
  std::vector<std::string> own_terms;
  std::string differ;
  for (std::size_t e : seated(job_spec)) {
    if (e >= spec.players.size()) continue;
    const Entrant& entrant = spec.players[e];
    players.push_back(entrant.name + ":" + entrant.bot);
    if (!entrant.bot.starts_with("cmd:") && !is_stored_bot(entrant.bot)) continue;
    const ProgramTerms& own = entrant.program ? *entrant.program : spec.program;
    if (!terms) {
      terms = own;
    } else if (own != *terms) {
      if (auto settings = term_settings(own, *terms)) {
        for (const auto& [key, value] : *settings)
          own_terms.insert(own_terms.end(),
                           {"--entrant", fmt::format("{}:{}={}", entrant.name, key, value)});
      } else {
        differ +=
            fmt::format("{}{}: {}", differ.empty() ? "" : "; ", entrant.name, describe_terms(own));
      }
    }
  }
  std::vector<std::string> flags = terms ? term_flags(*terms) : std::vector<std::string>();
  flags.insert(flags.end(), own_terms.begin(), own_terms.end());
  // The programs' seeds come from the key (only programs have them).
  if (terms && with_key && !spec.program_key.empty())
    flags.insert(flags.end(), {"--program-key", to_hex(spec.program_key)});
  // tcp entrants' clients connect where they did.
  const auto seats = seated(job_spec);
  if (std::any_of(seats.begin(), seats.end(), [&](std::size_t e) {
        return e < spec.players.size() && is_stored_bot(spec.players[e].bot);
      }))
    flags.insert(flags.end(), {"--store", std::string(store)});
  if (!spec.listen.empty() && std::any_of(seats.begin(), seats.end(), [&](std::size_t e) {
        return e < spec.players.size() && spec.players[e].bot == "tcp";
      }))
    flags.insert(flags.end(), {"--listen", spec.listen});
  if (spec.limit_by == LimitBy::cpu) {
    flags.insert(flags.end(), {"--limit-by", "cpu"});
    if (spec.backstop != RefereeOptions::kDefaultBackstop)
      flags.insert(flags.end(), {"--backstop", fmt::format("{}", spec.backstop)});
  }
  if (!spec.load_check) flags.push_back("--no-load-check");
  // An entrant's own time limits, as play takes them.
  for (std::size_t e : seated(job_spec)) {
    if (e >= spec.players.size()) continue;
    const Entrant& entrant = spec.players[e];
    if (entrant.per_call_ms)
      flags.insert(flags.end(), {"--entrant", fmt::format("{}:per_call={}", entrant.name,
                                                          *entrant.per_call_ms / 1000.0)});
    if (entrant.clock)
      flags.insert(flags.end(), {"--entrant", entrant.name + ":clock=" +
                                                  format_time_control(*entrant.clock)});
  }
  // Reference seconds stay so: play scales them by the factor of the machine it runs on.
  if (spec.per_call_ref)
    flags.insert(flags.begin(), {"--per-call", format_per_call(spec.per_call_ms, true)});
  std::string cmd =
      play_command(spec.game, players, seed_of(job_spec), spec.config,
                   spec.per_call_ref ? 6.0 : spec.per_call_ms / 1000.0,
                   spec.clock ? format_time_control(*spec.clock) : std::string(), flags);
  if (!differ.empty()) cmd += "  # runs under other terms: " + differ;
  return cmd;
}

Crosstable compute_crosstable(const TournamentSpec& spec, const std::vector<StoredResult>& results,
                              const StandingsTable& order) {
  Crosstable c;
  std::map<std::string, std::size_t> position;
  for (const auto& row : order.rows) {
    position[row.name] = c.names.size();
    c.names.push_back(row.name);
  }
  c.cells.assign(c.names.size(), std::vector<CrosstableCell>(c.names.size()));
  // Entrant index -> crosstable position.
  std::vector<std::size_t> at(spec.players.size(), c.names.size());
  for (std::size_t e = 0; e < spec.players.size(); ++e)
    if (auto it = position.find(spec.players[e].name); it != position.end()) at[e] = it->second;
  for (const StoredResult& r : results) {
    if (!row_damage(spec, r).empty()) continue;
    const auto finish = match_finish(r.spec, r.result);
    if (!finish) continue;
    for (const PairGame& g : pairwise_games(*finish)) {
      const std::size_t a = at[g.a], b = at[g.b];
      if (a >= c.names.size() || b >= c.names.size()) continue;
      c.cells[a][b].points += g.score;
      c.cells[b][a].points += 1.0 - g.score;
      ++c.cells[a][b].games;
      ++c.cells[b][a].games;
    }
  }
  return c;
}

std::string crosstable_text(const Crosstable& c) {
  std::size_t width = 4;
  for (const auto& n : c.names) width = std::max(width, n.size());
  auto cell = [&](std::size_t i, std::size_t j) {
    if (i == j) return std::string("-");
    const auto& x = c.cells[i][j];
    return fmt::format("{:g}/{}", x.points, x.games);
  };
  std::size_t cell_width = 3;
  for (std::size_t i = 0; i < c.names.size(); ++i) {
    cell_width = std::max(cell_width, std::min<std::size_t>(c.names[i].size(), 12));
    for (std::size_t j = 0; j < c.names.size(); ++j) cell_width = std::max(cell_width, cell(i, j).size());
  }
  std::string out = fmt::format("{:>3}  {:<{}}", "#", "name", width);
  for (std::size_t j = 0; j < c.names.size(); ++j)
    out += fmt::format("  {:>{}}", c.names[j].substr(0, 12), cell_width);
  out += "   points against each (points/games)\n";
  for (std::size_t i = 0; i < c.names.size(); ++i) {
    out += fmt::format("{:>3}  {:<{}}", i + 1, c.names[i], width);
    for (std::size_t j = 0; j < c.names.size(); ++j)
      out += fmt::format("  {:>{}}", cell(i, j), cell_width);
    out += "\n";
  }
  return out;
}

std::string crosstable_csv(const Crosstable& c) {
  std::string out = "name,opponent,points,games\n";
  for (std::size_t i = 0; i < c.names.size(); ++i)
    for (std::size_t j = 0; j < c.names.size(); ++j)
      if (i != j)
        out += fmt::format("{},{},{:g},{}\n", c.names[i], c.names[j], c.cells[i][j].points,
                           c.cells[i][j].games);
  return out;
}

Json crosstable_json(const Crosstable& c) {
  Json rows = Json::array();
  for (std::size_t i = 0; i < c.names.size(); ++i) {
    Json against = Json::object();
    for (std::size_t j = 0; j < c.names.size(); ++j)
      if (i != j)
        against[c.names[j]] = {{"points", c.cells[i][j].points}, {"games", c.cells[i][j].games}};
    rows.push_back({{"name", c.names[i]}, {"against", against}});
  }
  return rows;
}

std::string matches_csv(const TournamentSpec& spec, const std::vector<StoredResult>& results,
                        std::string_view store) {
  std::string out =
      "index,round,pair,seed,seats,winners,scores,ejections,stderr,seconds,worker,error,"
      "reproduce\n";
  for (const StoredResult& r : results) {
    const std::string damage = row_damage(spec, r);
    std::vector<std::string> names;
    for (std::size_t e : seated(r.spec))
      names.push_back(e < spec.players.size() ? spec.players[e].name : "?");
    auto name_of = [&](const Json& seat) {
      const auto s = seat.is_number_unsigned() ? seat.get<std::size_t>() : names.size();
      return s < names.size() ? names[s] : std::string("?");
    };
    std::vector<std::string> winners, scores, ejections;
    if (damage.empty()) {
      for (const Json& w : array_or_empty(r.result, "winners")) winners.push_back(name_of(w));
      for (const Json& s : array_or_empty(r.result, "scores")) scores.push_back(dump(s));
      for (const Json& e : array_or_empty(r.result, "ejections"))
        ejections.push_back(name_of(field_or_null(e, "seat")) + ":" + string_or(e, "why"));
    }
    // Bytes each program wrote on stderr (see: arbiter tournament log ID N --stderr).
    std::vector<std::string> stderr_bytes;
    if (const Json& b = field_or_null(r.result, "stderr_bytes"); b.is_object())
      for (const auto& [seat, bytes] : b.items())
        stderr_bytes.push_back(fmt::format("{}:{}", seat, excerpt(bytes)));
    auto joined = [](const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, " ")); };
    const auto pair = pair_of(r.spec);
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{:.3f},{},{},{}\n", r.index, r.round,
        pair ? std::to_string(*pair) : std::string(), seed_of(r.spec), csv_field(joined(names)),
        csv_field(joined(winners)), csv_field(joined(scores)), csv_field(joined(ejections)),
        csv_field(joined(stderr_bytes)), r.seconds, csv_field(r.worker),
        csv_field(damage.empty() ? string_or(r.result, "error") : "damaged: " + damage),
        csv_field(reproduce_command(spec, r.spec, true, store)));
  }
  return out;
}

}  // namespace arbiter::tournament
