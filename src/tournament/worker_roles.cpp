// The worker roles: the schema arbiter_worker (functions that run as the organizer and read the
// caller from session_user), the group role, row-level security, and the organizer's commands.
#include "tournament/worker_roles.h"

#include <cctype>
#include <mutex>
#include <string_view>
#include <thread>

#include <fmt/format.h>
#include <pqxx/pqxx>

#include "core/entropy.h"
#include "core/printable.h"
#include "tournament/log_codec.h"
#include "tournament/postgres_text.h"

namespace arbiter::tournament {
namespace {

// Every table of the store: row-level security is enabled on each.
constexpr const char* kTables[] = {"tournaments", "jobs",         "results",    "live_lines",
                                   "conclusions", "bot_versions", "bot_owners", "authors",
                                   "webhooks",    "blobs",        "ladders",    "rating_steps",
                                   "ratings_now", "worker_roles", "set_aside"};

// The functions, with {S} for the store's schema. Each checks its caller first (me()), bounds
// what it is given, and touches only what the caller holds. The SQLSTATE AW001 says "not
// yours": a result for a job the caller does not hold (any more) is refused with it.
constexpr const char* kFunctions = R"sql(
CREATE OR REPLACE FUNCTION arbiter_worker.me() RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = {S}, pg_temp AS $f$
DECLARE st text;
BEGIN
  SELECT w.state INTO st FROM worker_roles w WHERE w.name = session_user;
  IF st IS NULL THEN
    RAISE EXCEPTION 'role % is not a worker of this store', session_user USING ERRCODE = '42501';
  END IF;
  IF st <> 'active' THEN
    RAISE EXCEPTION 'worker % is blocked by the organizer', session_user USING ERRCODE = '42501';
  END IF;
  RETURN session_user;
END $f$;

CREATE OR REPLACE FUNCTION arbiter_worker.check_id(p_id text, p_lease_ms bigint) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $f$
BEGIN
  IF p_id IS NULL OR p_id !~ '^[A-Za-z0-9._:-]{1,200}$' THEN
    RAISE EXCEPTION 'a worker id is 1 to 200 letters, digits, ., _, : or -'
      USING ERRCODE = '22023';
  END IF;
  IF p_lease_ms IS NULL OR p_lease_ms NOT BETWEEN 1000 AND 3600000 THEN
    RAISE EXCEPTION 'a lease is 1 s to 1 h' USING ERRCODE = '22023';
  END IF;
END $f$;

CREATE OR REPLACE FUNCTION arbiter_worker.claim(p_id text, p_max bigint, p_lease_ms bigint,
                                                p_only bigint)
RETURNS TABLE(job bigint, tournament bigint, idx bigint, round bigint, spec text, attempts bigint)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = {S}, pg_temp AS $f$
#variable_conflict use_column
DECLARE r text := arbiter_worker.me();
BEGIN
  PERFORM arbiter_worker.check_id(p_id, p_lease_ms);
  IF p_max IS NULL OR p_max NOT BETWEEN 1 AND 64 OR p_only IS NULL THEN
    RAISE EXCEPTION 'a claim is of 1 to 64 jobs' USING ERRCODE = '22023';
  END IF;
  IF (SELECT count(*) FROM jobs h WHERE h.lease_role = r AND NOT h.done
      AND h.lease_until >= clock_timestamp()) + p_max > 256 THEN
    RAISE EXCEPTION 'worker % holds 256 live leases at most', r USING ERRCODE = '54000';
  END IF;
  -- Live lines of the jobs' earlier attempts go: a job claimed again starts with none.
  RETURN QUERY
  WITH claimed AS (
    UPDATE jobs j SET lease_owner = r || '/' || p_id, lease_role = r,
           lease_until = clock_timestamp() + p_lease_ms * interval '1 millisecond',
           attempts = j.attempts + 1
    WHERE j.id IN (SELECT c.id FROM jobs c WHERE NOT c.done
                   AND (c.lease_until IS NULL OR c.lease_until < clock_timestamp())
                   AND (p_only = 0 OR c.tournament = p_only)
                   AND NOT (r = ANY (c.exclude_roles))
                   AND c.tournament NOT IN (SELECT k.tournament FROM conclusions k)
                   ORDER BY c.id LIMIT p_max FOR UPDATE SKIP LOCKED)
    RETURNING j.id, j.tournament, j.idx, j.round, j.spec, j.attempts),
  dropped AS (
    DELETE FROM live_lines l USING claimed c WHERE l.job = c.id AND l.attempt < c.attempts)
  SELECT c.id, c.tournament, c.idx, c.round, c.spec, c.attempts FROM claimed c;
END $f$;

CREATE OR REPLACE FUNCTION arbiter_worker.renew(p_id text, p_lease_ms bigint) RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = {S}, pg_temp AS $f$
DECLARE r text := arbiter_worker.me(); n bigint;
BEGIN
  PERFORM arbiter_worker.check_id(p_id, p_lease_ms);
  UPDATE jobs SET lease_until = clock_timestamp() + p_lease_ms * interval '1 millisecond'
  WHERE lease_owner = r || '/' || p_id AND lease_role = r AND NOT done;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $f$;

CREATE OR REPLACE FUNCTION arbiter_worker.release(p_id text) RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = {S}, pg_temp AS $f$
DECLARE r text := arbiter_worker.me(); n bigint;
BEGIN
  PERFORM arbiter_worker.check_id(p_id, 1000);
  UPDATE jobs SET lease_owner = NULL, lease_until = NULL, lease_role = NULL
  WHERE lease_owner = r || '/' || p_id AND lease_role = r AND NOT done;
  GET DIAGNOSTICS n = ROW_COUNT;
  IF n > 0 THEN PERFORM pg_notify('arbiter_jobs', ''); END IF;
  RETURN n;
END $f$;

CREATE OR REPLACE FUNCTION arbiter_worker.complete(p_job bigint, p_id text, p_result text,
                                                   p_log bytea, p_seconds double precision,
                                                   p_stderr bytea, p_sha text)
RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = {S}, pg_temp AS $f$
DECLARE r text := arbiter_worker.me(); t bigint;
BEGIN
  PERFORM arbiter_worker.check_id(p_id, 1000);
  IF p_result IS NULL OR length(p_result) > 1048576 OR p_log IS NULL
     OR length(p_log) > 67108864 OR coalesce(length(p_stderr), 0) > 1048576
     OR p_seconds IS NULL OR NOT (p_seconds >= 0 AND p_seconds < 1e7)
     OR p_sha IS NULL OR length(p_sha) > 100 THEN
    RAISE EXCEPTION 'a result beyond its bounds' USING ERRCODE = '22023';
  END IF;
  SELECT j.tournament INTO t FROM jobs j
  WHERE j.id = p_job AND j.lease_role = r AND j.lease_owner = r || '/' || p_id AND NOT j.done
  FOR UPDATE;
  IF t IS NULL THEN
    RAISE EXCEPTION 'job % is not held by worker %', p_job, r || '/' || p_id
      USING ERRCODE = 'AW001';
  END IF;
  INSERT INTO results(job, tournament, worker, result, log, seconds, stderr, log_sha256, role,
                      check_state)
  VALUES (p_job, t, r || '/' || p_id, p_result, p_log, p_seconds, NULLIF(p_stderr, ''::bytea),
          p_sha, r, 'pending');
  UPDATE jobs SET done = true, lease_owner = NULL, lease_until = NULL, lease_role = NULL
  WHERE id = p_job;
  DELETE FROM live_lines WHERE job = p_job;
  PERFORM pg_notify('arbiter_results', '');
  RETURN 1;
END $f$;

CREATE OR REPLACE FUNCTION arbiter_worker.append_live(p_job bigint, p_attempt bigint,
                                                      p_first bigint, p_lines json)
RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = {S}, pg_temp AS $f$
DECLARE r text := arbiter_worker.me(); n bigint;
BEGIN
  IF p_first IS NULL OR p_first NOT BETWEEN 0 AND 100000 OR json_typeof(p_lines) <> 'array'
     OR json_array_length(p_lines) > 10000 OR octet_length(p_lines::text) > 4194304 THEN
    RAISE EXCEPTION 'live lines beyond their bounds' USING ERRCODE = '22023';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM jobs WHERE id = p_job AND lease_role = r
                 AND attempts = p_attempt AND NOT done) THEN
    RETURN 0;
  END IF;
  INSERT INTO live_lines(job, attempt, n, line)
  SELECT p_job, p_attempt, p_first + rows.n - 1, rows.e
  FROM json_array_elements_text(p_lines) WITH ORDINALITY AS rows(e, n)
  WHERE p_first + rows.n - 1 < 100000 AND octet_length(rows.e) <= 65536
  ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $f$;

CREATE OR REPLACE FUNCTION arbiter_worker.tournament(p_tournament bigint)
RETURNS TABLE(id bigint, name text, game text, spec text, planned bigint, created text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = {S}, pg_temp AS $f$
#variable_conflict use_column
DECLARE r text := arbiter_worker.me();
BEGIN
  IF NOT EXISTS (SELECT 1 FROM jobs j WHERE j.tournament = p_tournament AND j.lease_role = r
                 AND NOT j.done)
     AND NOT EXISTS (SELECT 1 FROM results s WHERE s.tournament = p_tournament
                     AND s.role = r) THEN
    RAISE EXCEPTION 'tournament %: worker % holds none of its jobs', p_tournament, r
      USING ERRCODE = '42501';
  END IF;
  RETURN QUERY
  SELECT t.id, t.name, t.game, (t.spec::jsonb - 'seed')::text, t.planned,
         to_char(t.created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
  FROM tournaments t WHERE t.id = p_tournament;
END $f$;

CREATE OR REPLACE FUNCTION arbiter_worker.tournaments()
RETURNS TABLE(id bigint, game text, planned bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = {S}, pg_temp AS $f$
#variable_conflict use_column
DECLARE r text := arbiter_worker.me();
BEGIN
  RETURN QUERY SELECT t.id, t.game, t.planned FROM tournaments t ORDER BY t.id;
END $f$;

CREATE OR REPLACE FUNCTION arbiter_worker.progress(p_tournament bigint)
RETURNS TABLE(planned bigint, enqueued bigint, done bigint, leased bigint, duplicates bigint,
              verdict text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = {S}, pg_temp AS $f$
#variable_conflict use_column
DECLARE r text := arbiter_worker.me();
BEGIN
  RETURN QUERY
  -- A result waiting for its check is not done yet: the checker may send its job out again.
  SELECT t.planned, count(j.id),
         count(j.id) FILTER (WHERE j.done) - (SELECT count(*) FROM results p
           WHERE p.tournament = t.id AND p.check_state = 'pending'),
         count(j.id) FILTER (WHERE NOT j.done AND j.lease_until >= clock_timestamp()),
         coalesce(sum(j.duplicates), 0)::bigint,
         (SELECT k.verdict FROM conclusions k WHERE k.tournament = t.id)
  FROM tournaments t LEFT JOIN jobs j ON j.tournament = t.id
  WHERE t.id = p_tournament GROUP BY t.id;
END $f$;

CREATE OR REPLACE FUNCTION arbiter_worker.bot_versions(p_name text)
RETURNS TABLE(name text, version bigint, game text, manifest text, artifact text, status text,
              created text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = {S}, pg_temp AS $f$
#variable_conflict use_column
DECLARE r text := arbiter_worker.me();
BEGIN
  RETURN QUERY
  SELECT v.name, v.version, v.game, v.manifest, v.artifact, v.status,
         to_char(v.created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
  FROM bot_versions v
  WHERE v.name = p_name AND v.status IN ('active', 'retired') AND v.artifact <> ''
  ORDER BY v.version;
END $f$;

CREATE OR REPLACE FUNCTION arbiter_worker.blob(p_hash text) RETURNS bytea
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = {S}, pg_temp AS $f$
DECLARE r text := arbiter_worker.me();
BEGIN
  IF NOT EXISTS (SELECT 1 FROM bot_versions v WHERE v.artifact = p_hash
                 AND v.status IN ('active', 'retired')) THEN
    RETURN NULL;
  END IF;
  RETURN (SELECT b.bytes FROM blobs b WHERE b.hash = p_hash);
END $f$;
)sql";

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// Any constant will do, as long as every installer takes the same one.
constexpr std::int64_t kInstallLock = 0x6172626974657232;  // "arbiter2"

class PostgresWorkerRoles final : public WorkerRoles {
 public:
  explicit PostgresWorkerRoles(std::string url)
      : url_(std::move(url)), conn_(std::make_unique<pqxx::connection>(url_)) {}
  ~PostgresWorkerRoles() override { reset(); }

  Expected<std::string> create(const std::string& name) override {
    if (auto ok = check_role_name(name); !ok) return std::unexpected(ok.error());
    const std::string password = to_hex(unguessable_bytes(24));
    return guarded([&]() -> Expected<std::string> {
      pqxx::work tx(*conn_);
      install(tx);
      if (!tx.exec_params("SELECT 1 FROM pg_roles WHERE rolname = $1", name).empty())
        return fail(
            fmt::format("PostgreSQL already has a role {} (worker-role list shows the "
                        "workers)",
                        name));
      // A worker process holds two connections; a statement or a transaction left open holds
      // row locks (claims of others skip them), so the server ends either after a minute.
      tx.exec(fmt::format("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE {} CONNECTION LIMIT 32",
                          tx.quote_name(name), tx.quote(password), kWorkerGroup));
      for (const char* setting :
           {"statement_timeout = '60s'", "idle_in_transaction_session_timeout = '60s'",
            "temp_buffers = '800kB'"})
        tx.exec(fmt::format("ALTER ROLE {} SET {}", tx.quote_name(name), setting));
      tx.exec_params("INSERT INTO worker_roles(name, state) VALUES ($1, 'active')", name);
      tx.commit();
      return password;
    });
  }

  Expected<std::vector<WorkerRole>> list() override {
    return guarded([&]() -> Expected<std::vector<WorkerRole>> {
      pqxx::nontransaction tx(*conn_);
      const auto rows = tx.exec(R"sql(
        SELECT w.name, w.state,
               to_char(w.created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), w.arrivals,
               (SELECT count(*) FROM results r WHERE r.role = w.name),
               (SELECT count(*) FROM results r WHERE r.role = w.name
                AND r.check_state = 'pending'),
               count(s.id) FILTER (WHERE s.state = 'agreed'),
               count(s.id) FILTER (WHERE s.state IN ('disputed', 'upheld', 'overruled')),
               count(s.id) FILTER (WHERE s.state = 'overruled'),
               count(s.id) FILTER (WHERE s.state = 'failed'),
               count(s.id) FILTER (WHERE s.state = 'voided'),
               coalesce(to_char(greatest(
                 (SELECT max(r.finished) FROM results r WHERE r.role = w.name), max(s.finished))
                 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), '')
        FROM worker_roles w LEFT JOIN set_aside s ON s.role = w.name
        GROUP BY w.name ORDER BY w.name)sql");
      std::vector<WorkerRole> out;
      for (const auto& r : rows)
        out.push_back({r[0].as<std::string>(), r[1].as<std::string>(), r[2].as<std::string>(),
                       r[3].as<std::int64_t>(), r[4].as<std::int64_t>(), r[5].as<std::int64_t>(),
                       r[6].as<std::int64_t>(), r[7].as<std::int64_t>(), r[8].as<std::int64_t>(),
                       r[9].as<std::int64_t>(), r[10].as<std::int64_t>(), r[11].as<std::string>()});
      return out;
    });
  }

  Expected<void> set_blocked(const std::string& name, bool blocked) override {
    return guarded([&]() -> Expected<void> {
      pqxx::work tx(*conn_);
      if (tx.exec_params("UPDATE worker_roles SET state = $2 WHERE name = $1", name,
                         std::string(blocked ? "blocked" : "active"))
              .affected_rows() == 0)
        return fail(fmt::format("no worker role {} (worker-role list shows them)", name));
      tx.exec(fmt::format("ALTER ROLE {} {}", tx.quote_name(name), blocked ? "NOLOGIN" : "LOGIN"));
      if (blocked) {
        // Its sessions end now: one holding a transaction open would keep its rows locked.
        // Needs the right to signal its backends (pg_signal_backend, or a superuser); without
        // it the functions still refuse the role, and its timeouts end what it holds.
        pqxx::subtransaction ending(tx, "end_sessions");
        try {
          ending.exec_params(
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
              "WHERE usename = $1",
              name);
          ending.commit();
        } catch (const pqxx::sql_error&) {
          ending.abort();
        }
      }
      if (blocked &&
          tx.exec_params("UPDATE jobs SET lease_owner = NULL, lease_until = NULL, lease_role = "
                         "NULL WHERE lease_role = $1 AND NOT done",
                         name)
                  .affected_rows() > 0)
        tx.exec("SELECT pg_notify('arbiter_jobs', '')");
      tx.commit();
      return {};
    });
  }

  Expected<std::int64_t> void_results(const std::string& name) override {
    return guarded([&]() -> Expected<std::int64_t> {
      pqxx::work tx(*conn_);
      if (tx.exec_params("SELECT 1 FROM worker_roles WHERE name = $1", name).empty())
        return fail(fmt::format("no worker role {} (worker-role list shows them)", name));
      const auto n = tx.exec_params1(R"sql(
        WITH moved AS (DELETE FROM results WHERE role = $1 RETURNING *),
        kept AS (
          INSERT INTO set_aside(job, tournament, role, worker, result, log, seconds, stderr,
                                log_sha256, state, why, finished)
          SELECT job, tournament, role, worker, result, log, seconds, stderr, log_sha256,
                 'voided', 'voided by the organizer', finished FROM moved RETURNING job),
        reopened AS (
          UPDATE jobs SET done = false, lease_owner = NULL, lease_until = NULL,
                 lease_role = NULL, exclude_roles = array_append(exclude_roles, $1)
          WHERE id IN (SELECT job FROM kept) RETURNING id)
        SELECT count(*) FROM reopened)sql",
                                     name)[0]
                         .as<std::int64_t>();
      if (n > 0) tx.exec("SELECT pg_notify('arbiter_jobs', '')");
      tx.commit();
      return n;
    });
  }

  Expected<std::vector<Arrival>> arrivals(std::int64_t max) override {
    return guarded([&]() -> Expected<std::vector<Arrival>> {
      pqxx::nontransaction tx(*conn_);
      std::vector<Arrival> out;
      for (const auto& r : tx.exec_params(
               "SELECT r.job, r.tournament, j.idx, coalesce(r.role, ''), r.worker, "
               "coalesce((SELECT w.arrivals FROM worker_roles w WHERE w.name = r.role), 0) "
               "FROM results r JOIN jobs j ON j.id = r.job WHERE r.check_state = 'pending' "
               "ORDER BY r.job LIMIT $1",
               max))
        out.push_back({r[0].as<std::int64_t>(), r[1].as<std::int64_t>(), r[2].as<std::int64_t>(),
                       r[3].as<std::string>(), r[4].as<std::string>(), r[5].as<std::int64_t>()});
      return out;
    });
  }

  Expected<std::vector<AsideResult>> open_questions(std::int64_t job) override {
    return guarded([&]() -> Expected<std::vector<AsideResult>> {
      pqxx::nontransaction tx(*conn_);
      std::vector<AsideResult> out;
      for (const auto& r : tx.exec_params(
               "SELECT id, job, coalesce(role, ''), worker, state, result, log FROM set_aside "
               "WHERE job = $1 AND state IN ('awaiting-replay', 'disputed') ORDER BY id",
               job)) {
        AsideResult a{r[0].as<std::int64_t>(), r[1].as<std::int64_t>(), r[2].as<std::string>(),
                      r[3].as<std::string>(), r[4].as<std::string>()};
        a.result = parse_json(r[5].as<std::string>()).value_or(Json());
        a.log = unpack_log(pqxx::binarystring(r[6]).str()).value_or(std::string());
        out.push_back(std::move(a));
      }
      return out;
    });
  }

  Expected<void> pass(const Arrival& arrival) override {
    return guarded([&]() -> Expected<void> {
      pqxx::work tx(*conn_);
      tx.exec_params("UPDATE results SET check_state = 'passed' WHERE job = $1", arrival.job);
      tx.exec_params("UPDATE worker_roles SET arrivals = arrivals + 1 WHERE name = $1",
                     arrival.role);
      tx.commit();
      return {};
    });
  }

  Expected<void> take_aside(const Arrival& arrival, const std::string& state,
                            const std::string& why,
                            const std::vector<std::string>& excluded) override {
    return guarded([&]() -> Expected<void> {
      pqxx::work tx(*conn_);
      Json roles = Json::array();
      for (const auto& r : excluded)
        if (!r.empty()) roles.push_back(r);
      const auto moved = tx.exec_params(R"sql(
        WITH moved AS (DELETE FROM results WHERE job = $1 RETURNING *)
        INSERT INTO set_aside(job, tournament, role, worker, result, log, seconds, stderr,
                              log_sha256, state, why, finished)
        SELECT job, tournament, role, worker, result, log, seconds, stderr, log_sha256, $2, $3,
               finished FROM moved)sql",
                                        arrival.job, state, printable_line(why));
      if (moved.affected_rows() == 0) return {};  // voided meanwhile
      tx.exec_params(
          "UPDATE jobs SET done = false, lease_owner = NULL, lease_until = NULL, "
          "lease_role = NULL, exclude_roles = ARRAY(SELECT DISTINCT e FROM unnest(exclude_roles "
          "|| ARRAY(SELECT json_array_elements_text($2::json))) AS e) WHERE id = $1",
          arrival.job, dump(roles));
      // A result that failed its check does not count toward a new worker's first ones.
      if (state != "failed")
        tx.exec_params("UPDATE worker_roles SET arrivals = arrivals + 1 WHERE name = $1",
                       arrival.role);
      tx.exec("SELECT pg_notify('arbiter_jobs', '')");
      tx.commit();
      return {};
    });
  }

  Expected<void> settle(std::int64_t aside, const std::string& state,
                        const std::string& why) override {
    return guarded([&]() -> Expected<void> {
      pqxx::work tx(*conn_);
      tx.exec_params("UPDATE set_aside SET state = $2, why = $3 WHERE id = $1", aside, state,
                     printable_line(why));
      tx.commit();
      return {};
    });
  }

  Expected<std::int64_t> unsettled(std::int64_t tournament) override {
    return guarded([&]() -> Expected<std::int64_t> {
      pqxx::nontransaction tx(*conn_);
      return tx
          .exec_params1(
              "SELECT (SELECT count(*) FROM results WHERE tournament = $1 AND "
              "check_state = 'pending') + (SELECT count(*) FROM set_aside WHERE "
              "tournament = $1 AND state IN ('awaiting-replay', 'disputed'))",
              tournament)[0]
          .as<std::int64_t>();
    });
  }

  void wait_for_arrivals(std::chrono::milliseconds timeout) override {
    std::lock_guard lock(mu_);
    try {
      if (!conn_) conn_ = std::make_unique<pqxx::connection>(url_);
      if (!receiver_) {
        receiver_ = std::make_unique<Receiver>(*conn_);
        return;  // what was sent before the LISTEN is not heard: look now
      }
      conn_->await_notification(timeout.count() / 1000, (timeout.count() % 1000) * 1000);
    } catch (const std::exception&) {
      reset();
      std::this_thread::sleep_for(timeout);  // the server is away: no spinning
    }
  }

  std::string worker_url(const std::string& name, const std::string& password) override {
    std::lock_guard lock(mu_);
    if (!conn_) return fmt::format("postgresql://{}:{}@HOST/DB", name, password);
    const char* host = conn_->hostname();
    std::string where = host != nullptr && host[0] != '\0' && host[0] != '/' ? host : "HOST";
    if (where.find(':') != std::string::npos) where = "[" + where + "]";
    const char* port = conn_->port();
    return fmt::format("postgresql://{}:{}@{}{}/{}", name, password, where,
                       port != nullptr && port[0] != '\0' ? std::string(":") + port : "",
                       conn_->dbname() != nullptr ? conn_->dbname() : "");
  }

 private:
  // Creates what is missing and replaces the functions, in the caller's transaction.
  void install(pqxx::work& tx) {
    tx.exec_params("SELECT pg_advisory_xact_lock($1)", kInstallLock);
    tx.exec(
        fmt::format("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{0}') THEN "
                    "CREATE ROLE {0} NOLOGIN; END IF; END $$",
                    kWorkerGroup));
    const std::string schema = tx.exec1("SELECT current_schema()")[0].as<std::string>();
    const std::string quoted = tx.quote_name(schema);
    tx.exec("CREATE SCHEMA IF NOT EXISTS arbiter_worker");
    tx.exec("REVOKE ALL ON SCHEMA arbiter_worker FROM PUBLIC");
    tx.exec(fmt::format("GRANT USAGE ON SCHEMA arbiter_worker TO {}", kWorkerGroup));
    // On servers before 15, everyone may create objects in public: a worker's function there
    // could stand in for one the functions call.
    tx.exec(fmt::format("REVOKE CREATE ON SCHEMA {} FROM PUBLIC", quoted));
    // Temporary tables are storage outside every bound: not for workers (PUBLIC has TEMP on a
    // new database; the organizer keeps it).
    tx.exec(fmt::format("REVOKE TEMPORARY ON DATABASE {} FROM PUBLIC",
                        tx.quote_name(tx.exec1("SELECT current_database()")[0].as<std::string>())));
    tx.exec(fmt::format("GRANT TEMPORARY ON DATABASE {} TO {}",
                        tx.quote_name(tx.exec1("SELECT current_database()")[0].as<std::string>()),
                        tx.quote_name(tx.exec1("SELECT current_user")[0].as<std::string>())));
    tx.exec(replace_all(kFunctions, "{S}", quoted));
    tx.exec("REVOKE ALL ON ALL FUNCTIONS IN SCHEMA arbiter_worker FROM PUBLIC");
    tx.exec(
        fmt::format("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA arbiter_worker TO {}", kWorkerGroup));
    for (const char* table : kTables) {
      tx.exec(fmt::format("REVOKE ALL ON {} FROM {}", table, kWorkerGroup));
      if (!tx.exec_params1("SELECT relrowsecurity FROM pg_class WHERE oid = $1::regclass",
                           std::string(table))[0]
               .as<bool>())
        tx.exec(fmt::format("ALTER TABLE {} ENABLE ROW LEVEL SECURITY", table));
      if (tx.exec_params("SELECT 1 FROM pg_policies WHERE schemaname = $1 AND tablename = $2 "
                         "AND policyname = 'arbiter_not_workers'",
                         schema, std::string(table))
              .empty())
        tx.exec(
            fmt::format("CREATE POLICY arbiter_not_workers ON {} "
                        "USING ((SELECT NOT pg_has_role(current_user, '{}', 'MEMBER'))) "
                        "WITH CHECK ((SELECT NOT pg_has_role(current_user, '{}', 'MEMBER')))",
                        table, kWorkerGroup, kWorkerGroup));
    }
    tx.exec(fmt::format("REVOKE ALL ON ALL SEQUENCES IN SCHEMA {} FROM {}", quoted, kWorkerGroup));
  }

  // Runs `body` on the connection; once more on a new connection when the old one broke (the
  // server restarted).
  template <class F>
  std::invoke_result_t<F&> guarded(F&& body) {
    std::lock_guard lock(mu_);
    for (int attempt = 0;; ++attempt) {
      try {
        if (!conn_) conn_ = std::make_unique<pqxx::connection>(url_);
        return body();
      } catch (const pqxx::broken_connection& e) {
        reset();
        if (attempt > 0) return std::unexpected(postgres_error(e.what()));
      } catch (const std::exception& e) {
        if (conn_ && !conn_->is_open()) reset();
        return std::unexpected(postgres_error(e.what()));
      }
    }
  }

  void reset() {
    if (conn_) conn_->disconnect();  // first, so that the receiver sends no UNLISTEN
    receiver_.reset();
    conn_.reset();
  }

  const std::string url_;
  std::mutex mu_;
  std::unique_ptr<pqxx::connection> conn_;
  struct Receiver final : pqxx::notification_receiver {
    explicit Receiver(pqxx::connection_base& c)
        : pqxx::notification_receiver(c, "arbiter_results") {}
    void operator()(const std::string&, int) override {}
  };
  std::unique_ptr<Receiver> receiver_;
};

}  // namespace

Expected<void> check_role_name(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 40 && name[0] >= 'a' && name[0] <= 'z';
  for (char c : name) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  if (!ok)
    return fail(
        fmt::format("\"{}\" is not a worker role name: a lower-case letter, then up to "
                    "39 lower-case letters, digits or _",
                    name.substr(0, 60)));
  if (name == kWorkerGroup || name.starts_with("pg_"))
    return fail(fmt::format("\"{}\" is reserved", name));
  return {};
}

Expected<std::unique_ptr<WorkerRoles>> open_worker_roles(const std::string& url) {
  try {
    return std::make_unique<PostgresWorkerRoles>(url);
  } catch (const std::exception& e) {
    return std::unexpected(postgres_error(e.what()));
  }
}

Expected<bool> is_worker_role(const std::string& url) {
  try {
    pqxx::connection c(url);
    pqxx::nontransaction tx(c);
    return tx
        .exec_params1(
            "SELECT EXISTS (SELECT 1 FROM pg_auth_members m "
            "JOIN pg_roles g ON g.oid = m.roleid "
            "JOIN pg_roles u ON u.oid = m.member "
            "WHERE g.rolname = $1 AND u.rolname = session_user)",
            std::string(kWorkerGroup))[0]
        .as<bool>();
  } catch (const std::exception& e) {
    return std::unexpected(postgres_error(e.what()));
  }
}

}  // namespace arbiter::tournament
