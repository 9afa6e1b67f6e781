// The audit behind `arbiter tournament verify`: every stored result of a tournament checked
// against everything that can vouch for it. For each result row:
//   - the row fits its job (integrity.h) and seats entrants the tournament has;
//   - its job is the match the schedule says (seats and seed from the master seed; Swiss rounds
//     recomputed from the earlier rounds' results);
//   - its log inflates, matches the checksum stored with it, starts with this match's header
//     (game, seed, the seated entrants' names) and ends with the stored result;
//   - the log replays identically (the registry's replay), and the replay's result is the
//     stored one.
// Rows stored before checksums are counted as unverified, not damaged.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tournament/spec.h"
#include "tournament/store.h"

namespace arbiter::tournament {

struct AuditProblem {
  std::int64_t index = 0;  // the match's index in the tournament
  std::string what;        // one line
};

struct AuditReport {
  std::int64_t results = 0;     // result rows audited
  std::int64_t replayed = 0;    // logs that replayed identically to the stored result
  std::int64_t errors = 0;      // results of matches that could not be played (nothing to replay)
  std::int64_t unverified = 0;  // logs stored without a checksum (older stores)
  std::vector<AuditProblem> damaged;  // by index; a match appears at most once
};

// The jobs the schedule gives, by index: Swiss rounds after the first from `results` (the
// rounds before them), a ladder's jobs from their own rows.
std::map<std::int64_t, JobSpec> scheduled_jobs(const TournamentSpec& spec,
                                               const std::vector<StoredResult>& results);

// Why one stored result cannot be believed, by the checks above (`scheduled`: scheduled_jobs
// of its tournament), or empty when it can. Fails only when the store does.
Expected<std::string> audit_result(Store& store, const TournamentSpec& spec,
                                   const StoredResult& row,
                                   const std::map<std::int64_t, JobSpec>& scheduled);

// What a result says about the match: without what may differ between two plays of it
// (its details, its stderr counts).
Json outcome_of(const Json& result);

// Fails only when the store does; damage is in the report.
Expected<AuditReport> audit_tournament(Store& store, std::int64_t tournament,
                                       const TournamentSpec& spec);

}  // namespace arbiter::tournament
