// audit_tournament: each row through the checks of audit.h, the first failing one reported.
#include "tournament/audit.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "arena/registry.h"
#include "referee/game_log.h"
#include "tournament/latency.h"
#include "tournament/schedule.h"
#include "tournament/standings.h"

namespace arbiter::tournament {

Json outcome_of(const Json& result) {
  Json j = result;
  for (const char* extra : {"type", "details", "stderr_bytes", "stderr_log_errors", "voided",
                            "latency", "speed_factor"})
    j.erase(extra);
  return j;
}

// Swiss rounds after the first come from the stored results of the rounds before them, as
// advance() made them. A ladder's matchmaker cannot be run again, but each of its jobs must be
// the one its seats and group give (the group's seed, its first match at most a rotation before
// it).
std::map<std::int64_t, JobSpec> scheduled_jobs(const TournamentSpec& spec,
                                               const std::vector<StoredResult>& results) {
  std::map<std::int64_t, JobSpec> out;
  if (spec.schedule == Schedule::ladder) {
    for (const StoredResult& r : results) {
      const auto seats = seated(r.spec);
      const auto group = pair_of(r.spec);
      if (!group || *group > r.index || r.index - *group >= static_cast<std::int64_t>(seats.size()))
        continue;
      out[r.index] = job(spec, r.index, r.round, seats, *group, *group);
    }
    return out;
  }
  for (JobSpec& j : initial_jobs(spec)) out[j.index] = std::move(j);
  if (spec.schedule == Schedule::swiss) {
    std::int64_t last_round = 0;
    for (const StoredResult& r : results) last_round = std::max(last_round, r.round);
    for (std::int64_t round = 1; round <= last_round && round < spec.rounds; ++round)
      for (JobSpec& j : swiss_round(spec, round, results)) out[j.index] = std::move(j);
  }
  return out;
}

namespace {

// Why the log's header is not that of the job's match in this tournament; empty if it is.
// The limits a turn-based match's header states are the tournament's: what they are judged on,
// the backstop, and the per-call limit (scaled by a plausible speed factor when it is given in
// reference seconds). A worker's log cannot loosen them.
std::string limits_damage(const TournamentSpec& spec, const Json& header) {
  const GameEntry* game = find_game(spec.game);
  if (game == nullptr || !game->clocked) return "";
  const bool by_cpu = string_or(header, "limit_by") == "cpu";
  if (by_cpu != (spec.limit_by == LimitBy::cpu))
    return fmt::format("its log's limits are judged on {} time, the tournament's on {}",
                       by_cpu ? "CPU" : "wall-clock", limit_by_name(spec.limit_by));
  const Json backstop = field_or_null(header, "backstop");
  if (by_cpu && (!backstop.is_number() || backstop.get<double>() != spec.backstop))
    return fmt::format("its log's backstop is {}, the tournament's {}", excerpt(backstop),
                       spec.backstop);
  const std::int64_t ms = int_or(header, "per_call_ms", -1);
  std::int64_t want = spec.per_call_ms;
  if (spec.per_call_ref) {
    const Json factor = field_or_null(header, "speed_factor");
    if (!factor.is_number() || !(factor.get<double>() >= 0.05 && factor.get<double>() <= 20))
      return fmt::format("its log's speed_factor {} is not a machine's", excerpt(factor));
    want = std::max<std::int64_t>(
        1, std::llround(static_cast<double>(spec.per_call_ms) * factor.get<double>()));
  }
  if (ms != want)
    return fmt::format("its log's per-call limit is {} ms, the tournament's {} ms", ms, want);
  return "";
}

std::string header_damage(const TournamentSpec& spec, const Json& job_spec, const Json& header) {
  if (string_or(header, "game") != spec.game)
    return fmt::format("its log is of game \"{}\", the tournament's is {}",
                       string_or(header, "game"), spec.game);
  if (field_or_null(header, "seed") != field_or_null(job_spec, "seed"))
    return fmt::format("its log is of seed {}, the match's is {}",
                       excerpt(field_or_null(header, "seed")),
                       excerpt(field_or_null(job_spec, "seed")));
  if (auto why = limits_damage(spec, header); !why.empty()) return why;
  const Json names = field_or_null(header, "seats");
  const auto seats = seated(job_spec);
  for (std::size_t s = 0; s < seats.size() && s < names.size(); ++s)
    if (!names[s].is_string() || names[s].get<std::string>() != spec.players[seats[s]].name)
      return fmt::format("its log seats {} in seat {}, the match seats {}", excerpt(names[s]), s,
                         spec.players[seats[s]].name);
  return "";
}

// Why the row is damaged, or empty. Counts what it sees in `report`.
Expected<std::string> audit_row(Store& store, const TournamentSpec& spec, const StoredResult& r,
                                const std::map<std::int64_t, JobSpec>& scheduled,
                                AuditReport& report) {
  if (auto why = row_damage(spec, r); !why.empty()) return why;
  const auto planned = scheduled.find(r.index);
  if (planned == scheduled.end()) return std::string("the schedule has no match of this index");
  if (planned->second.spec != r.spec || planned->second.round != r.round)
    return fmt::format("its job {} (round {}) is not the schedule's {} (round {})", excerpt(r.spec),
                       r.round, excerpt(planned->second.spec), planned->second.round);
  auto log = store.log(r.job);
  if (!log) return std::unexpected(log.error());
  if (!log->has_value()) return std::string("its log is missing");
  if (!(*log)->damage.empty()) return (*log)->damage;
  if (!(*log)->checksummed) ++report.unverified;
  if (r.result.contains("error")) {
    ++report.errors;
    return std::string();
  }
  auto lines = read_game_log((*log)->text);
  if (!lines) return "its log: " + lines.error().message;
  if (lines->empty()) return std::string("its log is empty");
  if (auto why = header_damage(spec, r.spec, lines->front()); !why.empty()) return why;
  const GameEntry* game = find_game(spec.game);
  if (game == nullptr) return fmt::format("no game \"{}\" to replay it with", spec.game);
  auto replayed = game->replay(*lines);
  if (!replayed) return "its log does not replay: " + replayed.error().message;
  if (!replayed->identical) return "its log does not replay identically: " + replayed->difference;
  // The speed factor is its log's; a worker voids a match at most kLoadReplays times.
  if (r.result.contains("speed_factor") &&
      r.result["speed_factor"] != field_or_null(lines->front(), "speed_factor"))
    return std::string("its speed_factor is not its log's");
  if (const Json& voided = field_or_null(r.result, "voided");
      !voided.is_null() &&
      (!voided.is_array() || voided.size() > static_cast<std::size_t>(kLoadReplays)))
    return fmt::format("it claims more than {} voided plays", kLoadReplays);
  // The latency the standings show is its log's (the log's timing itself is the worker's word).
  if (r.result.contains("latency") &&
      r.result["latency"] != seat_latency((*log)->text, seated(r.spec).size()))
    return std::string("its latency is not its log's");
  if (outcome_of(encode_result(replayed->result)) != outcome_of(r.result))
    return fmt::format("the replay gives {}, the stored result is {}",
                       excerpt(outcome_of(encode_result(replayed->result)), 120),
                       excerpt(outcome_of(r.result), 120));
  ++report.replayed;
  return std::string();
}

}  // namespace

Expected<std::string> audit_result(Store& store, const TournamentSpec& spec,
                                   const StoredResult& row,
                                   const std::map<std::int64_t, JobSpec>& scheduled) {
  AuditReport ignored;
  return audit_row(store, spec, row, scheduled, ignored);
}

Expected<AuditReport> audit_tournament(Store& store, std::int64_t tournament,
                                       const TournamentSpec& spec) {
  auto results = store.results(tournament);
  if (!results) return std::unexpected(results.error());
  const auto scheduled = scheduled_jobs(spec, *results);
  // Each row on its own: the replays run on every core, the counts are added up after.
  const std::size_t n = results->size();
  std::vector<AuditReport> counts(n);
  std::vector<Expected<std::string>> whys(n, std::string());
  std::atomic<std::size_t> next{0};
  auto audit_some = [&] {
    for (std::size_t i; (i = next++) < n;)
      whys[i] = audit_row(store, spec, (*results)[i], scheduled, counts[i]);
  };
  std::vector<std::thread> helpers;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 1; t < cores && t < n; ++t) helpers.emplace_back(audit_some);
  audit_some();
  for (auto& h : helpers) h.join();
  AuditReport report;
  for (std::size_t i = 0; i < n; ++i) {
    ++report.results;
    if (!whys[i]) return std::unexpected(whys[i].error());
    report.replayed += counts[i].replayed;
    report.errors += counts[i].errors;
    report.unverified += counts[i].unverified;
    if (!whys[i]->empty()) report.damaged.push_back({(*results)[i].index, *whys[i]});
  }
  return report;
}

}  // namespace arbiter::tournament
