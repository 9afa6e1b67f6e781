// The organizer's checker of results stored by untrusted workers (worker_roles.h). A worker can
// store a made-up result, or a log whose players' replies it invented; the checker answers with
// what every match has, a log that replays exactly:
//   - on arrival, each result is checked as `tournament verify` checks a row (audit.h): its job
//     is the schedule's, its log replays identically and ends in its result. One that fails is
//     set aside as failed and its job is played again by another worker;
//   - a share of results (the tournament's ResultChecks: by default 5%, and each of a new
//     worker's first 20) is set aside and played again by another worker. The games are
//     deterministic given the seed and the players' replies, so the two plays must agree
//     (outcome_of, and the logs line by line without their timing). Agreement settles it;
//     a disagreement marks both disputed and a third play by a worker of neither decides;
//   - which results are played again is drawn by the checker: a worker cannot know which of its
//     results will be. A result that says the match could not be played ({"error": ...}) has
//     nothing to replay and is always played again.
// The checker also adds Swiss rounds and SPRT verdicts, which untrusted workers cannot, once
// every result of the tournament is settled.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/rng.h"
#include "tournament/spec.h"
#include "tournament/store.h"
#include "tournament/worker_roles.h"

namespace arbiter::tournament {

struct CheckReport {
  std::int64_t seen = 0;           // arrivals looked at
  std::int64_t passed = 0;         // arrivals that stand
  std::int64_t failed = 0;         // arrivals that failed their check on arrival
  std::int64_t replays = 0;        // arrivals set aside to be played again
  std::int64_t agreed = 0;         // re-plays that agreed
  std::int64_t disputes = 0;       // re-plays that disagreed
  std::int64_t decided = 0;        // disputes a third play decided
  std::vector<std::string> notes;  // one line per failure or dispute, for the log
};

class Checker {
 public:
  // `seed` draws the results to play again: give an unguessable one (core/entropy.h).
  Checker(Store& store, WorkerRoles& roles, std::uint64_t seed);

  // Checks up to `max` arrivals, then adds the Swiss rounds and SPRT verdicts that are due in
  // the tournaments whose results are all settled. Fails only when the store does.
  Expected<CheckReport> check(std::int64_t max = 200);

 private:
  // What the replay of one arrival found: its row (none: voided meanwhile) and why it cannot
  // be believed (empty: it can, or it was not checked).
  struct Audit {
    Expected<void> ok;
    std::optional<StoredResult> row;
    std::string damage;
  };
  Audit audit(const Arrival& arrival);  // thread-safe once its tournament's spec is loaded
  Expected<void> check_one(const Arrival& arrival, const Audit& audit, CheckReport& report);
  Expected<const TournamentSpec*> spec_of(std::int64_t tournament);
  // The schedule a row is checked against (thread-safe).
  std::shared_ptr<const std::map<std::int64_t, JobSpec>> scheduled(std::int64_t tournament,
                                                                   const TournamentSpec& spec,
                                                                   const StoredResult& row);

  Store& store_;
  WorkerRoles& roles_;
  Rng rng_;
  std::map<std::int64_t, TournamentSpec> specs_;
  std::mutex schedule_mu_;  // guards fixed_schedules_
  std::map<std::int64_t, std::shared_ptr<const std::map<std::int64_t, JobSpec>>> fixed_schedules_;
  std::map<std::string, std::int64_t> arrivals_;  // per role, as the checker counted them
};

// Why two plays of one match differ (their outcomes, or their logs without timing), or empty
// when they agree.
std::string plays_differ(const Json& result_a, const std::string& log_a, const Json& result_b,
                         const std::string& log_b);

// The outlier test of docs/ratings.md: for each worker's role, each entrant's points in the
// matches the role played against what the same pairings (the same entrants in the same seats)
// scored when played by others; z is the largest |sum(observed - expected) / sqrt(sum var)|
// over the entrants. Results of the organizer's own workers count as others' for every role.
struct Outlier {
  std::int64_t matches = 0;  // the role's results with a comparable pairing
  double z = 0;              // the largest |z| over the entrants
  std::string entrant;       // whose it is
};
std::map<std::string, Outlier> outlier_scores(const TournamentSpec& spec,
                                              const std::vector<StoredResult>& results);

// The role of a stored result's worker ("ROLE/ID" for a worker role), or empty.
std::string role_of(const std::string& worker);

// The threshold of the outlier test: |z| above it, over at least kOutlierMinMatches matches,
// flags a worker.
inline constexpr double kOutlierZ = 4.0;
inline constexpr std::int64_t kOutlierMinMatches = 30;

}  // namespace arbiter::tournament
