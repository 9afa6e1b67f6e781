// The PostgreSQL store: many workers on many machines share one server through libpqxx. Leases
// are measured by the server's clock, claims skip rows other claimers hold (SKIP LOCKED), and
// idle workers wake on NOTIFY from whoever adds or releases jobs.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pqxx/pqxx>

#include "tournament/integrity.h"
#include "tournament/log_codec.h"
#include "tournament/postgres_text.h"
#include "tournament/store.h"
#include "tournament/worker_roles.h"

namespace arbiter::tournament {
namespace {

constexpr const char* kChannel = "arbiter_jobs";

// Any constant will do, as long as every process creating the schema takes the same one.
constexpr std::int64_t kSchemaLock = 0x6172626974657231;  // "arbiter1"

struct SchemaObject {
  const char* name;
  const char* create;
};

// Created in this order by the first process to open the store, under an advisory lock since
// CREATE ... IF NOT EXISTS is not safe against a concurrent creator.
constexpr SchemaObject kSchemaObjects[] = {
    {"tournaments", R"sql(CREATE TABLE IF NOT EXISTS tournaments(
      id bigserial PRIMARY KEY,
      name text NOT NULL,
      game text NOT NULL,
      spec text NOT NULL,
      planned bigint NOT NULL,
      created timestamptz NOT NULL DEFAULT now()))sql"},
    {"jobs", R"sql(CREATE TABLE IF NOT EXISTS jobs(
      id bigserial PRIMARY KEY,
      tournament bigint NOT NULL REFERENCES tournaments(id),
      idx bigint NOT NULL,
      round bigint NOT NULL,
      spec text NOT NULL,
      lease_owner text,
      lease_until timestamptz,
      attempts bigint NOT NULL DEFAULT 0,
      done boolean NOT NULL DEFAULT false,
      duplicates bigint NOT NULL DEFAULT 0,
      UNIQUE(tournament, idx)))sql"},
    // Logs are bytea so that any bytes a game wrote come back unchanged, whatever the
    // database's encoding.
    {"results", R"sql(CREATE TABLE IF NOT EXISTS results(
      job bigint PRIMARY KEY REFERENCES jobs(id),
      tournament bigint NOT NULL,
      worker text NOT NULL,
      result text NOT NULL,
      log bytea NOT NULL,
      seconds double precision NOT NULL,
      finished timestamptz NOT NULL DEFAULT now(),
      stderr bytea,
      log_sha256 text  -- integrity.h: log_checksum; NULL: stored before checksums
      ))sql"},
    {"jobs_open", "CREATE INDEX IF NOT EXISTS jobs_open ON jobs(id) WHERE NOT done"},
    {"jobs_open_by_tournament",
     "CREATE INDEX IF NOT EXISTS jobs_open_by_tournament ON jobs(tournament, id) WHERE NOT done"},
    // renew and release look jobs up by worker; without this they scan every open job.
    {"jobs_leased",
     "CREATE INDEX IF NOT EXISTS jobs_leased ON jobs(lease_owner) "
     "WHERE NOT done AND lease_owner IS NOT NULL"},
    {"results_tournament", "CREATE INDEX IF NOT EXISTS results_tournament ON results(tournament)"},
    {"live_lines", R"sql(CREATE TABLE IF NOT EXISTS live_lines(
      job bigint NOT NULL,
      attempt bigint NOT NULL,
      n bigint NOT NULL,
      line text NOT NULL,
      PRIMARY KEY(job, attempt, n)))sql"},
    {"conclusions", R"sql(CREATE TABLE IF NOT EXISTS conclusions(
      tournament bigint PRIMARY KEY REFERENCES tournaments(id),
      verdict text NOT NULL,
      concluded timestamptz NOT NULL DEFAULT now()))sql"},
    {"bot_versions", R"sql(CREATE TABLE IF NOT EXISTS bot_versions(
      name text NOT NULL,
      version bigint NOT NULL,
      game text NOT NULL,
      manifest text NOT NULL,
      source text NOT NULL,
      artifact text NOT NULL DEFAULT '',
      status text NOT NULL,
      reason text NOT NULL DEFAULT '',
      build_log bytea,
      created timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY(name, version)))sql"},
    {"bot_owners", R"sql(CREATE TABLE IF NOT EXISTS bot_owners(
      name text PRIMARY KEY,
      author text NOT NULL))sql"},
    {"authors", R"sql(CREATE TABLE IF NOT EXISTS authors(
      name text PRIMARY KEY,
      role text NOT NULL,
      salt text NOT NULL,
      hash text NOT NULL,
      created timestamptz NOT NULL DEFAULT now(),
      revoked timestamptz))sql"},
    {"webhooks", R"sql(CREATE TABLE IF NOT EXISTS webhooks(
      author text PRIMARY KEY,
      url text NOT NULL,
      key text NOT NULL))sql"},
    {"blobs", R"sql(CREATE TABLE IF NOT EXISTS blobs(
      hash text PRIMARY KEY,
      bytes bytea NOT NULL))sql"},
    {"ladders", R"sql(CREATE TABLE IF NOT EXISTS ladders(
      tournament bigint PRIMARY KEY REFERENCES tournaments(id),
      state text NOT NULL,
      mark bigint NOT NULL DEFAULT 0,
      unrated bigint NOT NULL DEFAULT 0))sql"},
    {"rating_steps", R"sql(CREATE TABLE IF NOT EXISTS rating_steps(
      tournament bigint NOT NULL,
      entrant bigint NOT NULL,
      idx bigint NOT NULL,
      mu double precision NOT NULL,
      sigma double precision NOT NULL,
      games bigint NOT NULL,
      place bigint NOT NULL,
      PRIMARY KEY(tournament, entrant, idx)))sql"},
    {"ratings_now", R"sql(CREATE TABLE IF NOT EXISTS ratings_now(
      tournament bigint NOT NULL,
      entrant bigint NOT NULL,
      idx bigint NOT NULL,
      mu double precision NOT NULL,
      sigma double precision NOT NULL,
      games bigint NOT NULL,
      place bigint NOT NULL,
      PRIMARY KEY(tournament, entrant)))sql"},
    // Untrusted workers (worker_roles.h): their roles, and the results taken out of `results`
    // (awaiting a re-play, disputed, failed their check, voided), kept for the record.
    {"worker_roles", R"sql(CREATE TABLE IF NOT EXISTS worker_roles(
      name text PRIMARY KEY,
      state text NOT NULL,
      arrivals bigint NOT NULL DEFAULT 0,
      created timestamptz NOT NULL DEFAULT now()))sql"},
    {"set_aside", R"sql(CREATE TABLE IF NOT EXISTS set_aside(
      id bigserial PRIMARY KEY,
      job bigint NOT NULL REFERENCES jobs(id),
      tournament bigint NOT NULL,
      role text,
      worker text NOT NULL,
      result text NOT NULL,
      log bytea NOT NULL,
      seconds double precision NOT NULL,
      stderr bytea,
      log_sha256 text,
      state text NOT NULL,
      why text NOT NULL DEFAULT '',
      finished timestamptz NOT NULL,
      moved timestamptz NOT NULL DEFAULT now()))sql"},
    {"set_aside_job", "CREATE INDEX IF NOT EXISTS set_aside_job ON set_aside(job)"},
};

// After the added columns, since it is over one of them.
constexpr const char* kPendingIndex =
    "CREATE INDEX IF NOT EXISTS results_pending ON results(job) WHERE check_state = 'pending'";

// Columns added after the first stores were made: a store without one gets it when opened
// (checked first: ALTER locks the table). {table, column, definition}.
struct AddedColumn {
  const char* table;
  const char* column;
  const char* definition;
};
constexpr AddedColumn kAddedColumns[] = {
    {"results", "stderr", "bytea"},
    // Rows stored before the log checksum read as unverified.
    {"results", "log_sha256", "text"},
    // The count of matches passed unrated is counted from then on.
    {"ladders", "unrated", "bigint NOT NULL DEFAULT 0"},
    // Untrusted workers: the role holding a lease, the roles that may not play a job again (a
    // re-play is another worker's), the role that stored a result and where its check stands
    // ('': none needed, 'pending', 'passed').
    {"jobs", "lease_role", "text"},
    {"jobs", "exclude_roles", "text[] NOT NULL DEFAULT '{}'"},
    {"results", "role", "text"},
    {"results", "check_state", "text NOT NULL DEFAULT ''"},
};

constexpr const char* kBotColumns =
    "name, version, game, manifest, source, artifact, status, reason, "
    "to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), "
    "coalesce((SELECT author FROM bot_owners o WHERE o.name = bot_versions.name), '')";

constexpr const char* kAuthorColumns =
    "name, role, to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), "
    "coalesce(to_char(revoked AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), '')";

constexpr const char* kTournamentColumns =
    "id, name, game, spec, planned, "
    "to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')";

// The server's clock, read afresh by every use (now() would stand still for the transaction).
constexpr const char* kLeaseEnd = "clock_timestamp() + $2::bigint * interval '1 millisecond'";

// The rows to insert travel as one JSON array of [index, round, spec text] parameter, so a
// round of any size is one statement; ids follow the order of `jobs`.
constexpr const char* kInsertJobs =
    "INSERT INTO jobs(tournament, idx, round, spec) "
    "SELECT $1, (e->>0)::bigint, (e->>1)::bigint, e->>2 "
    "FROM json_array_elements($2::json) WITH ORDINALITY AS rows(e, n) ORDER BY n "
    "ON CONFLICT (tournament, idx) DO NOTHING";

// One statement finds the job, stores the result unless there is one, and either closes the
// job or counts the copy: one round trip, and concurrent copies serialize on the results key.
constexpr const char* kComplete = R"sql(
  WITH job AS (SELECT id, tournament FROM jobs WHERE id = $1),
  stored AS (
    INSERT INTO results(job, tournament, worker, result, log, seconds, stderr, log_sha256,
                        check_state)
    SELECT id, tournament, $2, $3, $4, $5, NULLIF($6, ''::bytea), $7,  -- empty: none
           -- A re-play of a worker's result (worker_roles.h) is compared by the checker.
           CASE WHEN EXISTS (SELECT 1 FROM set_aside s WHERE s.job = $1
                             AND s.state IN ('awaiting-replay', 'disputed'))
                THEN 'pending' ELSE '' END
    FROM job
    ON CONFLICT (job) DO NOTHING RETURNING job),
  closed AS (
    UPDATE jobs SET done = true, lease_owner = NULL, lease_until = NULL
    WHERE id IN (SELECT job FROM stored) RETURNING id),
  counted AS (
    UPDATE jobs SET duplicates = duplicates + 1
    WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM stored)
    RETURNING id),
  dropped AS (DELETE FROM live_lines WHERE job = $1)
  SELECT (SELECT count(*) FROM job), (SELECT count(*) FROM closed), (SELECT count(*) FROM counted)
)sql";

// A batch of live lines travels as one JSON array of strings; none is added to a job that is
// done or missing.
constexpr const char* kAppendLive = R"sql(
  INSERT INTO live_lines(job, attempt, n, line)
  SELECT $1, $2, $3 + rows.n - 1, rows.e
  FROM json_array_elements_text($4::json) WITH ORDINALITY AS rows(e, n)
  WHERE EXISTS (SELECT 1 FROM jobs WHERE id = $1 AND NOT done)
  ON CONFLICT DO NOTHING
)sql";

// The job's state and its current attempt's lines in one statement, so from one snapshot.
constexpr const char* kLiveLines = R"sql(
  SELECT j.done, j.attempts, coalesce(j.lease_until >= clock_timestamp(), false), l.n, l.line
  FROM jobs j LEFT JOIN LATERAL (
    SELECT n, line FROM live_lines
    WHERE job = j.id AND attempt = j.attempts AND n >= $2 AND NOT j.done
    ORDER BY n LIMIT $3) l ON true
  WHERE j.id = $1 ORDER BY l.n
)sql";

Json parse_stored(const pqxx::field& f, std::string_view what) {
  auto parsed = parse_json(std::string_view(f.c_str(), f.size()));
  if (!parsed) throw std::runtime_error(fmt::format("a stored {} is damaged: {}", what,
                                                    parsed.error().message));
  return *std::move(parsed);
}

// A value read for checking (integrity.h): null when it is not JSON, which the check reports.
Json json_or_null(const pqxx::field& f) {
  return parse_json(std::string_view(f.c_str(), f.size())).value_or(Json());
}

BotVersion bot_version(const pqxx::row& r) {
  return {r[0].as<std::string>(), r[1].as<std::int64_t>(), r[2].as<std::string>(),
          json_or_null(r[3]),     r[4].as<std::string>(),  r[5].as<std::string>(),
          r[6].as<std::string>(), r[7].as<std::string>(),  r[8].as<std::string>(),
          r[9].as<std::string>()};
}

Author author_of(const pqxx::row& r) {
  return {r[0].as<std::string>(), r[1].as<std::string>(), r[2].as<std::string>(),
          r[3].as<std::string>()};
}

TournamentRecord tournament_record(const pqxx::row& r) {
  return {r[0].as<std::int64_t>(), r[1].as<std::string>(),  r[2].as<std::string>(),
          json_or_null(r[3]),      r[4].as<std::int64_t>(), r[5].as<std::string>()};
}

std::int64_t insert_jobs(pqxx::work& tx, std::int64_t tournament,
                         const std::vector<JobSpec>& jobs) {
  if (jobs.empty()) return 0;
  Json rows = Json::array();
  for (const JobSpec& j : jobs) rows.push_back(Json::array({j.index, j.round, dump(j.spec)}));
  return static_cast<std::int64_t>(
      tx.exec_params(kInsertJobs, tournament, dump(rows)).affected_rows());
}

void announce(pqxx::work& tx) {
  tx.exec_params("SELECT pg_notify($1, '')", std::string(kChannel));
}

// Thrown by method bodies for errors of the caller's making (an unknown id): never retried.
struct StoreError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Listener final : public pqxx::notification_receiver {
 public:
  explicit Listener(pqxx::connection_base& c) : pqxx::notification_receiver(c, kChannel) {}
  // await_notification counts the notifications; nothing else is needed of them.
  void operator()(const std::string&, int) override {}
};

class PostgresStore final : public Store {
 public:
  explicit PostgresStore(std::string url) : url_(std::move(url)) {}

  ~PostgresStore() override { close_listener(); }

  bool worker_only() const override { return worker_; }

  // Finds out whether this store is opened by an untrusted worker's role (worker_roles.h); if
  // not, creates what the schema lacks.
  Expected<void> open() {
    return run([&](pqxx::connection& c) -> Expected<void> {
      pqxx::work tx(c);
      worker_ = tx.exec_params1(
                      "SELECT EXISTS (SELECT 1 FROM pg_auth_members m "
                      "JOIN pg_roles g ON g.oid = m.roleid "
                      "JOIN pg_roles u ON u.oid = m.member "
                      "WHERE g.rolname = $1 AND u.rolname = session_user)",
                      std::string(kWorkerGroup))[0]
                    .as<bool>();
      if (worker_) return {};
      tx.exec_params("SELECT pg_advisory_xact_lock($1)", kSchemaLock);
      // Only what is missing: CREATE INDEX takes a share lock on its table even when the index
      // exists, and a store opened while workers write would then deadlock with them.
      for (const SchemaObject& o : kSchemaObjects)
        if (tx.exec_params1("SELECT to_regclass($1) IS NULL", std::string(o.name))[0].as<bool>())
          tx.exec(o.create);
      std::set<std::string> columns;
      for (const auto& row : tx.exec("SELECT table_name || '.' || column_name FROM "
                                     "information_schema.columns WHERE table_schema = "
                                     "current_schema()"))
        columns.insert(row[0].as<std::string>());
      for (const AddedColumn& a : kAddedColumns)
        if (!columns.contains(fmt::format("{}.{}", a.table, a.column)))
          tx.exec(fmt::format("ALTER TABLE {} ADD COLUMN {} {}", a.table, a.column, a.definition));
      if (tx.exec1("SELECT to_regclass('results_pending') IS NULL")[0].as<bool>())
        tx.exec(kPendingIndex);
      tx.commit();
      return {};
    });
  }

  Expected<std::int64_t> create_tournament(const std::string& name, const std::string& game,
                                           const Json& spec, std::int64_t planned,
                                           const std::vector<JobSpec>& jobs) override {
    auto id = run([&](pqxx::connection& c) -> Expected<std::int64_t> {
      pqxx::work tx(c);
      const auto row = tx.exec_params1(
          "INSERT INTO tournaments(name, game, spec, planned) VALUES($1, $2, $3, $4) "
          "RETURNING id",
          name, game, dump(spec), planned);
      const auto id = row[0].as<std::int64_t>();
      if (insert_jobs(tx, id, jobs) > 0) announce(tx);
      tx.commit();
      return id;
    });
    if (id && !jobs.empty()) wake_local_waiters();
    return id;
  }

  Expected<std::int64_t> add_jobs(std::int64_t tournament,
                                  const std::vector<JobSpec>& jobs) override {
    auto added = run([&](pqxx::connection& c) -> Expected<std::int64_t> {
      pqxx::work tx(c);
      if (tx.exec_params("SELECT 1 FROM tournaments WHERE id = $1", tournament).empty())
        throw StoreError(fmt::format("no tournament {}", tournament));
      const auto n = insert_jobs(tx, tournament, jobs);
      if (n > 0) announce(tx);
      tx.commit();
      return n;
    });
    if (added && *added > 0) wake_local_waiters();
    return added;
  }

  Expected<bool> add_round(std::int64_t tournament, const std::vector<JobSpec>& jobs) override {
    auto added = run([&](pqxx::connection& c) -> Expected<bool> {
      pqxx::work tx(c);
      if (tx.exec_params("SELECT 1 FROM tournaments WHERE id = $1", tournament).empty())
        throw StoreError(fmt::format("no tournament {}", tournament));
      // Writers of one tournament's rounds take turns, so a check and its insert are one step.
      tx.exec_params("SELECT pg_advisory_xact_lock($1, $2)", static_cast<int>(kSchemaLock & 0x7fff),
                     static_cast<int>(tournament & 0x7fffffff));
      std::string list = "{";
      for (std::size_t i = 0; i < jobs.size(); ++i)
        list += (i > 0 ? "," : "") + std::to_string(jobs[i].index);
      list += "}";
      if (!tx.exec_params("SELECT 1 FROM jobs WHERE tournament = $1 AND idx = ANY($2::bigint[]) "
                          "LIMIT 1",
                          tournament, list)
               .empty())
        return false;
      if (insert_jobs(tx, tournament, jobs) != static_cast<std::int64_t>(jobs.size()))
        throw StoreError("a round's jobs could not all be added");
      if (!jobs.empty()) announce(tx);
      tx.commit();
      return true;
    });
    if (added && *added) wake_local_waiters();
    return added;
  }

  Expected<std::optional<TournamentRecord>> find_tournament(std::int64_t id) override {
    if (worker_) return worker_tournament(id);
    return run([&](pqxx::connection& c) -> Expected<std::optional<TournamentRecord>> {
      pqxx::nontransaction tx(c);
      const auto r = tx.exec_params(
          fmt::format("SELECT {} FROM tournaments WHERE id = $1", kTournamentColumns), id);
      if (r.empty()) return std::nullopt;
      return tournament_record(r[0]);
    });
  }

  Expected<std::vector<TournamentRecord>> tournaments() override {
    if (worker_) return worker_tournaments();
    return run([&](pqxx::connection& c) -> Expected<std::vector<TournamentRecord>> {
      pqxx::nontransaction tx(c);
      const auto r =
          tx.exec(fmt::format("SELECT {} FROM tournaments ORDER BY id", kTournamentColumns));
      std::vector<TournamentRecord> out;
      out.reserve(r.size());
      for (const auto& row : r) out.push_back(tournament_record(row));
      return out;
    });
  }

  Expected<std::vector<Job>> claim(const std::string& worker, std::int64_t max,
                                   std::chrono::milliseconds lease, std::int64_t only) override {
    if (max < 1 || lease.count() <= 0)
      return fail("postgresql: claim needs max >= 1 and a positive lease");
    if (worker_) return worker_claim(worker, max, lease, only);
    return run([&](pqxx::connection& c) -> Expected<std::vector<Job>> {
      // Two statements rather than "$4 = 0 OR tournament = $4", so that each has a plan that
      // uses its own partial index.
      const std::string which = only == 0 ? "" : "AND tournament = $4 ";
      const std::string sql = fmt::format(
          "UPDATE jobs SET lease_owner = $1, lease_role = NULL, lease_until = {}, "
          "attempts = attempts + 1 "
          "WHERE id IN (SELECT id FROM jobs WHERE NOT done "
          "AND (lease_until IS NULL OR lease_until < clock_timestamp()) {}"
          "AND tournament NOT IN (SELECT tournament FROM conclusions) "
          "ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED) "
          "RETURNING id, tournament, idx, round, spec, attempts",
          kLeaseEnd, which);
      pqxx::work tx(c);
      const auto r = only == 0
                         ? tx.exec_params(sql, worker, std::int64_t{lease.count()}, max)
                         : tx.exec_params(sql, worker, std::int64_t{lease.count()}, max, only);
      std::vector<Job> jobs;
      jobs.reserve(r.size());
      for (const auto& row : r)
        jobs.push_back({row[0].as<std::int64_t>(), row[1].as<std::int64_t>(),
                        row[2].as<std::int64_t>(), row[3].as<std::int64_t>(),
                        parse_stored(row[4], "job spec"), row[5].as<std::int64_t>()});
      tx.commit();
      // RETURNING gives the rows in no particular order.
      std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.id < b.id; });
      return jobs;
    });
  }

  Expected<std::int64_t> renew(const std::string& worker,
                               std::chrono::milliseconds lease) override {
    if (worker_) return worker_renew(worker, lease);
    return run([&](pqxx::connection& c) -> Expected<std::int64_t> {
      pqxx::work tx(c);
      const auto r = tx.exec_params(
          fmt::format("UPDATE jobs SET lease_until = {} "
                      "WHERE lease_owner = $1 AND NOT done",
                      kLeaseEnd),
          worker, std::int64_t{lease.count()});
      tx.commit();
      return static_cast<std::int64_t>(r.affected_rows());
    });
  }

  Expected<bool> complete(std::int64_t job, const std::string& worker,
                          const JobResult& result) override {
    if (worker_) return worker_complete(job, worker, result);
    return run([&](pqxx::connection& c) -> Expected<bool> {
      pqxx::work tx(c);
      const auto row =
          tx.exec_params1(kComplete, job, worker, dump(result.result),
                          pqxx::binarystring(pack_log(result.log)), result.seconds,
                          pqxx::binarystring(result.stderr_tails.is_null()
                                                 ? std::string()
                                                 : pack_log(dump(result.stderr_tails))),
                          log_checksum(result.log));
      if (row[0].as<std::int64_t>() == 0) throw StoreError(fmt::format("no job {}", job));
      const bool first = row[1].as<std::int64_t>() == 1;
      tx.commit();
      return first;
    });
  }

  Expected<void> append_live(const std::vector<LiveBatch>& batches) override {
    if (worker_) return worker_append_live(batches);
    return run([&](pqxx::connection& c) -> Expected<void> {
      pqxx::work tx(c);
      for (const LiveBatch& b : batches) {
        if (b.lines.empty()) continue;
        tx.exec_params(kAppendLive, b.job, b.attempt, b.first, dump(Json(b.lines)));
      }
      tx.commit();
      return {};
    });
  }

  Expected<std::vector<LiveJob>> live_jobs(std::int64_t tournament) override {
    return run([&](pqxx::connection& c) -> Expected<std::vector<LiveJob>> {
      pqxx::nontransaction tx(c);
      const auto r = tx.exec_params(
          "SELECT j.id, j.idx, j.round, j.spec, j.lease_owner, j.attempts, l.n FROM jobs j "
          "CROSS JOIN LATERAL (SELECT count(*) AS n FROM live_lines l "
          "WHERE l.job = j.id AND l.attempt = j.attempts) l "
          "WHERE j.tournament = $1 AND NOT j.done AND j.lease_until >= clock_timestamp() "
          "AND l.n > 0 ORDER BY j.idx",
          tournament);
      std::vector<LiveJob> out;
      out.reserve(r.size());
      for (const auto& row : r)
        out.push_back({row[0].as<std::int64_t>(), row[1].as<std::int64_t>(),
                       row[2].as<std::int64_t>(), json_or_null(row[3]),
                       row[4].is_null() ? std::string() : row[4].as<std::string>(),
                       row[5].as<std::int64_t>(), row[6].as<std::int64_t>()});
      return out;
    });
  }

  Expected<LiveLines> live_lines(std::int64_t job, std::int64_t from,
                                 std::int64_t max) override {
    return run([&](pqxx::connection& c) -> Expected<LiveLines> {
      pqxx::nontransaction tx(c);
      const auto r = tx.exec_params(kLiveLines, job, from, max);
      LiveLines out;
      if (r.empty()) return out;
      out.exists = true;
      out.finished = r[0][0].as<bool>();
      out.attempt = r[0][1].as<std::int64_t>();
      out.playing = !out.finished && r[0][2].as<bool>();
      std::int64_t next = from;
      for (const auto& row : r) {
        if (row[3].is_null() || row[3].as<std::int64_t>() != next) break;
        out.lines.push_back(row[4].as<std::string>());
        ++next;
      }
      return out;
    });
  }

  Expected<std::int64_t> release(const std::string& worker) override {
    if (worker_) return worker_release(worker);
    auto released = run([&](pqxx::connection& c) -> Expected<std::int64_t> {
      pqxx::work tx(c);
      const auto r = tx.exec_params(
          "UPDATE jobs SET lease_owner = NULL, lease_until = NULL "
          "WHERE lease_owner = $1 AND NOT done",
          worker);
      const auto n = static_cast<std::int64_t>(r.affected_rows());
      if (n > 0) announce(tx);
      tx.commit();
      return n;
    });
    if (released && *released > 0) wake_local_waiters();
    return released;
  }

  Expected<Progress> progress(std::int64_t tournament) override {
    if (worker_) return worker_progress(tournament);
    return run([&](pqxx::connection& c) -> Expected<Progress> {
      pqxx::nontransaction tx(c);
      const auto r = tx.exec_params(
          // Done, but for the results waiting for their check (few: a partial index has them).
          "SELECT t.planned, count(j.id), count(j.id) FILTER (WHERE j.done) - (SELECT count(*) "
          "FROM results p WHERE p.tournament = t.id AND p.check_state = 'pending'), "
          "count(j.id) FILTER (WHERE NOT j.done AND j.lease_until >= clock_timestamp()), "
          "coalesce(sum(j.duplicates), 0)::bigint "
          "FROM tournaments t LEFT JOIN jobs j ON j.tournament = t.id "
          "WHERE t.id = $1 GROUP BY t.id",
          tournament);
      if (r.empty()) throw StoreError(fmt::format("no tournament {}", tournament));
      const auto& row = r[0];
      Progress p{row[0].as<std::int64_t>(), row[1].as<std::int64_t>(),
                 row[2].as<std::int64_t>(), row[3].as<std::int64_t>(),
                 row[4].as<std::int64_t>(), std::nullopt};
      const auto verdict =
          tx.exec_params("SELECT verdict FROM conclusions WHERE tournament = $1", tournament);
      if (!verdict.empty()) p.concluded = verdict[0][0].as<std::string>();
      return p;
    });
  }

  Expected<bool> conclude(std::int64_t tournament, const std::string& verdict) override {
    auto first = run([&](pqxx::connection& c) -> Expected<bool> {
      pqxx::work tx(c);
      if (tx.exec_params("SELECT 1 FROM tournaments WHERE id = $1", tournament).empty())
        throw StoreError(fmt::format("no tournament {}", tournament));
      const auto r = tx.exec_params(
          "INSERT INTO conclusions(tournament, verdict) VALUES ($1, $2) "
          "ON CONFLICT (tournament) DO NOTHING",
          tournament, verdict);
      const bool inserted = r.affected_rows() == 1;
      announce(tx);
      tx.commit();
      return inserted;
    });
    if (first) wake_local_waiters();
    return first;
  }

  Expected<std::vector<Lease>> leases(std::int64_t tournament) override {
    return run([&](pqxx::connection& c) -> Expected<std::vector<Lease>> {
      pqxx::nontransaction tx(c);
      const auto r = tx.exec_params(
          "SELECT id, lease_owner, lease_until < clock_timestamp() FROM jobs "
          "WHERE tournament = $1 AND NOT done AND lease_owner IS NOT NULL ORDER BY id",
          tournament);
      std::vector<Lease> out;
      out.reserve(r.size());
      for (const auto& row : r)
        out.push_back({row[0].as<std::int64_t>(), row[1].as<std::string>(), row[2].as<bool>()});
      return out;
    });
  }

  Expected<std::vector<StoredResult>> results(std::int64_t tournament,
                                              std::int64_t from_index) override {
    return result_rows(
        "SELECT r.job, j.idx, j.round, j.spec, r.result, r.worker, r.seconds "
        "FROM jobs j JOIN results r ON r.job = j.id WHERE j.tournament = $1 AND j.idx >= $2 "
        // A worker role's result waiting for its check is not counted yet (worker_roles.h).
        "AND r.check_state <> 'pending' ORDER BY j.idx",
        tournament, from_index);
  }

  Expected<std::vector<StoredResult>> results_at(
      std::int64_t tournament, const std::vector<std::int64_t>& indices) override {
    std::string list = "{";
    for (std::size_t i = 0; i < indices.size(); ++i)
      list += (i > 0 ? "," : "") + std::to_string(indices[i]);
    list += "}";
    return result_rows(
        "SELECT r.job, j.idx, j.round, j.spec, r.result, r.worker, r.seconds "
        "FROM jobs j JOIN results r ON r.job = j.id WHERE j.tournament = $1 "
        "AND j.idx = ANY($2::bigint[]) ORDER BY j.idx",
        tournament, list);
  }

  template <class... Params>
  Expected<std::vector<StoredResult>> result_rows(const char* sql, const Params&... params) {
    return run([&](pqxx::connection& c) -> Expected<std::vector<StoredResult>> {
      pqxx::nontransaction tx(c);
      const auto r = tx.exec_params(sql, params...);
      std::vector<StoredResult> out;
      out.reserve(r.size());
      for (const auto& row : r) {
        StoredResult s{row[0].template as<std::int64_t>(),
                       row[1].template as<std::int64_t>(),
                       row[2].template as<std::int64_t>(),
                       json_or_null(row[3]),
                       json_or_null(row[4]),
                       row[5].template as<std::string>(),
                       row[6].template as<double>()};
        s.damage = result_damage(s.spec, s.result);
        out.push_back(std::move(s));
      }
      return out;
    });
  }

  Expected<std::optional<PackedLog>> packed_log(std::int64_t job) override {
    return run([&](pqxx::connection& c) -> Expected<std::optional<PackedLog>> {
      pqxx::nontransaction tx(c);
      const auto r = tx.exec_params(
          "SELECT r.log, r.log_sha256, r.result, j.spec FROM results r "
          "JOIN jobs j ON j.id = r.job WHERE r.job = $1",
          job);
      if (r.empty()) return std::nullopt;
      const auto& row = r[0];
      return PackedLog{pqxx::binarystring(row[0]).str(),
                       row[1].is_null() ? std::nullopt : std::optional(row[1].as<std::string>()),
                       json_or_null(row[2]), json_or_null(row[3])};
    });
  }

  Expected<std::optional<Json>> stderr_tails(std::int64_t job) override {
    return run([&](pqxx::connection& c) -> Expected<std::optional<Json>> {
      pqxx::nontransaction tx(c);
      const auto r = tx.exec_params("SELECT stderr FROM results WHERE job = $1", job);
      if (r.empty()) return std::nullopt;
      if (r[0][0].is_null()) return Json();
      auto tails = decode_stderr_tails(pqxx::binarystring(r[0][0]).str());
      if (!tails) return std::unexpected(Error{"postgresql: " + tails.error().message});
      return *tails;
    });
  }

  Expected<BotVersion> add_bot_version(const std::string& name, const std::string& game,
                                       const Json& manifest, const std::string& source,
                                       const std::string& status,
                                       const std::string& author) override {
    return run([&](pqxx::connection& c) -> Expected<BotVersion> {
      pqxx::work tx(c);
      // Versions of one name, and new names that read alike, are stored one at a time.
      tx.exec_params(fmt::format("SELECT pg_advisory_xact_lock(hashtext('bot:' || {}))",
                                 reads_as_sql("$1::text")),
                     name);
      const auto last = tx.exec_params(
          "SELECT version, game FROM bot_versions WHERE name = $1 ORDER BY version DESC LIMIT 1",
          name);
      std::int64_t version = 1;
      if (!last.empty()) {
        if (last[0][1].as<std::string>() != game)
          throw StoreError(fmt::format("the bot {} plays {}, not {}: give the new one another name",
                                       name, last[0][1].as<std::string>(), game));
        version = last[0][0].as<std::int64_t>() + 1;
      }
      const auto owner = tx.exec_params("SELECT author FROM bot_owners WHERE name = $1", name);
      const std::string owned_by = owner.empty() ? std::string() : owner[0][0].as<std::string>();
      if (auto refused = ownership_refusal(name, version, owned_by, author))
        throw StoreError(*refused);
      if (version == 1) {
        const auto alike =
            tx.exec_params(fmt::format("SELECT v.name, coalesce(o.author, '') FROM bot_versions v "
                                       "LEFT JOIN bot_owners o ON o.name = v.name WHERE {} = {} "
                                       "AND v.name <> $1 LIMIT 1",
                                       reads_as_sql("v.name"), reads_as_sql("$1::text")),
                           name);
        if (!alike.empty() && alike[0][1].as<std::string>() != author)
          throw StoreError(
              fmt::format("the bot name {} reads as {}, another's: give yours "
                          "another name",
                          name, alike[0][0].as<std::string>()));
      }
      if (version == 1 && !author.empty())
        tx.exec_params("INSERT INTO bot_owners(name, author) VALUES($1, $2)", name, author);
      const auto row = tx.exec_params1(
          fmt::format("INSERT INTO bot_versions(name, version, game, manifest, source, status) "
                      "VALUES($1, $2, $3, $4, $5, $6) RETURNING {}",
                      kBotColumns),
          name, version, game, dump(manifest), source, status);
      BotVersion v = bot_version(row);
      tx.commit();
      return v;
    });
  }

  Expected<void> set_bot_status(const std::string& name, std::int64_t version,
                                const std::string& status, const std::string& reason,
                                const std::string& artifact,
                                const std::optional<std::string>& build_log) override {
    return run([&](pqxx::connection& c) -> Expected<void> {
      pqxx::work tx(c);
      const auto r = tx.exec_params(
          "UPDATE bot_versions SET status = $3, reason = $4, "
          "artifact = CASE WHEN $5 = '' THEN artifact ELSE $5 END, "
          "build_log = CASE WHEN $6 THEN $7 ELSE build_log END "
          "WHERE name = $1 AND version = $2",
          name, version, status, reason, artifact, build_log.has_value(),
          pqxx::binarystring(build_log.value_or(std::string())));
      if (r.affected_rows() == 0) throw StoreError(fmt::format("no bot {}@{}", name, version));
      tx.commit();
      return {};
    });
  }

  Expected<std::vector<BotVersion>> bot_versions(const std::string& name) override {
    if (worker_) return worker_bot_versions(name);
    return run([&](pqxx::connection& c) -> Expected<std::vector<BotVersion>> {
      pqxx::nontransaction tx(c);
      std::vector<BotVersion> out;
      for (const auto& row :
           tx.exec_params(fmt::format("SELECT {} FROM bot_versions WHERE $1 = '' OR name = $1 "
                                      "ORDER BY name, version",
                                      kBotColumns),
                          name))
        out.push_back(bot_version(row));
      return out;
    });
  }

  Expected<std::optional<std::string>> bot_build_log(const std::string& name,
                                                     std::int64_t version) override {
    return run([&](pqxx::connection& c) -> Expected<std::optional<std::string>> {
      pqxx::nontransaction tx(c);
      const auto r = tx.exec_params(
          "SELECT build_log FROM bot_versions WHERE name = $1 AND version = $2", name, version);
      if (r.empty() || r[0][0].is_null()) return std::nullopt;
      return pqxx::binarystring(r[0][0]).str();
    });
  }

  Expected<bool> put_blob(const std::string& hash, const std::string& bytes) override {
    return run([&](pqxx::connection& c) -> Expected<bool> {
      pqxx::work tx(c);
      const auto r = tx.exec_params(
          "INSERT INTO blobs(hash, bytes) VALUES($1, $2) ON CONFLICT (hash) DO NOTHING", hash,
          pqxx::binarystring(bytes));
      tx.commit();
      return r.affected_rows() == 1;
    });
  }

  Expected<std::optional<std::string>> blob(const std::string& hash) override {
    if (worker_) return worker_blob(hash);
    return run([&](pqxx::connection& c) -> Expected<std::optional<std::string>> {
      pqxx::nontransaction tx(c);
      const auto r = tx.exec_params("SELECT bytes FROM blobs WHERE hash = $1", hash);
      if (r.empty()) return std::nullopt;
      return pqxx::binarystring(r[0][0]).str();
    });
  }

  Expected<bool> replace_spec(std::int64_t tournament, const Json& expected,
                              const Json& spec) override {
    return run([&](pqxx::connection& c) -> Expected<bool> {
      pqxx::work tx(c);
      const auto r =
          tx.exec_params("SELECT spec FROM tournaments WHERE id = $1 FOR UPDATE", tournament);
      if (r.empty()) throw StoreError(fmt::format("no tournament {}", tournament));
      if (parse_json(r[0][0].as<std::string>()).value_or(Json()) != expected) return false;
      tx.exec_params("UPDATE tournaments SET spec = $1 WHERE id = $2", dump(spec), tournament);
      tx.commit();
      return true;
    });
  }

  Expected<std::vector<JobSpec>> jobs(std::int64_t tournament, std::int64_t from_index) override {
    return run([&](pqxx::connection& c) -> Expected<std::vector<JobSpec>> {
      pqxx::nontransaction tx(c);
      std::vector<JobSpec> out;
      for (const auto& row :
           tx.exec_params("SELECT idx, round, spec FROM jobs WHERE tournament = $1 AND idx >= $2 "
                          "ORDER BY idx",
                          tournament, from_index))
        out.push_back({row[0].as<std::int64_t>(), row[1].as<std::int64_t>(),
                       parse_json(row[2].as<std::string>()).value_or(Json())});
      return out;
    });
  }

  Expected<Author> add_author(const std::string& name, const std::string& role,
                              const std::string& salt, const std::string& hash) override {
    return run([&](pqxx::connection& c) -> Expected<Author> {
      pqxx::work tx(c);
      const auto r = tx.exec_params(
          fmt::format("INSERT INTO authors(name, role, salt, hash) VALUES($1, $2, $3, $4) "
                      "ON CONFLICT(name) DO NOTHING RETURNING {}",
                      kAuthorColumns),
          name, role, salt, hash);
      if (r.empty()) throw StoreError(fmt::format("the author {} exists already", name));
      Author a = author_of(r[0]);
      tx.commit();
      return a;
    });
  }

  Expected<std::vector<Author>> authors() override {
    return run([&](pqxx::connection& c) -> Expected<std::vector<Author>> {
      pqxx::nontransaction tx(c);
      std::vector<Author> out;
      for (const auto& row :
           tx.exec(fmt::format("SELECT {} FROM authors ORDER BY name", kAuthorColumns)))
        out.push_back(author_of(row));
      return out;
    });
  }

  Expected<std::optional<AuthorSecret>> author_secret(const std::string& name) override {
    return run([&](pqxx::connection& c) -> Expected<std::optional<AuthorSecret>> {
      pqxx::nontransaction tx(c);
      const auto r = tx.exec_params(
          fmt::format("SELECT {}, salt, hash FROM authors WHERE name = $1", kAuthorColumns), name);
      if (r.empty()) return std::optional<AuthorSecret>{};
      return std::optional<AuthorSecret>{
          AuthorSecret{author_of(r[0]), r[0][4].as<std::string>(), r[0][5].as<std::string>()}};
    });
  }

  Expected<void> set_webhook(const std::string& author, const std::string& url,
                             const std::string& key) override {
    return run([&](pqxx::connection& c) -> Expected<void> {
      pqxx::work tx(c);
      if (tx.exec_params("SELECT 1 FROM authors WHERE name = $1", author).empty())
        throw StoreError(fmt::format("no author {}", author));
      tx.exec_params("DELETE FROM webhooks WHERE author = $1", author);
      if (!url.empty())
        tx.exec_params("INSERT INTO webhooks(author, url, key) VALUES($1, $2, $3)", author, url,
                       key);
      tx.commit();
      return {};
    });
  }

  Expected<std::optional<std::pair<std::string, std::string>>> webhook(
      const std::string& author) override {
    using Hook = std::optional<std::pair<std::string, std::string>>;
    return run([&](pqxx::connection& c) -> Expected<Hook> {
      pqxx::nontransaction tx(c);
      const auto r = tx.exec_params("SELECT url, key FROM webhooks WHERE author = $1", author);
      if (r.empty()) return Hook{};
      return Hook{std::pair{r[0][0].as<std::string>(), r[0][1].as<std::string>()}};
    });
  }

  Expected<bool> revoke_author(const std::string& name) override {
    return run([&](pqxx::connection& c) -> Expected<bool> {
      pqxx::work tx(c);
      const auto r = tx.exec_params(
          "UPDATE authors SET revoked = now() WHERE name = $1 AND revoked IS NULL", name);
      tx.commit();
      return r.affected_rows() == 1;
    });
  }

  Expected<LadderState> ladder_state(std::int64_t tournament) override {
    return run([&](pqxx::connection& c) -> Expected<LadderState> {
      pqxx::nontransaction tx(c);
      const auto r = tx.exec_params(
          "SELECT state, mark, unrated FROM ladders WHERE tournament = $1", tournament);
      if (r.empty()) return LadderState{};
      return LadderState{r[0][0].as<std::string>(), r[0][1].as<std::int64_t>(),
                         r[0][2].as<std::int64_t>()};
    });
  }

  Expected<void> set_ladder_state(std::int64_t tournament, const std::string& state) override {
    return run([&](pqxx::connection& c) -> Expected<void> {
      pqxx::work tx(c);
      if (tx.exec_params("SELECT 1 FROM tournaments WHERE id = $1", tournament).empty())
        throw StoreError(fmt::format("no tournament {}", tournament));
      tx.exec_params(
          "INSERT INTO ladders(tournament, state) VALUES($1, $2) "
          "ON CONFLICT (tournament) DO UPDATE SET state = excluded.state",
          tournament, state);
      tx.commit();
      return {};
    });
  }

  Expected<bool> record_ratings(std::int64_t tournament, std::int64_t from, std::int64_t to,
                                const std::vector<RatingStep>& steps,
                                std::int64_t unrated) override {
    Json rows = Json::array();
    for (const RatingStep& r : steps)
      rows.push_back({r.entrant, r.index, r.mu, r.sigma, r.games, r.place});
    return run([&](pqxx::connection& c) -> Expected<bool> {
      pqxx::work tx(c);
      // The row is locked (or made) first, so two coordinators take turns on the mark.
      tx.exec_params(
          "INSERT INTO ladders(tournament, state) VALUES($1, 'running') "
          "ON CONFLICT (tournament) DO NOTHING",
          tournament);
      const auto m =
          tx.exec_params("SELECT mark FROM ladders WHERE tournament = $1 FOR UPDATE", tournament);
      if (m.empty() || m[0][0].as<std::int64_t>() != from) return false;
      tx.exec_params("UPDATE ladders SET mark = $2, unrated = unrated + $3 WHERE tournament = $1",
                     tournament, to, unrated);
      constexpr const char* kRows =
          "SELECT $1::bigint, (e->>0)::bigint, (e->>1)::bigint, (e->>2)::double precision, "
          "(e->>3)::double precision, (e->>4)::bigint, (e->>5)::bigint "
          "FROM json_array_elements($2::json) AS rows(e)";
      tx.exec_params(fmt::format("INSERT INTO rating_steps(tournament, entrant, idx, mu, sigma, "
                                 "games, place) {}",
                                 kRows),
                     tournament, dump(rows));
      // Latest per entrant: a batch may hold several steps of one entrant.
      tx.exec_params(
          fmt::format("INSERT INTO ratings_now(tournament, entrant, idx, mu, sigma, games, place) "
                      "SELECT DISTINCT ON (2) * FROM ({}) AS s ORDER BY 2, 3 DESC "
                      "ON CONFLICT (tournament, entrant) DO UPDATE SET idx = excluded.idx, "
                      "mu = excluded.mu, sigma = excluded.sigma, games = excluded.games, "
                      "place = excluded.place WHERE excluded.idx > ratings_now.idx",
                      kRows),
          tournament, dump(rows));
      tx.commit();
      return true;
    });
  }

  Expected<std::vector<RatingStep>> ratings(std::int64_t tournament) override {
    return rating_rows(
        "SELECT idx, entrant, mu, sigma, games, place FROM ratings_now WHERE tournament = $1 "
        "ORDER BY entrant",
        tournament);
  }

  Expected<std::vector<RatingStep>> rating_history(std::int64_t tournament, std::int64_t entrant,
                                                   std::int64_t from_index) override {
    return rating_rows(
        "SELECT idx, entrant, mu, sigma, games, place FROM rating_steps WHERE tournament = $1 "
        "AND entrant = $2 AND idx >= $3 ORDER BY idx",
        tournament, entrant, from_index);
  }

  template <class... Params>
  Expected<std::vector<RatingStep>> rating_rows(const char* sql, const Params&... params) {
    return run([&](pqxx::connection& c) -> Expected<std::vector<RatingStep>> {
      pqxx::nontransaction tx(c);
      std::vector<RatingStep> out;
      for (const auto& row : tx.exec_params(sql, params...))
        out.push_back({row[0].template as<std::int64_t>(), row[1].template as<std::int64_t>(),
                       row[2].template as<double>(), row[3].template as<double>(),
                       row[4].template as<std::int64_t>(), row[5].template as<std::int64_t>()});
      return out;
    });
  }

  // One waiting thread at a time listens on the dedicated connection; the others wait for it to
  // report (or for this process's own additions), and take over if it leaves before them.
  void wait_for_work(std::chrono::milliseconds timeout) override {
    const auto until = std::chrono::steady_clock::now() + timeout;
    std::unique_lock lock(wait_mutex_);
    const std::uint64_t wakes = wakes_;
    while (wakes_ == wakes) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= until) return;
      if (listening_) {
        woken_.wait_until(lock, until);
        continue;
      }
      listening_ = true;
      lock.unlock();
      const Heard heard = listen(until);
      lock.lock();
      listening_ = false;
      if (heard == Heard::work) ++wakes_;
      woken_.notify_all();
      // Without a connection to the server, sleep out the timeout rather than spin on retries.
      if (heard == Heard::failed) woken_.wait_until(lock, until, [&] { return wakes_ != wakes; });
      return;
    }
  }

 private:
  // What a worker's role calls instead (worker_roles.h): functions that know the caller.

  Expected<std::vector<Job>> worker_claim(const std::string& worker, std::int64_t max,
                                          std::chrono::milliseconds lease, std::int64_t only) {
    return run([&](pqxx::connection& c) -> Expected<std::vector<Job>> {
      pqxx::work tx(c);
      const auto r = tx.exec_params("SELECT * FROM arbiter_worker.claim($1, $2, $3, $4)", worker,
                                    max, std::int64_t{lease.count()}, only);
      std::vector<Job> jobs;
      for (const auto& row : r)
        jobs.push_back({row[0].as<std::int64_t>(), row[1].as<std::int64_t>(),
                        row[2].as<std::int64_t>(), row[3].as<std::int64_t>(),
                        parse_stored(row[4], "job spec"), row[5].as<std::int64_t>()});
      tx.commit();
      std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.id < b.id; });
      return jobs;
    });
  }

  Expected<std::int64_t> worker_renew(const std::string& worker, std::chrono::milliseconds lease) {
    return run([&](pqxx::connection& c) -> Expected<std::int64_t> {
      pqxx::work tx(c);
      const auto n = tx.exec_params1("SELECT arbiter_worker.renew($1, $2)", worker,
                                     std::int64_t{lease.count()})[0]
                         .as<std::int64_t>();
      tx.commit();
      return n;
    });
  }

  // A result for a job this role no longer holds (its lease ran out and another worker took
  // it) is refused by the server; the copy is dropped as a duplicate would be.
  Expected<bool> worker_complete(std::int64_t job, const std::string& worker,
                                 const JobResult& result) {
    return run([&](pqxx::connection& c) -> Expected<bool> {
      pqxx::work tx(c);
      try {
        tx.exec_params(
            "SELECT arbiter_worker.complete($1, $2, $3, $4, $5, $6, $7)", job, worker,
            dump(result.result), pqxx::binarystring(pack_log(result.log)), result.seconds,
            pqxx::binarystring(result.stderr_tails.is_null() ? std::string()
                                                             : pack_log(dump(result.stderr_tails))),
            log_checksum(result.log));
      } catch (const pqxx::sql_error& e) {
        if (e.sqlstate() == "AW001") return false;
        throw;
      }
      tx.commit();
      return true;
    });
  }

  Expected<void> worker_append_live(const std::vector<LiveBatch>& batches) {
    return run([&](pqxx::connection& c) -> Expected<void> {
      pqxx::work tx(c);
      for (const LiveBatch& b : batches) {
        if (b.lines.empty()) continue;
        tx.exec_params("SELECT arbiter_worker.append_live($1, $2, $3, $4)", b.job, b.attempt,
                       b.first, dump(Json(b.lines)));
      }
      tx.commit();
      return {};
    });
  }

  Expected<std::int64_t> worker_release(const std::string& worker) {
    auto released = run([&](pqxx::connection& c) -> Expected<std::int64_t> {
      pqxx::work tx(c);
      const auto n =
          tx.exec_params1("SELECT arbiter_worker.release($1)", worker)[0].as<std::int64_t>();
      tx.commit();
      return n;
    });
    if (released && *released > 0) wake_local_waiters();
    return released;
  }

  Expected<std::optional<TournamentRecord>> worker_tournament(std::int64_t id) {
    return run([&](pqxx::connection& c) -> Expected<std::optional<TournamentRecord>> {
      pqxx::work tx(c);
      const auto r = tx.exec_params("SELECT * FROM arbiter_worker.tournament($1)", id);
      tx.commit();
      if (r.empty()) return std::nullopt;
      return tournament_record(r[0]);
    });
  }

  Expected<std::vector<TournamentRecord>> worker_tournaments() {
    return run([&](pqxx::connection& c) -> Expected<std::vector<TournamentRecord>> {
      pqxx::work tx(c);
      std::vector<TournamentRecord> out;
      for (const auto& row : tx.exec("SELECT * FROM arbiter_worker.tournaments()"))
        out.push_back({row[0].as<std::int64_t>(), "", row[1].as<std::string>(), Json(),
                       row[2].as<std::int64_t>(), ""});
      tx.commit();
      return out;
    });
  }

  Expected<Progress> worker_progress(std::int64_t tournament) {
    return run([&](pqxx::connection& c) -> Expected<Progress> {
      pqxx::work tx(c);
      const auto r = tx.exec_params("SELECT * FROM arbiter_worker.progress($1)", tournament);
      tx.commit();
      if (r.empty()) throw StoreError(fmt::format("no tournament {}", tournament));
      const auto& row = r[0];
      Progress p{row[0].as<std::int64_t>(), row[1].as<std::int64_t>(), row[2].as<std::int64_t>(),
                 row[3].as<std::int64_t>(), row[4].as<std::int64_t>(), std::nullopt};
      if (!row[5].is_null()) p.concluded = row[5].as<std::string>();
      return p;
    });
  }

  Expected<std::vector<BotVersion>> worker_bot_versions(const std::string& name) {
    return run([&](pqxx::connection& c) -> Expected<std::vector<BotVersion>> {
      pqxx::work tx(c);
      std::vector<BotVersion> out;
      for (const auto& r : tx.exec_params("SELECT * FROM arbiter_worker.bot_versions($1)", name))
        out.push_back({r[0].as<std::string>(), r[1].as<std::int64_t>(), r[2].as<std::string>(),
                       json_or_null(r[3]), "", r[4].as<std::string>(), r[5].as<std::string>(), "",
                       r[6].as<std::string>(), ""});
      tx.commit();
      return out;
    });
  }

  Expected<std::optional<std::string>> worker_blob(const std::string& hash) {
    return run([&](pqxx::connection& c) -> Expected<std::optional<std::string>> {
      pqxx::work tx(c);
      const auto r = tx.exec_params1("SELECT arbiter_worker.blob($1)", hash);
      tx.commit();
      if (r[0].is_null()) return std::nullopt;
      return pqxx::binarystring(r[0]).str();
    });
  }

  enum class Heard { work, nothing, failed };

  // Runs `body` on the connection under the mutex; connects first if needed. Runs it once more
  // when the first try failed in a way that rolled everything back and may not happen again:
  // the connection broke (the server restarted; it is replaced), or the server picked this
  // transaction as a deadlock victim. A commit cut off midway is in doubt and only reported.
  template <class F>
  std::invoke_result_t<F&, pqxx::connection&> run(F&& body) {
    std::lock_guard lock(mutex_);
    for (int attempt = 0;; ++attempt) {
      bool retry = false;
      std::string message;
      try {
        if (!conn_) conn_ = std::make_unique<pqxx::connection>(url_);
        return body(*conn_);
      } catch (const StoreError& e) {
        return std::unexpected(Error{std::string("postgresql: ") + e.what()});
      } catch (const pqxx::in_doubt_error& e) {
        drop_connection();
        return std::unexpected(postgres_error(e.what()));
      } catch (const pqxx::statement_completion_unknown& e) {
        drop_connection();
        return std::unexpected(postgres_error(e.what()));
      } catch (const pqxx::transaction_rollback& e) {
        retry = true;
        message = e.what();
      } catch (const std::exception& e) {
        retry = !conn_ || !conn_->is_open() ||
                dynamic_cast<const pqxx::broken_connection*>(&e) != nullptr;
        if (retry) drop_connection();
        message = e.what();
      }
      if (!retry || attempt > 0) return std::unexpected(postgres_error(message));
    }
  }

  void drop_connection() {
    if (conn_) conn_->disconnect();
    conn_.reset();
  }

  // Waits until `until` for a notification on the listening connection. A connection opened
  // here (on the first wait, or because the old one broke) reports work at once: what was sent
  // before its LISTEN is lost, so the caller must look for itself. Only the thread that set
  // listening_ calls this.
  Heard listen(std::chrono::steady_clock::time_point until) {
    try {
      for (;;) {
        // libpqxx waits out the whole timeout on a connection it knows is dead.
        if (listen_conn_ && !listen_conn_->is_open()) close_listener();
        if (!listen_conn_) {
          listen_conn_ = std::make_unique<pqxx::connection>(url_);
          listener_ = std::make_unique<Listener>(*listen_conn_);
          return Heard::work;
        }
        const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                            until - std::chrono::steady_clock::now())
                            .count();
        if (us <= 0) return Heard::nothing;
        try {
          // Returns early, with nothing, when the socket had something else to read.
          if (listen_conn_->await_notification(us / 1'000'000, us % 1'000'000) > 0)
            return Heard::work;
        } catch (const std::exception&) {
          close_listener();  // and reconnect at once: the server may be back already
        }
      }
    } catch (const std::exception&) {
      close_listener();
      return Heard::failed;
    }
  }

  void close_listener() {
    // Disconnecting first keeps the receiver's destructor from sending UNLISTEN, which on a
    // broken connection would try to reconnect.
    if (listen_conn_) listen_conn_->disconnect();
    listener_.reset();
    listen_conn_.reset();
  }

  void wake_local_waiters() {
    {
      std::lock_guard lock(wait_mutex_);
      ++wakes_;
    }
    woken_.notify_all();
  }

  const std::string url_;
  bool worker_ = false;  // opened by a worker's role: it may call arbiter_worker's functions only

  std::mutex mutex_;  // guards conn_
  std::unique_ptr<pqxx::connection> conn_;

  std::mutex wait_mutex_;  // guards wakes_ and listening_
  std::condition_variable woken_;
  std::uint64_t wakes_ = 0;  // work seen added or released, here or by NOTIFY
  bool listening_ = false;   // a thread is in listen(); it alone touches listen_conn_
  std::unique_ptr<pqxx::connection> listen_conn_;
  std::unique_ptr<Listener> listener_;
};

}  // namespace

Expected<std::unique_ptr<Store>> open_postgres_store(const std::string& url) {
  try {
    auto store = std::make_unique<PostgresStore>(url);
    if (auto opened = store->open(); !opened) return std::unexpected(opened.error());
    return store;
  } catch (const std::exception& e) {
    return std::unexpected(postgres_error(e.what()));
  }
}

}  // namespace arbiter::tournament
