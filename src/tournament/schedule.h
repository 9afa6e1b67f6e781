// Schedules: which entrants meet in which seats, as store jobs. A job's spec is
//   {"seats": [entrant index per seat, in seat order], "seed": match seed, "pair": group}
// and its index numbers the matches of the tournament from 0. Unpaired (spec.pairing false),
// there is no "pair" and the seed is seeds::match(master, index). Paired, the seatings of one set
// of entrants in one round (seats! matches, consecutive; a Swiss pairing's two) form a group:
// they share the seed of the group's first match, seeds::match(master, first index), and "pair"
// numbers the groups from 0 in index order. Either way a tournament's matches are the same on
// every machine and in every resumption.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "tournament/spec.h"
#include "tournament/store.h"

namespace arbiter::tournament {

// How many matches the whole tournament has (a ladder: the largest int64, never reached).
// REQUIRES: validate_spec(spec).
std::int64_t planned_matches(const TournamentSpec& spec);

// The jobs known when the tournament is created: all of them for round robin and gauntlet; the
// first round for Swiss. REQUIRES: validate_spec(spec).
std::vector<JobSpec> initial_jobs(const TournamentSpec& spec);

// A job seating `seats` (entrant indices in seat order). `group_start`: the index of the first
// match of the job's group (the seatings that share a seed when paired), whose seed is the one an
// unpaired schedule gives that first match; `group` numbers the groups ("pair").
JobSpec job(const TournamentSpec& spec, std::int64_t index, std::int64_t round,
            const std::vector<std::size_t>& seats, std::int64_t group_start, std::int64_t group);

// Swiss: how many jobs each round has (two matches, one per seat order, for each pairing).
std::int64_t swiss_round_size(const TournamentSpec& spec);

// Swiss: the jobs of `round` (>= 1), given the results of all earlier rounds. Entrants are
// ranked by points (ties broken by a draw from the master seed and the round) and paired from
// the top with the best-ranked entrant they have not met yet; a rematch only when no pairing
// avoids one. With an odd field, the lowest-ranked entrant who has not had a bye sits out.
// Deterministic: the same results give the same jobs, so any worker may add a round.
std::vector<JobSpec> swiss_round(const TournamentSpec& spec, std::int64_t round,
                                 const std::vector<StoredResult>& earlier);

// The job's group ("pair"), or nothing for an unpaired job or a damaged spec.
std::optional<std::int64_t> pair_of(const Json& job_spec);

// How many matches share one seed: a group's seats! seatings when paired (a Swiss pairing's
// two), else 1; 0 for a ladder, whose groups are as many as the seats of their jobs.
std::int64_t seed_group_size(const TournamentSpec& spec);

// How many matches are dealt from the job's seed: its own "dealt" (a ladder's test match, a
// group of one), else seed_group_size(spec), else (a ladder) one per seat of the job.
std::int64_t dealt_from_seed(const TournamentSpec& spec, const Json& job_spec);

// Which seed groups are over: every match sharing a seed (its group) has a result among
// `results`. Only then may a match's seed, log and reproduce command be shown to spectators,
// since the other matches of its group are dealt from the same seed. Counted once, for asking
// about many matches.
class SeedGroups {
 public:
  SeedGroups(const TournamentSpec& spec, const std::vector<StoredResult>& results);
  // False for a damaged spec.
  bool over(const Json& job_spec) const;

 private:
  using Key = std::pair<std::uint64_t, std::int64_t>;  // seed, pair (-1: unpaired)
  static std::optional<Key> key_of(const Json& job_spec);
  std::int64_t size_;
  std::map<Key, std::int64_t> done_;
};

// Whether the whole tournament is over: every match has a result, or it was concluded early and
// no match is still under way. Only then may its master seed (and program key) be shown.
bool tournament_over(const Progress& progress);

// The entrant indices seated in a job, in seat order (empty if the spec is damaged).
std::vector<std::size_t> seated(const Json& job_spec);

}  // namespace arbiter::tournament
