// The result store: tournaments, their match jobs with leases, and results with their game logs.
// One interface, two back ends selected by URL: SQLite (one file, WAL mode; the default, for one
// machine) and PostgreSQL (many workers on many machines). Everything a tournament needs to be
// resumed after any crash lives here: a job is done exactly when it has a result, and a result is
// written once (a second copy of it is ignored and counted).
//
// Leases: a worker claims a batch of jobs for a lease time and renews the lease while it plays
// them. A job whose lease has expired (its worker died or stalled) can be claimed again. Lease
// times are measured by the store's own clock (SQLite: this machine's; PostgreSQL: the server's),
// so workers on different machines need not agree on the time.
//
// Thread-safety: every method may be called from any thread; implementations serialize calls on
// their connection. Errors (I/O, a lost server, a damaged file) come back as Error with one line.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json.h"

namespace arbiter::tournament {

// A match job before it is stored: its number within the tournament (unique), its round, and the
// match spec (see schedule.h) as JSON.
struct JobSpec {
  std::int64_t index = 0;
  std::int64_t round = 0;
  Json spec;
};

struct TournamentRecord {
  std::int64_t id = 0;
  std::string name;
  std::string game;
  Json spec;                // the tournament spec as created (see spec.h: encode_spec); null when
                            // the stored text is not JSON (readers refuse that tournament alone)
  std::int64_t planned = 0; // how many jobs the whole tournament will have
  std::string created;      // when, as the store writes time (ISO 8601, UTC)
};

// A claimed job.
struct Job {
  std::int64_t id = 0;  // unique in the store
  std::int64_t tournament = 0;
  std::int64_t index = 0;
  std::int64_t round = 0;
  Json spec;
  std::int64_t attempts = 0;  // claims so far, this one included
};

// What a worker reports for a job.
struct JobResult {
  Json result;      // the match result (referee/match.h encode_result, or {"error": ...})
  std::string log;  // the game log, JSON lines
  double seconds = 0;
  // What the match's programs wrote on stderr: [{"seat", "bytes", "tail"}, ...] (the tail is
  // bounded: ChildSpec::stderr_tail); null when the match ran no program.
  Json stderr_tails;
};

struct StoredResult {
  std::int64_t job = 0;
  std::int64_t index = 0;
  std::int64_t round = 0;
  Json spec;
  Json result;
  std::string worker;
  double seconds = 0;
  // Why the row cannot be believed (it does not fit its job: integrity.h), empty when it can.
  // A damaged row's spec or result may be null; readers report it and never count it.
  std::string damage;
};

// A game log as read back, checked against its job, its result and its checksum (integrity.h).
struct StoredLog {
  std::string text;          // the log, JSON lines (empty when it cannot be read at all)
  std::string damage;        // why it cannot be believed; empty when it can
  bool checksummed = false;  // a checksum was stored with it (stores older than checksums: no)
};

// A log as stored, unchecked.
struct PackedLog {
  std::string stored;                   // log_codec.h's packing
  std::optional<std::string> checksum;  // none: stored before checksums
  Json result;                          // the stored result (null when it is not JSON)
  Json spec;                            // the job's spec (null when it is not JSON)
};

struct Progress {
  std::int64_t planned = 0;     // jobs the tournament will have in all
  std::int64_t enqueued = 0;    // jobs stored so far (less than planned while Swiss rounds wait)
  std::int64_t done = 0;        // jobs with a result
  std::int64_t leased = 0;      // jobs without a result under a live lease
  std::int64_t duplicates = 0;  // result copies that arrived after the first and were ignored
  std::optional<std::string> concluded;  // ended early with this verdict (conclude())
};

// Live lines: what a spectator may see of a match while it is played (arena/spectator.h), so that
// a viewer in another process can show it live. The worker playing a job appends them in
// batches, numbered from 0 within its attempt (Job::attempts); they hold nothing a seat could
// not see, and they are dropped when the job's result is stored.
struct LiveBatch {
  std::int64_t job = 0;
  std::int64_t attempt = 0;
  std::int64_t first = 0;           // the number of lines[0]
  std::vector<std::string> lines;   // spectator lines, dumped JSON
};

// A job being played now that has live lines.
struct LiveJob {
  std::int64_t job = 0;
  std::int64_t index = 0;
  std::int64_t round = 0;
  Json spec;                 // the job's match spec (null when it is not JSON)
  std::string worker;        // who holds its lease
  std::int64_t attempt = 0;
  std::int64_t lines = 0;    // live lines stored so far
};

struct LiveLines {
  bool exists = false;       // the job is in the store
  bool finished = false;     // it has a result (and then no live lines)
  bool playing = false;      // it is under a live lease
  std::int64_t attempt = 0;  // the attempt whose lines these are: the job's latest claim
  std::vector<std::string> lines;  // numbered from the asked one on, without gaps
};

// A live or expired lease, for tools that look for dead workers.
struct Lease {
  std::int64_t job = 0;
  std::string worker;
  bool expired = false;
};

// A stored bot's version (league/): what was uploaded, what runs, and where it stands.
struct BotVersion {
  std::string name;
  std::int64_t version = 0;  // 1, 2, ... per name
  std::string game;
  Json manifest;         // league/manifest.h's encode_manifest
  std::string source;    // the uploaded files' content hash ("sha256:...", league/archive.h)
  std::string artifact;  // the runnable tree's content hash; empty until built
  std::string status;    // "building", "build-failed", "checking", "check-failed", "active",
                         // "retired"
  std::string reason;    // why it failed or was retired (one line); empty otherwise
  std::string created;   // as the store writes time
  std::string author;    // the author the bot's name belongs to; empty: the organizer's
};

// Someone who logs in to the submission server (league/authors.h). Their login token is kept
// only as a salted hash.
struct Author {
  std::string name;  // core/seat_name.h's rule
  std::string role;  // "author" or "organizer"
  std::string created;
  std::string revoked;  // when the token was revoked, as the store writes time; empty: it works
};

// What checks an author's token: a salt and the hash of salt and secret (hex, both).
struct AuthorSecret {
  Author author;
  std::string salt;
  std::string hash;
};

inline constexpr std::string_view kAuthorRoles[] = {"author", "organizer"};

// A bot name as it reads: lower case, with i and 1 read as l and 0 as o. Two names that read
// the same belong to one owner (Store::add_bot_version). kNameAsItReads is the same in SQL, of
// a column or parameter X.
std::string name_as_it_reads(std::string_view name);
std::string reads_as_sql(std::string_view column);  // kNameAsItReads of `column`
inline constexpr std::string_view kNameAsItReads =
    "replace(replace(replace(lower(X), 'i', 'l'), '1', 'l'), '0', 'o')";

// Why `author` may not store version `version` of the bot `name`, whose name belongs to `owner`
// (empty: to no author), as Store::add_bot_version says; nothing when it may.
std::optional<std::string> ownership_refusal(const std::string& name, std::int64_t version,
                                             const std::string& owner, const std::string& author);

// The statuses a version can have, in the order it passes them.
inline constexpr std::string_view kBotStatuses[] = {"building",     "build-failed", "checking",
                                                    "check-failed", "active",       "retired"};

// A ladder's own state beside its tournament (league/ladder.h): whether it plays, and how far
// its ratings have taken the results.
struct LadderState {
  std::string state = "running";  // "running", "paused", "frozen" (finals were drawn from it)
  std::int64_t mark = 0;          // every result of a job with a lower index has been rated
  // Of those below the mark, the matches passed unrated: test matches, errors, damaged rows.
  std::int64_t unrated = 0;
  std::int64_t rated() const { return mark - unrated; }
};

inline constexpr std::string_view kLadderStates[] = {"running", "paused", "frozen"};

// One entrant's rating after one rated match: its rating history is its steps by index.
struct RatingStep {
  std::int64_t index = 0;    // the job's index
  std::int64_t entrant = 0;  // the entrant's index in the tournament's spec
  double mu = 0;
  double sigma = 0;
  std::int64_t games = 0;  // rated matches of the entrant, this one included
  std::int64_t place = 0;  // its place in this match (0 is first)
};

class Store {
 public:
  virtual ~Store() = default;

  // Stores a tournament and its first jobs in one transaction. `planned` is the number of jobs
  // the tournament will have in all (>= jobs.size()). Returns the new tournament's id.
  virtual Expected<std::int64_t> create_tournament(const std::string& name,
                                                   const std::string& game, const Json& spec,
                                                   std::int64_t planned,
                                                   const std::vector<JobSpec>& jobs) = 0;

  // Adds jobs to a tournament (later Swiss rounds). A job whose index the tournament already has
  // is ignored, so concurrent callers adding the same round are harmless. Returns how many were
  // new. Wakes waiting workers (wait_for_work).
  virtual Expected<std::int64_t> add_jobs(std::int64_t tournament,
                                          const std::vector<JobSpec>& jobs) = 0;

  // Adds a round of jobs all or none: none (false) when any of their indices is taken already
  // (another process added a round there first), so that the rounds of two writers never mix.
  // Wakes waiting workers. Fails for an unknown tournament.
  virtual Expected<bool> add_round(std::int64_t tournament, const std::vector<JobSpec>& jobs) = 0;

  virtual Expected<std::optional<TournamentRecord>> find_tournament(std::int64_t id) = 0;
  virtual Expected<std::vector<TournamentRecord>> tournaments() = 0;  // by id

  // Leases up to `max` jobs to `worker` for `lease`: jobs without a result that were never
  // leased or whose lease has expired, of tournaments not concluded, lowest id first, from
  // tournament `only` (0: any).
  // Increments each job's attempts. Concurrent claims never return the same job while its lease
  // is live. REQUIRES: max >= 1, lease > 0.
  virtual Expected<std::vector<Job>> claim(const std::string& worker, std::int64_t max,
                                           std::chrono::milliseconds lease,
                                           std::int64_t only = 0) = 0;

  // Extends to now + `lease` the leases `worker` holds on jobs without a result. Returns how
  // many. A lease that already expired and was claimed by another worker is not taken back.
  virtual Expected<std::int64_t> renew(const std::string& worker,
                                       std::chrono::milliseconds lease) = 0;

  // Stores a job's result and log, with the log's checksum (integrity.h), ends its lease and
  // drops its live lines.
  // Returns true if this is the job's first result; false if it already had one (this copy is
  // ignored and counted in duplicates). Any worker may complete any job, leased to it or not: a
  // result is a result.
  virtual Expected<bool> complete(std::int64_t job, const std::string& worker,
                                  const JobResult& result) = 0;

  // Ends the leases `worker` holds on jobs without a result, so they can be claimed at once
  // (the worker is stopping, or is known to be dead). Returns how many. Wakes waiting workers.
  virtual Expected<std::int64_t> release(const std::string& worker) = 0;

  virtual Expected<Progress> progress(std::int64_t tournament) = 0;

  // Ends a tournament early with `verdict` (one line, e.g. the SPRT's): from then on claim()
  // hands out none of its jobs, and progress() reports the verdict. Jobs already claimed may
  // still complete, and their results are stored as usual. The first verdict stays: a later call
  // changes nothing and returns false. Wakes waiting workers. Fails for an unknown tournament.
  virtual Expected<bool> conclude(std::int64_t tournament, const std::string& verdict) = 0;

  // Leases held on jobs of `tournament` that have no result.
  virtual Expected<std::vector<Lease>> leases(std::int64_t tournament) = 0;

  // The results of a tournament, by job index (logs left out: see log()), of the jobs with an
  // index of at least `from_index`, but for those of untrusted workers still waiting for their
  // check (worker_roles.h). Each row is checked against its job (integrity.h:
  // result_damage); a damaged row comes back with its damage set.
  virtual Expected<std::vector<StoredResult>> results(std::int64_t tournament,
                                                      std::int64_t from_index = 0) = 0;

  // The results of the jobs of `tournament` with the given indices (those that have one), by
  // index, checked as results() checks them. For reading a few matches of a long tournament.
  // Unlike results() (and progress()'s done), it includes the results of untrusted workers
  // still waiting for their check (worker_roles.h): the checker reads them here.
  virtual Expected<std::vector<StoredResult>> results_at(
      std::int64_t tournament, const std::vector<std::int64_t>& indices) = 0;

  // The game log stored with a job's result, checked (integrity.h: check_stored_log), or
  // nothing if the job has no result. Damage is not an Error: it comes back in StoredLog.
  Expected<std::optional<StoredLog>> log(std::int64_t job);

  // A job's log as stored (log_codec.h's packing, about a tenth of its text) with what it is
  // checked against, unchecked, or nothing if the job has no result: for reading a large log in
  // pieces (log_codec.h: inflate_log; integrity.h: packed_log_damage).
  virtual Expected<std::optional<PackedLog>> packed_log(std::int64_t job) = 0;

  // The stderr tails stored with a job's result (JobResult::stderr_tails, null if there were
  // none), or nothing if the job has no result.
  virtual Expected<std::optional<Json>> stderr_tails(std::int64_t job) = 0;

  // Appends live lines. A line a job's attempt already has is ignored (a batch written twice is
  // harmless); a job that has a result, or is not in the store, gets none.
  virtual Expected<void> append_live(const std::vector<LiveBatch>& batches) = 0;

  // The jobs of `tournament` under a live lease, without a result, whose current attempt has
  // live lines, by index.
  virtual Expected<std::vector<LiveJob>> live_jobs(std::int64_t tournament) = 0;

  // The live lines of `job`'s current attempt numbered `from` on, at most `max`.
  virtual Expected<LiveLines> live_lines(std::int64_t job, std::int64_t from,
                                         std::int64_t max) = 0;

  // Bots (league/): versions, their files as blobs named by content hash, their build logs.

  // Stores a new version of `name` (the next number; 1 for a new name) with `status`. A name
  // belongs to one game: a version for another game is refused. A name also belongs to the
  // author of its first version (`author`; empty: to no author, the organizer's): a version by
  // another author, or by an author of a name that has none, is refused. An empty `author`
  // (the organizer at the command line) may add to any name. A new name that reads as another
  // (name_as_it_reads) of another owner is refused.
  virtual Expected<BotVersion> add_bot_version(const std::string& name, const std::string& game,
                                               const Json& manifest, const std::string& source,
                                               const std::string& status,
                                               const std::string& author = {}) = 0;

  // Moves a version to `status` with `reason`; a non-empty `artifact` is its runnable tree; a
  // `build_log` is kept (the last one). Fails for an unknown version.
  virtual Expected<void> set_bot_status(const std::string& name, std::int64_t version,
                                        const std::string& status, const std::string& reason,
                                        const std::string& artifact = {},
                                        const std::optional<std::string>& build_log = {}) = 0;

  // The versions of `name` (empty: of every bot), by name, then version.
  virtual Expected<std::vector<BotVersion>> bot_versions(const std::string& name = {}) = 0;

  // The version's build log, or nothing when it has none (nothing was built yet).
  virtual Expected<std::optional<std::string>> bot_build_log(const std::string& name,
                                                             std::int64_t version) = 0;

  // Stores `bytes` under `hash` unless it is there. True when it was new.
  virtual Expected<bool> put_blob(const std::string& hash, const std::string& bytes) = 0;
  // The bytes stored under `hash`, unchecked (league/ checks them against the hash).
  virtual Expected<std::optional<std::string>> blob(const std::string& hash) = 0;

  // Authors (league/authors.h): who may log in to the submission server.

  // Stores a new author with its token's salt and hash. Refused when the name is taken (by a
  // revoked author too: names are never reused).
  virtual Expected<Author> add_author(const std::string& name, const std::string& role,
                                      const std::string& salt, const std::string& hash) = 0;
  // Every author, by name.
  virtual Expected<std::vector<Author>> authors() = 0;
  // One author with what checks its token; nothing for an unknown name.
  virtual Expected<std::optional<AuthorSecret>> author_secret(const std::string& name) = 0;
  // Revokes the author's token (kept revoked; its bots stay theirs). False when the name is
  // unknown or already revoked.
  virtual Expected<bool> revoke_author(const std::string& name) = 0;
  // Where the author's events are posted, and the key they are signed with (league/authors.h);
  // an empty `url` removes it. Fails for an unknown author.
  virtual Expected<void> set_webhook(const std::string& author, const std::string& url,
                                     const std::string& key) = 0;
  // The author's webhook, {url, key}; nothing when none is set.
  virtual Expected<std::optional<std::pair<std::string, std::string>>> webhook(
      const std::string& author) = 0;

  // Ladders (league/ladder.h): a tournament whose entrants and jobs grow while it runs.

  // Replaces the spec of `tournament` with `spec` if it is still `expected` (as stored): false,
  // and nothing written, when another writer changed it first. Fails for an unknown tournament.
  virtual Expected<bool> replace_spec(std::int64_t tournament, const Json& expected,
                                      const Json& spec) = 0;

  // The jobs of `tournament` with an index of at least `from_index`, with or without results,
  // by index.
  virtual Expected<std::vector<JobSpec>> jobs(std::int64_t tournament,
                                              std::int64_t from_index = 0) = 0;

  // The ladder state of `tournament`: {"running", 0} until one is set.
  virtual Expected<LadderState> ladder_state(std::int64_t tournament) = 0;
  // Sets the state (one of kLadderStates), keeping the mark. Fails for an unknown tournament.
  virtual Expected<void> set_ladder_state(std::int64_t tournament, const std::string& state) = 0;

  // Stores the rating steps of the results of jobs [from, to) and moves the mark from `from` to
  // `to`, in one transaction, only if the mark is still `from`: false, and nothing written, when
  // another process rated them first; `unrated` of them were passed unrated (added to the
  // state's count). A step whose (index, entrant) is stored already is refused (an Error,
  // nothing written). REQUIRES: from <= to, every step's index in [from, to), unrated <= to - from.
  virtual Expected<bool> record_ratings(std::int64_t tournament, std::int64_t from, std::int64_t to,
                                        const std::vector<RatingStep>& steps,
                                        std::int64_t unrated = 0) = 0;

  // The latest step of every rated entrant of `tournament`, by entrant.
  virtual Expected<std::vector<RatingStep>> ratings(std::int64_t tournament) = 0;

  // The steps of one entrant, by index; from `from_index` on.
  virtual Expected<std::vector<RatingStep>> rating_history(std::int64_t tournament,
                                                           std::int64_t entrant,
                                                           std::int64_t from_index = 0) = 0;

  // True for a store opened with an untrusted worker's role (PostgreSQL, worker_roles.h): it
  // may claim, renew, complete and release jobs, append live lines, and read the specs of the
  // tournaments it holds jobs of (without their master seeds), progress, and playable bot
  // versions and their files; every other call is refused by the server. Swiss rounds, SPRT
  // verdicts and result checks are then the organizer's (workers check).
  virtual bool worker_only() const { return false; }

  // Blocks until jobs may have been added or released (PostgreSQL: LISTEN/NOTIFY from any
  // process), or until `timeout`. May return early without cause; callers re-check by claiming.
  virtual void wait_for_work(std::chrono::milliseconds timeout) = 0;
};

// Whether opening a SQLite store may create its file (commands that only read or continue a
// tournament must not leave an empty file behind a mistyped name). PostgreSQL databases are
// never created; their schema always is, when missing.
enum class OpenMode { create, existing };

// Opens (creating the schema if needed) the store named by `url`:
//   sqlite:FILE or a plain FILE path        SQLite in WAL mode
//   sqlite:file:PATH?PARAMS                  the same, as an SQLite URI (percent-decoded; no
//                                            vfs=, no mode=memory, no host but localhost)
//   postgresql://... or postgres://...       PostgreSQL through libpqxx (a libpq URI)
Expected<std::unique_ptr<Store>> open_store(std::string_view url,
                                            OpenMode mode = OpenMode::create);

// The file an SQLite store URL opens, as SQLite will open it: made absolute against this
// process's directory, links resolved, for keeping it from programs (remote/sandbox.h). Nothing
// for a PostgreSQL URL; an Error for a URL no store is opened from, or for an SQLite URI whose
// file cannot be told (another vfs, an in-memory database, a remote host).
struct SqliteTarget {
  std::filesystem::path file;  // absolute, links resolved
  std::string uri;             // what sqlite3_open_v2 gets (SQLITE_OPEN_URI): file: + file + params
  std::string name;            // the file as the organizer wrote it, for messages
};
Expected<std::optional<SqliteTarget>> sqlite_target(std::string_view url);

Expected<std::unique_ptr<Store>> open_sqlite_store(const SqliteTarget& target,
                                                   OpenMode mode = OpenMode::create);
Expected<std::unique_ptr<Store>> open_postgres_store(const std::string& url);

}  // namespace arbiter::tournament
