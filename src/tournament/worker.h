// The worker: claims match jobs from a store, plays them on a pool of threads through the games
// registry, and stores each result with its game log. Many workers (threads of one process, or
// processes on many machines sharing a PostgreSQL store) can work on one tournament; leases and
// idempotent results make a crash of any of them lose nothing and double-count nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <semaphore>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "arena/bot_shelf.h"
#include "referee/observer.h"
#include "tournament/cpu_pool.h"
#include "tournament/head_to_head.h"
#include "tournament/spec.h"
#include "tournament/store.h"

namespace arbiter::tournament {

// Validates `spec` and stores it with its first jobs. Returns the tournament's id.
Expected<std::int64_t> create_tournament(Store& store, const TournamentSpec& spec);

// The tournament's spec as stored.
Expected<TournamentSpec> load_spec(Store& store, std::int64_t tournament);

// Where a tournament's tcp entrants connect: one connection per match. A match that seats a tcp
// entrant listens on host:port, waits up to accept_timeout for each of its tcp entrants to
// connect and send its token (a JSON string line), then plays; an entrant whose client did not
// come is ejected at setup with the reason hang-up ("no tcp client signed up ..."), and the match
// goes on without it. The worker gives matches with tcp seats the port one at a time (the wait
// for a turn does not count toward the match limit; the accept timeout is added to it); the
// others run alongside as usual.
struct RemoteDesk {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;  // fixed, so that clients know where to connect
  std::chrono::milliseconds accept_timeout{30'000};
  std::map<std::string, std::string> tokens;  // by entrant name: each tcp entrant's secret
  // Taken before a match with tcp seats starts and given back by its thread when it ends.
  std::shared_ptr<std::binary_semaphore> port_turns = std::make_shared<std::binary_semaphore>(1);
};

// Whether any entrant of `spec` is a tcp client.
bool has_tcp_entrants(const TournamentSpec& spec);

// Plays one job of `spec` in this process: in-process house bots, or child processes for
// cmd: bots, whose stderr tails come back with the result (and, with a `stderr_dir`, whose
// stderr goes to DIR/tT-mN-NAME.stderr, T the tournament, N the match's index). Never fails: a
// match that cannot be played gives a result {"error": "..."}. The `observers` (nulls are
// skipped) watch the match's game log as it is recorded (referee/observer.h).
// A job that seats a tcp entrant needs `remote` (without it, the result is an error).
// `private_paths`: files its programs may not see (Hosting::private_paths). `shelf`: where its
// stored bots (bot:NAME@V entrants) come from; without one they cannot play (an error result).
// `cpus`: the CPUs its program seats are pinned to (Hosting::cpus); empty: not pinned.
JobResult play_job(const TournamentSpec& spec, const Job& job,
                   const std::filesystem::path& stderr_dir = {},
                   const std::vector<MatchObserver*>& observers = {},
                   const RemoteDesk* remote = nullptr,
                   const std::vector<PrivateFile>& private_paths = {}, BotShelf* shelf = nullptr,
                   const std::string& cpus = {});

// Every program entrant of `spec` can be started as play_job starts it, with `private_paths`
// kept from it (check_program_start): for refusing a run in one line before any match, rather
// than ejecting the entrant from every match. Errors read "player NAME: ...".
Expected<void> check_entrants_start(const TournamentSpec& spec,
                                    const std::vector<PrivateFile>& private_paths);

// Swiss: adds the next round's jobs when every enqueued round has all its results. Safe to call
// from any worker at any time (the jobs of a round are a function of earlier results, and a job
// already stored is ignored). Does nothing for other schedules.
Expected<void> advance(Store& store, std::int64_t tournament, const TournamentSpec& spec);

// True when the tournament has a result for each of its planned matches, or has concluded early
// (Store::conclude: an SPRT that decided).
Expected<bool> finished(Store& store, std::int64_t tournament);

// For a spec with an SPRT: the test over the stored results (head_to_head.h), and when it has
// decided, the tournament concluded in the store with the verdict, so that no worker anywhere
// claims its remaining matches. Nothing for a spec without one. Safe to call from any worker
// at any time: the verdict is a function of the stored results.
// `walk` (optional): the test as far as an earlier call took it, for `spec`'s tournament; the
// call reads only the results it has not passed yet and takes it further. Without one, every
// result is read.
Expected<std::optional<SprtState>> check_sprt(Store& store, std::int64_t tournament,
                                              const TournamentSpec& spec,
                                              SprtWalk* walk = nullptr);

// "HOST:PID:NONCE": names this process in leases, so a dead worker on this host can be told
// from a live one.
std::string default_worker_id();

// Ends the leases that workers of this host whose process is gone hold on the tournament's jobs
// (a coordinator that was killed), so they are played at once rather than when their leases
// expire. Returns how many jobs were released.
Expected<std::int64_t> release_dead_local_workers(Store& store, std::int64_t tournament);

struct WorkerOptions {
  std::string id = default_worker_id();
  int threads = 0;  // matches played at once; 0: one per core
  int batch = 2;    // jobs each thread claims at a time
  std::chrono::milliseconds lease{30'000};  // renewed every lease/3 while the worker lives
  std::int64_t only = 0;                    // work on this tournament only (0: any)
  // Return once tournament `only` (or, with only == 0, every tournament in the store) is
  // finished; otherwise keep waiting for new work until `stop`.
  bool until_finished = true;
  const std::atomic<bool>* stop = nullptr;  // when set: stop claiming, release what is unplayed
  std::filesystem::path stderr_dir;  // see play_job; empty: stderr is kept only as tails
  // Called after each stored result (from the worker's threads; must be thread-safe).
  std::function<void(const Job&, const JobResult&, bool first)> on_result;
  // A match still running this long after it started is abandoned: it is stored with the
  // result {"error": "match-time-limit: ..."} (so no worker plays it again and its lease is
  // never renewed), and its thread is left behind. Zero: match_limit(spec).
  std::chrono::milliseconds match_limit{0};
  // After `stop` is seen, the matches under way have this long to end; then they are abandoned
  // unplayed (their leases released, so another worker or a resume plays them).
  std::chrono::milliseconds stop_grace{3'000};
  // Called on a match's thread before it starts: an observer of its game log (the live
  // viewer), or null. Must be thread-safe. Not used when `play` is set.
  std::function<std::unique_ptr<MatchObserver>(const TournamentSpec&, const Job&)> watch;
  // How often the spectator lines of the matches under way are written to the store, so that a
  // viewer reading the store from another process shows them live (live_feed.h); zero: never.
  std::chrono::milliseconds live_period{250};
  // Where tcp entrants connect. A worker without one refuses tournaments that have them.
  std::optional<RemoteDesk> remote;
  // Files no program may see: the SQLite store (with its -wal and -shm), token files.
  std::vector<PrivateFile> private_paths;
  // Where stored bots' programs come from (league/: a cache filled from the store); null: a
  // tournament with bot: entrants cannot be played here.
  BotShelf* shelf = nullptr;
  // Pins the program seats of each match to CPUs of this pool (cpu_pool.h): a match waits for
  // the CPUs it needs. Null: not pinned.
  std::shared_ptr<CpuPool> pin;
  // How a job is played (tests replace it); empty: play_job.
  std::function<JobResult(const TournamentSpec&, const Job&, const std::filesystem::path&)> play;
};

// Matches this process's workers have abandoned (their threads may still run): a process that
// abandoned any should end with _exit rather than run static destructors under them.
std::int64_t abandoned_matches();

// The default bound on one match's wall-clock time: 200 calls per seat at the per-call limit
// (and each seat's whole clock, in a clocked match; the slowest entrant's, where entrants have
// limits of their own), and at least 5 minutes.
std::chrono::milliseconds match_limit(const TournamentSpec& spec);

struct WorkerReport {
  std::int64_t played = 0;      // matches played to the end
  std::int64_t stored = 0;      // results that were the first for their job
  std::int64_t duplicates = 0;  // results that arrived second and were ignored
  std::int64_t errors = 0;      // matches that could not be played (results with "error")
  std::vector<std::string> write_errors;  // failed writes of stderr files (the first ten)
  std::int64_t over_limit = 0;  // matches abandoned at the match limit (stored as errors)
  std::int64_t cut_short = 0;   // matches abandoned unplayed when stopped (released)
  // Threads of abandoned matches still running: the process should end with _exit (or
  // quick_exit) rather than run static destructors under them.
  std::int64_t stray_threads = 0;
  std::int64_t live_write_failures = 0;  // writes of live lines that failed (retried)
  std::int64_t voided = 0;               // plays voided for a timeout under load (and played again)
  std::size_t pinned_at_once = 0;        // with WorkerOptions::pin: the most matches pinned at once
  // How long each claim that returned jobs took, in ms, as the worker measured it (the first
  // 100,000), for the claim latency of a store under load.
  std::vector<double> claim_ms;
};

// The q-quantile (0..1) of `samples` (nearest rank); 0 for none.
double quantile(std::vector<double> samples, double q);

// Runs until the condition in `options` holds, or until `stop` (then within stop_grace plus a
// store write). Fails only when the store does (after retries); leases of unplayed jobs are
// released on every way out.
Expected<WorkerReport> run_worker(Store& store, const WorkerOptions& options);

}  // namespace arbiter::tournament
