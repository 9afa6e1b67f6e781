// The SQLite store: one file in WAL mode, shared by the threads of a process (one connection
// behind a mutex) and by processes on one machine (write transactions begin IMMEDIATE and wait
// on a busy timeout). Lease times are this machine's wall clock in milliseconds.
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "tournament/integrity.h"
#include "tournament/log_codec.h"
#include "tournament/store.h"


namespace arbiter::tournament {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS tournaments(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  game TEXT NOT NULL,
  spec TEXT NOT NULL,
  planned INTEGER NOT NULL,
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));
CREATE TABLE IF NOT EXISTS jobs(
  id INTEGER PRIMARY KEY,
  tournament INTEGER NOT NULL REFERENCES tournaments(id),
  idx INTEGER NOT NULL,
  round INTEGER NOT NULL,
  spec TEXT NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  done INTEGER NOT NULL DEFAULT 0,
  duplicates INTEGER NOT NULL DEFAULT 0,
  UNIQUE(tournament, idx));
CREATE INDEX IF NOT EXISTS jobs_open ON jobs(id) WHERE done = 0;
CREATE TABLE IF NOT EXISTS results(
  job INTEGER PRIMARY KEY REFERENCES jobs(id),
  tournament INTEGER NOT NULL,
  worker TEXT NOT NULL,
  result TEXT NOT NULL,
  log BLOB NOT NULL,  -- log_codec.h
  seconds REAL NOT NULL,
  stderr BLOB,        -- the programs' stderr tails, JSON through log_codec.h; NULL: none
  log_sha256 TEXT,    -- integrity.h: log_checksum; NULL: stored before checksums
  finished TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));
CREATE INDEX IF NOT EXISTS results_tournament ON results(tournament);
CREATE TABLE IF NOT EXISTS live_lines(
  job INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  n INTEGER NOT NULL,
  line TEXT NOT NULL,
  PRIMARY KEY(job, attempt, n)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS conclusions(
  tournament INTEGER PRIMARY KEY REFERENCES tournaments(id),
  verdict TEXT NOT NULL,
  concluded TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));
CREATE TABLE IF NOT EXISTS bot_versions(
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  game TEXT NOT NULL,
  manifest TEXT NOT NULL,
  source TEXT NOT NULL,
  artifact TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  build_log BLOB,
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  PRIMARY KEY(name, version));
CREATE TABLE IF NOT EXISTS bot_owners(
  name TEXT PRIMARY KEY,
  author TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS authors(
  name TEXT PRIMARY KEY,
  role TEXT NOT NULL,
  salt TEXT NOT NULL,
  hash TEXT NOT NULL,
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  revoked TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS webhooks(
  author TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  key TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blobs(
  hash TEXT PRIMARY KEY,
  bytes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS ladders(
  tournament INTEGER PRIMARY KEY REFERENCES tournaments(id),
  state TEXT NOT NULL,
  mark INTEGER NOT NULL DEFAULT 0,
  unrated INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS rating_steps(
  tournament INTEGER NOT NULL,
  entrant INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  mu REAL NOT NULL,
  sigma REAL NOT NULL,
  games INTEGER NOT NULL,
  place INTEGER NOT NULL,
  PRIMARY KEY(tournament, entrant, idx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ratings_now(
  tournament INTEGER NOT NULL,
  entrant INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  mu REAL NOT NULL,
  sigma REAL NOT NULL,
  games INTEGER NOT NULL,
  place INTEGER NOT NULL,
  PRIMARY KEY(tournament, entrant)) WITHOUT ROWID;
)sql";

// Thrown inside this file only; every Store method turns it into an Error.
struct SqlError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      throw SqlError(sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, std::int64_t v) {
    check(sqlite3_bind_int64(stmt_, i, v));
    return *this;
  }
  Statement& bind(int i, double v) {
    check(sqlite3_bind_double(stmt_, i, v));
    return *this;
  }
  Statement& bind_null(int i) {
    check(sqlite3_bind_null(stmt_, i));
    return *this;
  }
  Statement& bind_blob(int i, const std::string& v) {
    check(sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind(int i, const std::string& v) {
    check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  // True while there is a row to read.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw SqlError(sqlite3_errmsg(db_));
  }
  void run() {
    while (step()) {
    }
  }
  // Ready to bind and run again.
  void reset() { sqlite3_reset(stmt_); }
  std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string blob(int col) const {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
    return p == nullptr ? std::string() : std::string(p, sqlite3_column_bytes(stmt_, col));
  }
  std::string text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p == nullptr ? std::string() : std::string(p, sqlite3_column_bytes(stmt_, col));
  }
  // A value read for checking (integrity.h): null when it is not JSON, which the check reports.
  Json json_or_null(int col) const { return parse_json(text(col)).value_or(Json()); }
  Json json(int col) const {
    auto parsed = parse_json(text(col));
    if (!parsed) throw SqlError("a stored JSON value is damaged: " + parsed.error().message);
    return *parsed;
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) throw SqlError(sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

constexpr std::string_view kBotSelect =
    "SELECT name, version, game, manifest, source, artifact, status, reason, created, "
    "coalesce((SELECT author FROM bot_owners o WHERE o.name = bot_versions.name), '') "
    "FROM bot_versions";

std::string bot_select(std::string_view where) {
  return fmt::format("{} {}", kBotSelect, where);
}

BotVersion stored_bot_version(const Statement& s) {
  return {s.text(0), s.integer(1), s.text(2), s.json_or_null(3), s.text(4),
          s.text(5), s.text(6),    s.text(7), s.text(8),         s.text(9)};
}

Author stored_author(const Statement& s) {
  return {s.text(0), s.text(1), s.text(2), s.text(3)};
}

class SqliteStore final : public Store {
 public:
  explicit SqliteStore(sqlite3* db) : db_(db) {}
  ~SqliteStore() override { sqlite3_close(db_); }

  void init() {
    exec("PRAGMA busy_timeout = 30000");
    exec("PRAGMA journal_mode = WAL");
    // With WAL, NORMAL loses nothing when a process dies (kill -9), only on power loss.
    exec("PRAGMA synchronous = NORMAL");
    exec("PRAGMA foreign_keys = ON");
    transaction([&] {
      exec(kSchema);
      // Stores made before the stderr column get it.
      Statement columns(db_, "SELECT 1 FROM pragma_table_info('results') WHERE name = 'stderr'");
      if (!columns.step()) exec("ALTER TABLE results ADD COLUMN stderr BLOB");
      // ... and before the log checksum: their rows read as unverified.
      Statement checksum(db_,
                         "SELECT 1 FROM pragma_table_info('results') WHERE name = 'log_sha256'");
      if (!checksum.step()) exec("ALTER TABLE results ADD COLUMN log_sha256 TEXT");
      // ... and before the count of matches passed unrated: counted from then on.
      Statement unrated(db_, "SELECT 1 FROM pragma_table_info('ladders') WHERE name = 'unrated'");
      if (!unrated.step())
        exec("ALTER TABLE ladders ADD COLUMN unrated INTEGER NOT NULL DEFAULT 0");
    });
  }

  Expected<std::int64_t> create_tournament(const std::string& name, const std::string& game,
                                           const Json& spec, std::int64_t planned,
                                           const std::vector<JobSpec>& jobs) override {
    return guarded<std::int64_t>([&] {
      std::int64_t id = 0;
      transaction([&] {
        Statement t(db_, "INSERT INTO tournaments(name, game, spec, planned) VALUES(?,?,?,?)");
        t.bind(1, name).bind(2, game).bind(3, dump(spec)).bind(4, planned).run();
        id = sqlite3_last_insert_rowid(db_);
        insert_jobs(id, jobs);
      });
      announce_work();
      return id;
    });
  }

  Expected<std::int64_t> add_jobs(std::int64_t tournament,
                                  const std::vector<JobSpec>& jobs) override {
    return guarded<std::int64_t>([&] {
      std::int64_t added = 0;
      transaction([&] {
        Statement t(db_, "SELECT 1 FROM tournaments WHERE id = ?");
        if (!t.bind(1, tournament).step())
          throw SqlError(fmt::format("no tournament {}", tournament));
        added = insert_jobs(tournament, jobs);
      });
      announce_work();
      return added;
    });
  }

  Expected<bool> add_round(std::int64_t tournament, const std::vector<JobSpec>& jobs) override {
    return guarded<bool>([&] {
      bool added = false;
      transaction([&] {
        Statement t(db_, "SELECT 1 FROM tournaments WHERE id = ?");
        if (!t.bind(1, tournament).step())
          throw SqlError(fmt::format("no tournament {}", tournament));
        Statement taken(db_, "SELECT 1 FROM jobs WHERE tournament = ? AND idx = ?");
        for (const JobSpec& j : jobs) {
          taken.reset();
          if (taken.bind(1, tournament).bind(2, j.index).step()) return;
        }
        added = insert_jobs(tournament, jobs) == static_cast<std::int64_t>(jobs.size());
      });
      if (added) announce_work();
      return added;
    });
  }

  Expected<std::optional<TournamentRecord>> find_tournament(std::int64_t id) override {
    return guarded<std::optional<TournamentRecord>>([&]() -> std::optional<TournamentRecord> {
      Statement s(db_,
                  "SELECT id, name, game, spec, planned, created FROM tournaments WHERE id = ?");
      if (!s.bind(1, id).step()) return std::nullopt;
      return record(s);
    });
  }

  Expected<std::vector<TournamentRecord>> tournaments() override {
    return guarded<std::vector<TournamentRecord>>([&] {
      Statement s(db_,
                  "SELECT id, name, game, spec, planned, created FROM tournaments ORDER BY id");
      std::vector<TournamentRecord> out;
      while (s.step()) out.push_back(record(s));
      return out;
    });
  }

  Expected<std::vector<Job>> claim(const std::string& worker, std::int64_t max,
                                   std::chrono::milliseconds lease, std::int64_t only) override {
    return guarded<std::vector<Job>>([&] {
      std::vector<Job> jobs;
      transaction([&] {
        const std::int64_t now = now_ms();
        Statement s(db_,
                    "SELECT id, tournament, idx, round, spec, attempts FROM jobs "
                    "WHERE done = 0 AND (lease_until IS NULL OR lease_until < ?) "
                    "AND (? = 0 OR tournament = ?) "
                    "AND tournament NOT IN (SELECT tournament FROM conclusions) "
                    "ORDER BY id LIMIT ?");
        s.bind(1, now).bind(2, only).bind(3, only).bind(4, max);
        while (s.step())
          jobs.push_back({s.integer(0), s.integer(1), s.integer(2), s.integer(3), s.json(4),
                          s.integer(5) + 1});
        Statement u(db_,
                    "UPDATE jobs SET lease_owner = ?, lease_until = ?, attempts = attempts + 1 "
                    "WHERE id = ?");
        for (const Job& j : jobs) {
          u.reset();
          u.bind(1, worker).bind(2, now + lease.count()).bind(3, j.id).run();
        }
      });
      return jobs;
    });
  }

  Expected<std::int64_t> renew(const std::string& worker,
                               std::chrono::milliseconds lease) override {
    return guarded<std::int64_t>([&] {
      std::int64_t n = 0;
      transaction([&] {
        const std::int64_t now = now_ms();
        Statement u(db_,
                    "UPDATE jobs SET lease_until = ? WHERE lease_owner = ? AND done = 0 "
                    "AND lease_until IS NOT NULL");
        u.bind(1, now + lease.count()).bind(2, worker).run();
        n = sqlite3_changes(db_);
      });
      return n;
    });
  }

  Expected<bool> complete(std::int64_t job, const std::string& worker,
                          const JobResult& result) override {
    return guarded<bool>([&] {
      bool first = false;
      transaction([&] {
        Statement t(db_, "SELECT tournament FROM jobs WHERE id = ?");
        if (!t.bind(1, job).step()) throw SqlError(fmt::format("no job {}", job));
        const std::int64_t tournament = t.integer(0);
        Statement r(db_,
                    "INSERT INTO results(job, tournament, worker, result, log, seconds, stderr, "
                    "log_sha256) VALUES(?,?,?,?,?,?,?,?) ON CONFLICT(job) DO NOTHING");
        r.bind(1, job).bind(2, tournament).bind(3, worker).bind(4, dump(result.result));
        r.bind_blob(5, pack_log(result.log)).bind(6, result.seconds);
        if (result.stderr_tails.is_null())
          r.bind_null(7);
        else
          r.bind_blob(7, pack_log(dump(result.stderr_tails)));
        r.bind(8, log_checksum(result.log));
        r.run();
        first = sqlite3_changes(db_) == 1;
        Statement u(db_, first ? "UPDATE jobs SET done = 1, lease_owner = NULL, "
                                 "lease_until = NULL WHERE id = ?"
                               : "UPDATE jobs SET duplicates = duplicates + 1 WHERE id = ?");
        u.bind(1, job).run();
        Statement d(db_, "DELETE FROM live_lines WHERE job = ?");
        d.bind(1, job).run();
      });
      return first;
    });
  }

  Expected<void> append_live(const std::vector<LiveBatch>& batches) override {
    return guarded<void>([&] {
      transaction([&] {
        Statement open(db_, "SELECT 1 FROM jobs WHERE id = ? AND done = 0");
        Statement add(db_,
                      "INSERT INTO live_lines(job, attempt, n, line) VALUES(?,?,?,?) "
                      "ON CONFLICT DO NOTHING");
        for (const LiveBatch& b : batches) {
          open.reset();
          if (!open.bind(1, b.job).step()) continue;
          for (std::size_t i = 0; i < b.lines.size(); ++i) {
            add.reset();
            add.bind(1, b.job).bind(2, b.attempt).bind(3, b.first + static_cast<std::int64_t>(i));
            add.bind(4, b.lines[i]).run();
          }
        }
      });
      return Expected<void>{};
    });
  }

  Expected<std::vector<LiveJob>> live_jobs(std::int64_t tournament) override {
    return guarded<std::vector<LiveJob>>([&] {
      Statement s(db_,
                  "SELECT j.id, j.idx, j.round, j.spec, j.lease_owner, j.attempts, "
                  "(SELECT count(*) FROM live_lines l WHERE l.job = j.id AND l.attempt = "
                  "j.attempts) AS n FROM jobs j WHERE j.tournament = ? AND j.done = 0 "
                  "AND j.lease_until >= ? AND n > 0 ORDER BY j.idx");
      s.bind(1, tournament).bind(2, now_ms());
      std::vector<LiveJob> out;
      while (s.step())
        out.push_back({s.integer(0), s.integer(1), s.integer(2), s.json_or_null(3), s.text(4),
                       s.integer(5), s.integer(6)});
      return out;
    });
  }

  Expected<LiveLines> live_lines(std::int64_t job, std::int64_t from,
                                 std::int64_t max) override {
    return guarded<LiveLines>([&] {
      LiveLines out;
      // The job's state and its lines as of one moment, without taking the write lock.
      read_transaction([&] {
        Statement j(db_,
                    "SELECT done, attempts, coalesce(lease_until >= ?, 0) FROM jobs WHERE id = ?");
        if (!j.bind(1, now_ms()).bind(2, job).step()) return;
        out.exists = true;
        out.finished = j.integer(0) != 0;
        out.attempt = j.integer(1);
        out.playing = !out.finished && j.integer(2) != 0;
        if (out.finished) return;
        Statement s(db_,
                    "SELECT n, line FROM live_lines WHERE job = ? AND attempt = ? AND n >= ? "
                    "ORDER BY n LIMIT ?");
        s.bind(1, job).bind(2, out.attempt).bind(3, from).bind(4, max);
        for (std::int64_t next = from; s.step() && s.integer(0) == next; ++next)
          out.lines.push_back(s.text(1));
      });
      return out;
    });
  }

  Expected<std::int64_t> release(const std::string& worker) override {
    return guarded<std::int64_t>([&] {
      std::int64_t n = 0;
      transaction([&] {
        Statement u(db_,
                    "UPDATE jobs SET lease_owner = NULL, lease_until = NULL "
                    "WHERE lease_owner = ? AND done = 0");
        u.bind(1, worker).run();
        n = sqlite3_changes(db_);
      });
      announce_work();
      return n;
    });
  }

  Expected<Progress> progress(std::int64_t tournament) override {
    return guarded<Progress>([&] {
      Progress p;
      Statement t(db_, "SELECT planned FROM tournaments WHERE id = ?");
      if (!t.bind(1, tournament).step())
        throw SqlError(fmt::format("no tournament {}", tournament));
      p.planned = t.integer(0);
      Statement s(db_,
                  "SELECT count(*), coalesce(sum(done), 0), "
                  "coalesce(sum(done = 0 AND lease_until >= ?), 0), coalesce(sum(duplicates), 0) "
                  "FROM jobs WHERE tournament = ?");
      s.bind(1, now_ms()).bind(2, tournament).step();
      p.enqueued = s.integer(0);
      p.done = s.integer(1);
      p.leased = s.integer(2);
      p.duplicates = s.integer(3);
      Statement c(db_, "SELECT verdict FROM conclusions WHERE tournament = ?");
      if (c.bind(1, tournament).step()) p.concluded = c.text(0);
      return p;
    });
  }

  Expected<bool> conclude(std::int64_t tournament, const std::string& verdict) override {
    return guarded<bool>([&] {
      bool first = false;
      transaction([&] {
        Statement t(db_, "SELECT 1 FROM tournaments WHERE id = ?");
        if (!t.bind(1, tournament).step())
          throw SqlError(fmt::format("no tournament {}", tournament));
        Statement i(db_, "INSERT OR IGNORE INTO conclusions(tournament, verdict) VALUES (?, ?)");
        i.bind(1, tournament).bind(2, verdict).run();
        first = sqlite3_changes(db_) == 1;
      });
      announce_work();
      return first;
    });
  }

  Expected<std::vector<Lease>> leases(std::int64_t tournament) override {
    return guarded<std::vector<Lease>>([&] {
      Statement s(db_,
                  "SELECT id, lease_owner, lease_until < ? FROM jobs WHERE tournament = ? "
                  "AND done = 0 AND lease_owner IS NOT NULL ORDER BY id");
      s.bind(1, now_ms()).bind(2, tournament);
      std::vector<Lease> out;
      while (s.step()) out.push_back({s.integer(0), s.text(1), s.integer(2) != 0});
      return out;
    });
  }

  Expected<std::vector<StoredResult>> results(std::int64_t tournament,
                                              std::int64_t from_index) override {
    return guarded<std::vector<StoredResult>>([&] {
      Statement s(db_,
                  // CROSS JOIN keeps jobs outside, so the range on (tournament, idx) is read
                  // and not every result of the tournament: reading from an index costs what
                  // is past it, however long the tournament (a ladder reads from its mark).
                  "SELECT r.job, j.idx, j.round, j.spec, r.result, r.worker, r.seconds "
                  "FROM jobs j CROSS JOIN results r ON r.job = j.id WHERE j.tournament = ? "
                  "AND j.idx >= ? ORDER BY j.idx");
      s.bind(1, tournament).bind(2, from_index);
      std::vector<StoredResult> out;
      while (s.step()) out.push_back(stored_result(s));
      return out;
    });
  }

  Expected<std::vector<StoredResult>> results_at(
      std::int64_t tournament, const std::vector<std::int64_t>& indices) override {
    return guarded<std::vector<StoredResult>>([&] {
      std::vector<std::int64_t> sorted = indices;
      std::sort(sorted.begin(), sorted.end());
      sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
      Statement s(db_,
                  "SELECT r.job, j.idx, j.round, j.spec, r.result, r.worker, r.seconds "
                  "FROM jobs j CROSS JOIN results r ON r.job = j.id WHERE j.tournament = ? "
                  "AND j.idx = ?");
      std::vector<StoredResult> out;
      read_transaction([&] {
        for (std::int64_t index : sorted) {
          s.reset();
          s.bind(1, tournament).bind(2, index);
          if (s.step()) out.push_back(stored_result(s));
        }
      });
      return out;
    });
  }

  Expected<std::optional<PackedLog>> packed_log(std::int64_t job) override {
    return guarded<std::optional<PackedLog>>([&]() -> std::optional<PackedLog> {
      Statement s(db_,
                  "SELECT r.log, r.log_sha256, r.result, j.spec FROM results r "
                  "JOIN jobs j ON j.id = r.job WHERE r.job = ?");
      if (!s.bind(1, job).step()) return std::nullopt;
      return PackedLog{s.blob(0), s.is_null(1) ? std::nullopt : std::optional(s.text(1)),
                       s.json_or_null(2), s.json_or_null(3)};
    });
  }

  Expected<std::optional<Json>> stderr_tails(std::int64_t job) override {
    return guarded<std::optional<Json>>([&]() -> std::optional<Json> {
      Statement s(db_, "SELECT stderr FROM results WHERE job = ?");
      if (!s.bind(1, job).step()) return std::nullopt;
      if (s.is_null(0)) return Json();
      auto tails = decode_stderr_tails(s.blob(0));
      if (!tails) throw SqlError(tails.error().message);
      return *tails;
    });
  }

  Expected<BotVersion> add_bot_version(const std::string& name, const std::string& game,
                                       const Json& manifest, const std::string& source,
                                       const std::string& status,
                                       const std::string& author) override {
    return guarded<BotVersion>([&] {
      BotVersion v;
      transaction([&] {
        Statement last(db_,
                       "SELECT version, game FROM bot_versions WHERE name = ? "
                       "ORDER BY version DESC LIMIT 1");
        std::int64_t version = 1;
        if (last.bind(1, name).step()) {
          if (last.text(1) != game)
            throw SqlError(fmt::format("the bot {} plays {}, not {}: give the new one another name",
                                       name, last.text(1), game));
          version = last.integer(0) + 1;
        }
        Statement owner(db_, "SELECT author FROM bot_owners WHERE name = ?");
        const std::string owned_by = owner.bind(1, name).step() ? owner.text(0) : std::string();
        if (auto refused = ownership_refusal(name, version, owned_by, author))
          throw SqlError(*refused);
        if (version == 1) {
          Statement alike(db_,
                          fmt::format("SELECT v.name, coalesce(o.author, '') FROM bot_versions v "
                                      "LEFT JOIN bot_owners o ON o.name = v.name WHERE {} = {} "
                                      "AND v.name <> ? LIMIT 1",
                                      reads_as_sql("v.name"), reads_as_sql("?"))
                              .c_str());
          if (alike.bind(1, name).bind(2, name).step() && alike.text(1) != author)
            throw SqlError(
                fmt::format("the bot name {} reads as {}, another's: give yours "
                            "another name",
                            name, alike.text(0)));
        }
        if (version == 1 && !author.empty()) {
          Statement own(db_, "INSERT INTO bot_owners(name, author) VALUES(?, ?)");
          own.bind(1, name).bind(2, author).run();
        }
        Statement add(db_,
                      "INSERT INTO bot_versions(name, version, game, manifest, source, "
                      "status) VALUES(?,?,?,?,?,?)");
        add.bind(1, name)
            .bind(2, version)
            .bind(3, game)
            .bind(4, dump(manifest))
            .bind(5, source)
            .bind(6, status)
            .run();
        Statement back(db_, bot_select("WHERE name = ? AND version = ?").c_str());
        back.bind(1, name).bind(2, version).step();
        v = stored_bot_version(back);
      });
      return v;
    });
  }

  Expected<void> set_bot_status(const std::string& name, std::int64_t version,
                                const std::string& status, const std::string& reason,
                                const std::string& artifact,
                                const std::optional<std::string>& build_log) override {
    auto done = guarded<bool>([&] {
      transaction([&] {
        Statement u(db_,
                    "UPDATE bot_versions SET status = ?, reason = ?, "
                    "artifact = CASE WHEN ? = '' THEN artifact ELSE ? END "
                    "WHERE name = ? AND version = ?");
        u.bind(1, status)
            .bind(2, reason)
            .bind(3, artifact)
            .bind(4, artifact)
            .bind(5, name)
            .bind(6, version)
            .run();
        if (sqlite3_changes(db_) == 0) throw SqlError(fmt::format("no bot {}@{}", name, version));
        if (build_log) {
          Statement l(db_,
                      "UPDATE bot_versions SET build_log = ? "
                      "WHERE name = ? AND version = ?");
          l.bind_blob(1, *build_log).bind(2, name).bind(3, version).run();
        }
      });
      return true;
    });
    if (!done) return std::unexpected(done.error());
    return {};
  }

  Expected<std::vector<BotVersion>> bot_versions(const std::string& name) override {
    return guarded<std::vector<BotVersion>>([&] {
      Statement s(db_, bot_select("WHERE ? = '' OR name = ? ORDER BY name, version").c_str());
      s.bind(1, name).bind(2, name);
      std::vector<BotVersion> out;
      while (s.step()) out.push_back(stored_bot_version(s));
      return out;
    });
  }

  Expected<std::optional<std::string>> bot_build_log(const std::string& name,
                                                     std::int64_t version) override {
    return guarded<std::optional<std::string>>([&]() -> std::optional<std::string> {
      Statement s(db_, "SELECT build_log FROM bot_versions WHERE name = ? AND version = ?");
      if (!s.bind(1, name).bind(2, version).step() || s.is_null(0)) return std::nullopt;
      return s.blob(0);
    });
  }

  Expected<bool> put_blob(const std::string& hash, const std::string& bytes) override {
    return guarded<bool>([&] {
      bool fresh = false;
      transaction([&] {
        Statement s(db_, "INSERT OR IGNORE INTO blobs(hash, bytes) VALUES(?, ?)");
        s.bind(1, hash).bind_blob(2, bytes).run();
        fresh = sqlite3_changes(db_) == 1;
      });
      return fresh;
    });
  }

  Expected<std::optional<std::string>> blob(const std::string& hash) override {
    return guarded<std::optional<std::string>>([&]() -> std::optional<std::string> {
      Statement s(db_, "SELECT bytes FROM blobs WHERE hash = ?");
      if (!s.bind(1, hash).step()) return std::nullopt;
      return s.blob(0);
    });
  }

  Expected<bool> replace_spec(std::int64_t tournament, const Json& expected,
                              const Json& spec) override {
    return guarded<bool>([&] {
      bool replaced = false;
      transaction([&] {
        Statement t(db_, "SELECT spec FROM tournaments WHERE id = ?");
        if (!t.bind(1, tournament).step())
          throw SqlError(fmt::format("no tournament {}", tournament));
        if (t.json_or_null(0) != expected) return;
        Statement u(db_, "UPDATE tournaments SET spec = ? WHERE id = ?");
        u.bind(1, dump(spec)).bind(2, tournament).run();
        replaced = true;
      });
      return replaced;
    });
  }

  Expected<std::vector<JobSpec>> jobs(std::int64_t tournament, std::int64_t from_index) override {
    return guarded<std::vector<JobSpec>>([&] {
      Statement s(db_,
                  "SELECT idx, round, spec FROM jobs WHERE tournament = ? AND idx >= ? "
                  "ORDER BY idx");
      s.bind(1, tournament).bind(2, from_index);
      std::vector<JobSpec> out;
      while (s.step()) out.push_back({s.integer(0), s.integer(1), s.json_or_null(2)});
      return out;
    });
  }

  Expected<Author> add_author(const std::string& name, const std::string& role,
                              const std::string& salt, const std::string& hash) override {
    return guarded<Author>([&] {
      Author a;
      transaction([&] {
        Statement taken(db_, "SELECT 1 FROM authors WHERE name = ?");
        if (taken.bind(1, name).step())
          throw SqlError(fmt::format("the author {} exists already", name));
        Statement add(db_, "INSERT INTO authors(name, role, salt, hash) VALUES(?, ?, ?, ?)");
        add.bind(1, name).bind(2, role).bind(3, salt).bind(4, hash).run();
        Statement back(db_, "SELECT name, role, created, revoked FROM authors WHERE name = ?");
        back.bind(1, name).step();
        a = stored_author(back);
      });
      return a;
    });
  }

  Expected<std::vector<Author>> authors() override {
    return guarded<std::vector<Author>>([&] {
      Statement s(db_, "SELECT name, role, created, revoked FROM authors ORDER BY name");
      std::vector<Author> out;
      while (s.step()) out.push_back(stored_author(s));
      return out;
    });
  }

  Expected<std::optional<AuthorSecret>> author_secret(const std::string& name) override {
    return guarded<std::optional<AuthorSecret>>([&]() -> std::optional<AuthorSecret> {
      Statement s(db_,
                  "SELECT name, role, created, revoked, salt, hash FROM authors WHERE name = ?");
      if (!s.bind(1, name).step()) return std::nullopt;
      return AuthorSecret{stored_author(s), s.text(4), s.text(5)};
    });
  }

  Expected<void> set_webhook(const std::string& author, const std::string& url,
                             const std::string& key) override {
    return guarded<void>([&] {
      transaction([&] {
        Statement known(db_, "SELECT 1 FROM authors WHERE name = ?");
        if (!known.bind(1, author).step()) throw SqlError(fmt::format("no author {}", author));
        Statement drop(db_, "DELETE FROM webhooks WHERE author = ?");
        drop.bind(1, author).run();
        if (!url.empty()) {
          Statement add(db_, "INSERT INTO webhooks(author, url, key) VALUES(?, ?, ?)");
          add.bind(1, author).bind(2, url).bind(3, key).run();
        }
      });
      return Expected<void>{};
    });
  }

  Expected<std::optional<std::pair<std::string, std::string>>> webhook(
      const std::string& author) override {
    using Hook = std::optional<std::pair<std::string, std::string>>;
    return guarded<Hook>([&]() -> Hook {
      Statement s(db_, "SELECT url, key FROM webhooks WHERE author = ?");
      if (!s.bind(1, author).step()) return std::nullopt;
      return std::pair{s.text(0), s.text(1)};
    });
  }

  Expected<bool> revoke_author(const std::string& name) override {
    return guarded<bool>([&] {
      bool done = false;
      transaction([&] {
        Statement u(db_,
                    "UPDATE authors SET revoked = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') "
                    "WHERE name = ? AND revoked = ''");
        u.bind(1, name).run();
        done = sqlite3_changes(db_) == 1;
      });
      return done;
    });
  }

  Expected<LadderState> ladder_state(std::int64_t tournament) override {
    return guarded<LadderState>([&] {
      Statement s(db_, "SELECT state, mark, unrated FROM ladders WHERE tournament = ?");
      if (!s.bind(1, tournament).step()) return LadderState{};
      return LadderState{s.text(0), s.integer(1), s.integer(2)};
    });
  }

  Expected<void> set_ladder_state(std::int64_t tournament, const std::string& state) override {
    return guarded<void>([&] {
      transaction([&] {
        Statement t(db_, "SELECT 1 FROM tournaments WHERE id = ?");
        if (!t.bind(1, tournament).step())
          throw SqlError(fmt::format("no tournament {}", tournament));
        Statement u(db_,
                    "INSERT INTO ladders(tournament, state) VALUES(?, ?) "
                    "ON CONFLICT(tournament) DO UPDATE SET state = excluded.state");
        u.bind(1, tournament).bind(2, state).run();
      });
      return Expected<void>{};
    });
  }

  Expected<bool> record_ratings(std::int64_t tournament, std::int64_t from, std::int64_t to,
                                const std::vector<RatingStep>& steps,
                                std::int64_t unrated) override {
    return guarded<bool>([&] {
      bool moved = false;
      transaction([&] {
        Statement m(db_, "SELECT mark FROM ladders WHERE tournament = ?");
        const std::int64_t mark = m.bind(1, tournament).step() ? m.integer(0) : 0;
        if (mark != from) return;
        Statement u(db_,
                    "INSERT INTO ladders(tournament, state, mark, unrated) VALUES(?, 'running', ?, "
                    "?) ON CONFLICT(tournament) DO UPDATE SET mark = excluded.mark, "
                    "unrated = ladders.unrated + excluded.unrated");
        u.bind(1, tournament).bind(2, to).bind(3, unrated).run();
        Statement step(db_,
                       "INSERT INTO rating_steps(tournament, entrant, idx, mu, sigma, games, "
                       "place) VALUES(?,?,?,?,?,?,?)");
        Statement now(db_,
                      "INSERT INTO ratings_now(tournament, entrant, idx, mu, sigma, games, place) "
                      "VALUES(?,?,?,?,?,?,?) ON CONFLICT(tournament, entrant) DO UPDATE SET "
                      "idx = excluded.idx, mu = excluded.mu, sigma = excluded.sigma, "
                      "games = excluded.games, place = excluded.place "
                      "WHERE excluded.idx > ratings_now.idx");
        for (const RatingStep& r : steps)
          for (Statement* s : {&step, &now}) {
            s->reset();
            s->bind(1, tournament).bind(2, r.entrant).bind(3, r.index).bind(4, r.mu);
            s->bind(5, r.sigma).bind(6, r.games).bind(7, r.place).run();
          }
        moved = true;
      });
      return moved;
    });
  }

  Expected<std::vector<RatingStep>> ratings(std::int64_t tournament) override {
    return guarded<std::vector<RatingStep>>([&] {
      Statement s(db_,
                  "SELECT idx, entrant, mu, sigma, games, place FROM ratings_now "
                  "WHERE tournament = ? ORDER BY entrant");
      s.bind(1, tournament);
      return rating_rows(s);
    });
  }

  Expected<std::vector<RatingStep>> rating_history(std::int64_t tournament, std::int64_t entrant,
                                                   std::int64_t from_index) override {
    return guarded<std::vector<RatingStep>>([&] {
      Statement s(db_,
                  "SELECT idx, entrant, mu, sigma, games, place FROM rating_steps "
                  "WHERE tournament = ? AND entrant = ? AND idx >= ? ORDER BY idx");
      s.bind(1, tournament).bind(2, entrant).bind(3, from_index);
      return rating_rows(s);
    });
  }

  void wait_for_work(std::chrono::milliseconds timeout) override {
    // In-process additions wake us through the condition variable; other processes' commits
    // show up as a change of the file's data_version, which we poll.
    const auto until = std::chrono::steady_clock::now() + timeout;
    std::unique_lock lock(mu_);
    const std::int64_t version = data_version();
    const std::uint64_t wakes = wakes_;
    while (std::chrono::steady_clock::now() < until) {
      const auto slice = std::min<std::chrono::steady_clock::time_point>(
          until, std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
      if (work_.wait_until(lock, slice, [&] { return wakes_ != wakes; })) return;
      if (data_version() != version) return;
    }
  }

 private:
  template <class T, class F>
  Expected<T> guarded(F&& body) {
    std::lock_guard lock(mu_);
    try {
      return body();
    } catch (const std::exception& e) {
      return fail(std::string("sqlite: ") + e.what());
    }
  }

  void exec(const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      std::string text = message != nullptr ? message : sqlite3_errmsg(db_);
      sqlite3_free(message);
      throw SqlError(text);
    }
  }

  // Runs `body` in a write transaction taken up front, so concurrent writers queue on the busy
  // timeout instead of failing to upgrade a read lock.
  template <class F>
  void transaction(F&& body) {
    in_transaction("BEGIN IMMEDIATE", body);
  }

  // Runs `body` on one snapshot of the file, without taking the write lock.
  template <class F>
  void read_transaction(F&& body) {
    in_transaction("BEGIN DEFERRED", body);
  }

  template <class F>
  void in_transaction(const char* begin, F& body) {
    exec(begin);
    try {
      body();
      exec("COMMIT");
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

  // REQUIRES: mu_ held.
  void announce_work() {
    ++wakes_;
    work_.notify_all();
  }

  std::int64_t insert_jobs(std::int64_t tournament, const std::vector<JobSpec>& jobs) {
    Statement s(db_,
                "INSERT INTO jobs(tournament, idx, round, spec) VALUES(?,?,?,?) "
                "ON CONFLICT(tournament, idx) DO NOTHING");
    std::int64_t added = 0;
    for (const JobSpec& j : jobs) {
      s.reset();
      s.bind(1, tournament).bind(2, j.index).bind(3, j.round).bind(4, dump(j.spec)).run();
      added += sqlite3_changes(db_);
    }
    return added;
  }

  // A row of r.job, j.idx, j.round, j.spec, r.result, r.worker, r.seconds, checked.
  static StoredResult stored_result(const Statement& s) {
    StoredResult r{s.integer(0),      s.integer(1), s.integer(2), s.json_or_null(3),
                   s.json_or_null(4), s.text(5),    s.real(6)};
    r.damage = result_damage(r.spec, r.result);
    return r;
  }

  static std::vector<RatingStep> rating_rows(Statement& s) {
    std::vector<RatingStep> out;
    while (s.step())
      out.push_back({s.integer(0), s.integer(1), s.real(2), s.real(3), s.integer(4), s.integer(5)});
    return out;
  }

  std::int64_t data_version() {
    Statement s(db_, "PRAGMA data_version");
    return s.step() ? s.integer(0) : 0;
  }

  static TournamentRecord record(const Statement& s) {
    return {s.integer(0), s.text(1), s.text(2), s.json_or_null(3), s.integer(4), s.text(5)};
  }

  sqlite3* db_;
  std::mutex mu_;
  std::condition_variable work_;
  std::uint64_t wakes_ = 0;  // times work was added or released, under mu_
};

}  // namespace

Expected<std::unique_ptr<Store>> open_sqlite_store(const SqliteTarget& target, OpenMode mode) {
  const std::string& path = target.name;
  if (std::error_code ec; std::filesystem::is_directory(target.file, ec))
    return fail(fmt::format("sqlite: {} is a directory; give a file, e.g. {}/arbiter.db", path,
                            path));
  sqlite3* db = nullptr;
  // Always the URI made from the resolved file: the file opened is the one sqlite_target
  // names (and keeps from programs), whatever form the organizer wrote.
  const int flags =
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI | (mode == OpenMode::create ? SQLITE_OPEN_CREATE : 0);
  const int rc = sqlite3_open_v2(target.uri.c_str(), &db, flags, nullptr);
  if (rc == SQLITE_CANTOPEN && mode == OpenMode::existing) {
    sqlite3_close(db);
    return fail(fmt::format("sqlite: there is no store {} (tournament run or create makes one)",
                            path));
  }
  if (rc != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return fail(fmt::format("sqlite: cannot open {}: {}", path, message));
  }
  auto store = std::make_unique<SqliteStore>(db);
  // Two processes opening a new file at once can meet a lock the busy timeout does not cover
  // (the switch to WAL mode); the loser tries again.
  for (int attempt = 0;; ++attempt) {
    try {
      store->init();
      return store;
    } catch (const std::exception& e) {
      if (sqlite3_errcode(db) != SQLITE_BUSY || attempt == 50)
        return fail(fmt::format("sqlite: {}: {}", path, e.what()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace arbiter::tournament
