// Workers on machines nobody has to trust (PostgreSQL only). An organizer makes a database role
// per worker; the role has no rights on any table and may only call the functions of the schema
// `arbiter_worker`, which run as the organizer and take the worker's identity from the
// connection's session_user, never from an argument:
//   claim, renew, release     leases on jobs, held by "ROLE/ID" (ID: the process, as it names
//                             itself); a blocked role claims nothing, a job may exclude roles
//   complete                  a result and its log, for a job this role holds now; stored with
//                             the role and check_state 'pending' for the organizer's checker
//   append_live               live lines of a job this role holds
//   tournament                the spec of a tournament this role holds a job of, without its
//                             master seed
//   tournaments, progress     ids, games and counts, for knowing when all is done
//   bot_versions, blob        playable versions (without author, source or reason) and their
//                             built files, by hash
// Row-level security is on for every table as a second wall: a role in the group
// `arbiter_worker` sees no row even if it were granted a table by mistake.
//
// The organizer's store (Store, opened with full rights) keeps working as before; these
// functions are what a store opened with a worker role's URL calls (open_store finds out by
// itself).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace arbiter::tournament {

inline constexpr const char* kWorkerGroup = "arbiter_worker";

struct WorkerRole {
  std::string name;
  std::string state;  // "active" or "blocked"
  std::string created;
  std::int64_t arrivals = 0;   // results it stored that the checker has seen
  std::int64_t standing = 0;   // its results in the store now (checked or not)
  std::int64_t pending = 0;    // of those, not checked yet
  std::int64_t agreed = 0;     // re-played by another worker with the same outcome
  std::int64_t disputes = 0;   // re-played with another outcome (it may be either's lie)
  std::int64_t overruled = 0;  // disputes a third play decided against it
  std::int64_t failures = 0;   // results that failed the check on arrival
  std::int64_t voided = 0;     // results voided by the organizer
  std::string last_result;     // when it last stored one; empty: never
};

// A role name: a lower-case letter, then up to 39 lower-case letters, digits or '_'.
Expected<void> check_role_name(const std::string& name);

// A result that waits for its check (checker.h): stored by a worker's role, or by the
// organizer's own worker for a job whose earlier result awaits a re-play.
struct Arrival {
  std::int64_t job = 0;
  std::int64_t tournament = 0;
  std::int64_t index = 0;
  std::string role;  // empty: the organizer's own worker
  std::string worker;
  std::int64_t role_arrivals = 0;  // the role's results checked before this batch
};

// A result taken out of the results (set aside), with its log.
struct AsideResult {
  std::int64_t id = 0;
  std::int64_t job = 0;
  std::string role;  // empty: the organizer's own worker
  std::string worker;
  std::string state;  // see kAsideStates
  Json result;        // null when it is not JSON
  std::string log;    // the game log (empty when it does not unpack)
};

// The states of a result set aside:
//   awaiting-replay   its job is being played again by another worker, to compare
//   agreed            the re-play agreed (the re-play's result stands)
//   disputed          the re-play disagreed: a third play decides
//   upheld, overruled the third play agreed with it, or did not
//   failed            it failed its check on arrival (its log does not vouch for it)
//   voided            the organizer voided its worker's results (worker-role void)
inline constexpr std::string_view kAsideStates[] = {
    "awaiting-replay", "agreed", "disputed", "upheld", "overruled", "failed", "voided"};

// What the organizer runs, with full rights on the store.
class WorkerRoles {
 public:
  virtual ~WorkerRoles() = default;

  // Installs (or refreshes) the schema arbiter_worker, its functions, the group role and the
  // row-level security; then makes a LOGIN role `name` in the group with a fresh password and
  // returns that password (shown once). Refused for a name PostgreSQL already has.
  virtual Expected<std::string> create(const std::string& name) = 0;
  virtual Expected<std::vector<WorkerRole>> list() = 0;
  // Blocks (true) or unblocks a role: a blocked role cannot log in, its claims and results
  // are refused, and its leases end now. Fails for an unknown role.
  virtual Expected<void> set_blocked(const std::string& name, bool blocked) = 0;
  // Takes every result `name` stored out of the results (kept as 'voided') and puts its jobs
  // back to be played by another worker. Returns how many.
  virtual Expected<std::int64_t> void_results(const std::string& name) = 0;
  // The checker's side (checker.h).

  // Up to `max` results waiting for their check, oldest first.
  virtual Expected<std::vector<Arrival>> arrivals(std::int64_t max) = 0;
  // The results of `job` set aside and not settled: awaiting-replay or disputed.
  virtual Expected<std::vector<AsideResult>> open_questions(std::int64_t job) = 0;
  // The arrival's check passed: its result stands.
  virtual Expected<void> pass(const Arrival& arrival) = 0;
  // Takes the arrival's result out of the results (set aside in `state`, with `why`) and puts
  // its job back to be played by a worker of none of the `excluded` roles. Wakes workers.
  virtual Expected<void> take_aside(const Arrival& arrival, const std::string& state,
                                    const std::string& why,
                                    const std::vector<std::string>& excluded) = 0;
  // Moves a result set aside to `state` (why: one line, may be empty).
  virtual Expected<void> settle(std::int64_t aside, const std::string& state,
                                const std::string& why) = 0;
  // Results of `tournament` not settled yet: waiting for their check, or set aside awaiting
  // a re-play or a third play.
  virtual Expected<std::int64_t> unsettled(std::int64_t tournament) = 0;
  // Blocks until a result may have arrived (NOTIFY from the worker functions), or `timeout`.
  virtual void wait_for_arrivals(std::chrono::milliseconds timeout) = 0;

  // The connection string a worker with `name` and `password` uses to reach this store.
  virtual std::string worker_url(const std::string& name, const std::string& password) = 0;
};

// Opens the organizer's side of an existing PostgreSQL store (the schema must be there:
// open_store makes it).
Expected<std::unique_ptr<WorkerRoles>> open_worker_roles(const std::string& url);

// Whether the connection of `url` logs in as a member of kWorkerGroup.
Expected<bool> is_worker_role(const std::string& url);

}  // namespace arbiter::tournament
