// The ladder: continuous rated play among every active version of the stored bots of one game,
// with house bots as anchors. A ladder is a tournament of the ladder schedule (tournament/spec.h)
// whose entrants grow as versions become active (and are benched when they stop being active),
// whose jobs a coordinator adds a matchmaking round at a time (league/matchmaker.h) for any
// worker to play, and whose results are rated in the order of their jobs (league/skill.h), the
// rating state kept in the store beside it, so that a ladder stopped at any moment resumes with
// nothing lost and nothing counted twice. docs/ladder.md describes it for organizers.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "league/skill.h"
#include "tournament/spec.h"
#include "tournament/store.h"

namespace arbiter::league {

// A ladder's rating model as its spec keeps it (tournament::Ladder::rating).
Json encode_skill_params(const SkillParams& params);
Expected<SkillParams> decode_skill_params(const Json& j);

// Players per match: "K", or a range "K-M" drawn per match (1 <= K <= M <= 64).
Expected<std::pair<std::int64_t, std::int64_t>> parse_seat_range(const std::string& text);

// Stores a new ladder. `spec` must have the ladder schedule and terms; its entrants are the
// anchors (house bots); stored bots join by enroll(). A name another ladder has is refused.
Expected<std::int64_t> create_ladder(tournament::Store& store,
                                     const tournament::TournamentSpec& spec);

// The ladder named `name` (the newest, should there be several), or an Error naming the ladders
// there are.
Expected<tournament::TournamentRecord> find_ladder(tournament::Store& store,
                                                   const std::string& name);

// The store's ladders, by id.
Expected<std::vector<tournament::TournamentRecord>> ladders(tournament::Store& store);

// The entrant name a stored bot's version plays under: NAME + "v" + VERSION ("alicev3"), cut to
// the seat-name rule; unique among `taken`.
std::string entrant_name(const std::string& bot, std::int64_t version,
                         const std::vector<tournament::Entrant>& taken);

struct Enrollment {
  std::vector<std::string> joined;    // entrants added (their bot: NAME@V)
  std::vector<std::string> benched;   // entrants that stopped playing
  std::vector<std::string> returned;  // benched entrants active again
};

// Makes the ladder's entrants every active version of a stored bot of its game: versions not yet
// in it join (unless the ladder is frozen), entrants whose version is no longer active are
// benched (they keep their history), benched ones active again return. Safe against other
// writers of the spec (it retries on a conflict).
Expected<Enrollment> enroll(tournament::Store& store, std::int64_t ladder);

// An unrated test match in the ladder, asked for by `by` (an author, or the organizer): the
// entrants named in `seats`, in that order (as many as the ladder seats), playing the ladder's
// game with a seed of the ladder's master seed like any of its matches. It goes after the jobs
// already queued (workers take the lowest index first), so tests never jump the ladder's queue;
// its job carries {"test": BY}, and the ratings pass it by. Enrolls first, so that a version
// just made active can be named. Errors: an unknown or benched entrant, a wrong number of
// seats, a ladder that is not running, the store.
Expected<std::int64_t> add_test_match(tournament::Store& store, std::int64_t ladder,
                                      const std::vector<std::string>& seats, const std::string& by);

// Who asked for the test match of this job spec; empty for a rated match of the ladder.
std::string test_match_by(const Json& job_spec);

// One entrant's standing.
struct Standing {
  Skill skill;
  std::int64_t games = 0;
  std::int64_t last_index = -1;  // the index of its last rated match
};

// The ratings of a ladder as of its mark: every result of a job below the mark is rated, in
// the order of the jobs.
class RatingBook {
 public:
  RatingBook(std::int64_t ladder, SkillParams params) : ladder_(ladder), params_(params) {}

  // The book as the store keeps it.
  static Expected<RatingBook> load(tournament::Store& store, std::int64_t ladder,
                                   const SkillParams& params);

  // Rates the stored results from the mark on, as far as they have no gap, and records them
  // with the new mark. Returns how many jobs it passed. When another process moved the mark
  // first, the book is read again from the store. `spec` must know every entrant the results
  // seat (a result seating an unknown entrant stops the walk until it does).
  Expected<std::int64_t> catch_up(tournament::Store& store, const tournament::TournamentSpec& spec);
  // The same with the results from the mark on already read (`rows`, by index).
  Expected<std::int64_t> catch_up(tournament::Store& store, const tournament::TournamentSpec& spec,
                                  const std::vector<tournament::StoredResult>& rows);

  // The steps the results `rows` (from the mark on, by index) give, and the mark after them,
  // applied to this book: for catch_up and for a recomputation from nothing.
  std::vector<tournament::RatingStep> rate(const std::vector<tournament::StoredResult>& rows,
                                           std::size_t entrants, std::int64_t& mark);

  std::int64_t mark() const { return mark_; }
  const std::map<std::int64_t, Standing>& standings() const { return standings_; }
  Standing standing(std::int64_t entrant) const;  // a newcomer's when it has no games
  const SkillParams& params() const { return params_; }

 private:
  std::int64_t ladder_;
  SkillParams params_;
  std::int64_t mark_ = 0;
  std::map<std::int64_t, Standing> standings_;
};

// Rates the results waiting behind the mark (a coordinator that stopped leaves the last ones),
// as catch_up does. Returns how many jobs the mark passed.
Expected<std::int64_t> rate_results(tournament::Store& store, std::int64_t ladder);

// Every result of the ladder rated again from nothing, and compared with the stored ratings:
// empty when they agree exactly, else one line per disagreement (at most 20).
Expected<std::vector<std::string>> verify_ratings(tournament::Store& store, std::int64_t ladder);

// Wakes a waiting coordinator (a result was stored by a worker of this process) sooner than its
// poll would. Thread-safe.
class Doorbell {
 public:
  void ring();
  // Returns when rung since the last wait, or after `timeout`.
  void wait(std::chrono::milliseconds timeout);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool rung_ = false;
};

struct CoordinatorOptions {
  // Matches kept unplayed in the store for workers to take: a round is added when fewer remain.
  std::int64_t queue = 8;
  std::chrono::milliseconds poll{50};  // how often results are looked for
  Doorbell* bell = nullptr;            // rung on each result of a local worker: look at once
  std::chrono::milliseconds enroll_every{2000};  // how often new and retired versions are
  const std::atomic<bool>* stop = nullptr;       // set: return after the current step
  std::function<void(const std::string&)> say;   // lines for people (joins, benchings)
  // Called after every pass of the loop (tests and the progress line); may be empty.
  std::function<void()> beat;
};

struct CoordinatorReport {
  std::int64_t rounds = 0;    // matchmaking rounds added
  std::int64_t enqueued = 0;  // matches added
  std::int64_t rated = 0;     // jobs the ratings passed
  std::int64_t joined = 0;
  std::int64_t benched = 0;
};

// The coordinator of a ladder: enrolls versions, rates results, and keeps `queue` matches
// waiting while the ladder is running (none are added while it is paused or frozen). Runs until
// `stop`; fails only when the store does. One coordinator per ladder is expected; a second one
// loses nothing (ratings move by compare-and-set on the mark, jobs of an index stored twice are
// ignored) but adds rounds of its own.
Expected<CoordinatorReport> coordinate(tournament::Store& store, std::int64_t ladder,
                                       const CoordinatorOptions& options);

// The jobs of one matchmaking round, from `next_index` on: each group of k entrants in its k
// rotations, one seed per group. `book` and `pending` (entrant -> [matches under way, last
// index]) give the entrants' standing; `round` numbers it. For coordinate() and benchmarks.
std::vector<tournament::JobSpec> plan_round(
    const tournament::TournamentSpec& spec, const RatingBook& book,
    const std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>>& pending,
    std::int64_t next_index, std::int64_t round, std::size_t groups);

struct LeaderboardRow {
  std::int64_t entrant = 0;
  std::string name;
  std::string bot;     // "bot:alice@3", or a house bot
  std::string status;  // "active", "benched" or "anchor"
  Standing standing;
  double conservative = 0;  // mu - z sigma
};

struct Leaderboard {
  std::string name;
  std::string game;
  std::string state;  // kLadderStates
  std::int64_t mark = 0;
  std::int64_t rated = 0;   // of the jobs below the mark, those rated (not tests nor errors)
  std::int64_t played = 0;  // jobs with a result
  std::int64_t queued = 0;  // jobs without one
  SkillParams params;
  std::vector<LeaderboardRow> rows;  // best first: by the conservative estimate
};

Expected<Leaderboard> leaderboard(tournament::Store& store, std::int64_t ladder);

struct FinalsTerms {
  std::size_t top = 8;      // entrants taken, best first
  std::int64_t rounds = 2;  // round robin cycles
  std::int64_t seats = 0;   // players per match; 0: the ladder's least
  bool anchors = true;      // whether house-bot anchors may be among the top
};

// Freezes the ladder (no version joins, no match is added from now on), rates the results that
// wait, and draws its finals: a paired round robin, in a tournament named NAME-finals, of the
// top entrants by the conservative estimate (benched ones left out), each pinned to the very
// files it played in the ladder, under the ladder's config and limits, with a fresh seed. Returns
// the spec (create_tournament stores it). Fewer than two entrants to take: an Error, and the
// ladder stays as it was.
Expected<tournament::TournamentSpec> draw_finals(tournament::Store& store, std::int64_t ladder,
                                                 const FinalsTerms& terms);
std::string leaderboard_text(const Leaderboard& board);
Json leaderboard_json(const Leaderboard& board);

}  // namespace arbiter::league
