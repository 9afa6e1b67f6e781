#!/usr/bin/env python3
"""Store integrity through the CLI: a small tournament is played, `tournament verify` passes on
the untouched store, then the store is damaged behind arbiter's back - (a) a result row edited
(an impossible winner; a plausible but false outcome), (b) a log's bytes replaced, (c) two logs
swapped between matches, with and without their checksums - and each time verify must name the
match and exit 3, and reads of the damaged row (results, results --matches, log) must say
"damaged" and exit 3. Logs stored without a checksum read as unverified, not damaged. On SQLite
(python's sqlite3) by default; with --postgres-from-env on the server scripts/with_postgres.sh
started (through psql)."""
import argparse
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from procs import Tally  # noqa: E402

ARGS = None
TALLY = Tally()
DAMAGED = 3


def arbiter(*args, timeout=300):
    return subprocess.run([ARGS.arbiter, *args], capture_output=True, text=True, timeout=timeout)


class SqliteDb:
    def __init__(self, path):
        self.path = path

    def rows(self, sql):
        with sqlite3.connect(self.path, timeout=30) as c:
            return [tuple(str(v) if v is not None else None for v in r) for r in c.execute(sql)]

    def run(self, sql):
        with sqlite3.connect(self.path, timeout=30) as c:
            c.execute(sql)

    @staticmethod
    def hex_of(column):
        return f"lower(hex({column}))"

    @staticmethod
    def from_hex(h):
        return f"X'{h}'"


class PostgresDb:
    def __init__(self, url):
        self.url = url

    def rows(self, sql):
        r = subprocess.run(["psql", self.url, "-v", "ON_ERROR_STOP=1", "-At", "-F", "\t",
                            "-c", sql], capture_output=True, text=True, check=True)
        return [tuple(v if v != "" else None for v in line.split("\t"))
                for line in r.stdout.splitlines()]

    def run(self, sql):
        subprocess.run(["psql", self.url, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql],
                       capture_output=True, text=True, check=True)

    @staticmethod
    def hex_of(column):
        return f"encode({column}, 'hex')"

    @staticmethod
    def from_hex(h):
        return f"decode('{h}', 'hex')"


def quote(text):
    return "NULL" if text is None else "'" + text.replace("'", "''") + "'"


class Store:
    """The tournament's rows, saved so that each check can put them back."""

    def __init__(self, db, url, tid):
        self.db, self.url, self.tid = db, url, tid
        self.saved = {}
        for job, idx, result, log, checksum in db.rows(
                f"SELECT r.job, j.idx, r.result, {db.hex_of('r.log')}, r.log_sha256 "
                f"FROM results r JOIN jobs j ON j.id = r.job WHERE j.tournament = {tid}"):
            self.saved[int(idx)] = (int(job), result, log, checksum)

    def job(self, idx):
        return self.saved[idx][0]

    def set(self, idx, result=None, log_hex=None, checksum=None, null_checksum=False):
        parts = []
        if result is not None:
            parts.append(f"result = {quote(result)}")
        if log_hex is not None:
            parts.append(f"log = {self.db.from_hex(log_hex)}")
        if checksum is not None or null_checksum:
            parts.append(f"log_sha256 = {quote(None if null_checksum else checksum)}")
        self.db.run(f"UPDATE results SET {', '.join(parts)} WHERE job = {self.job(idx)}")

    def restore(self):
        for idx, (_, result, log, checksum) in self.saved.items():
            self.set(idx, result=result, log_hex=log, checksum=checksum,
                     null_checksum=checksum is None)

    def verify(self):
        return arbiter("tournament", "verify", str(self.tid), "--store", self.url)


def damaged_matches(run):
    return sorted(int(m) for m in re.findall(r"^damaged match (\d+): ", run.stdout, re.M))


def expect_verify(store, name, matches, why):
    """Verify must exit 3 naming exactly `matches`, each line containing `why`."""
    r = store.verify()
    problems = []
    if r.returncode != DAMAGED:
        problems.append(f"verify exit {r.returncode}, expected {DAMAGED}: {r.stderr.strip()}")
    if damaged_matches(r) != matches:
        problems.append(f"verify named {damaged_matches(r)}, expected {matches}: {r.stdout}")
    for line in r.stdout.splitlines():
        if line.startswith("damaged match") and why not in line:
            problems.append(f"expected {why!r} in: {line}")
    if f"{len(matches)} damaged" not in r.stdout:
        problems.append(f"no summary of {len(matches)} damaged: {r.stdout}")
    TALLY.report(f"verify: {name}", problems, r.stdout.strip().splitlines()[0])


def expect_reads_damaged(store, name, idx):
    """Every read of match `idx` says damaged with its ids and exits 3."""
    problems = []
    label = f"damaged: tournament {store.tid} match {idx}:"
    reads = {"results": ["tournament", "results", str(store.tid)],
             "results --matches": ["tournament", "results", str(store.tid), "--matches"],
             "log": ["tournament", "log", str(store.tid), str(idx)]}
    for what, args in reads.items():
        r = arbiter(*args, "--store", store.url)
        if r.returncode != DAMAGED or label not in r.stderr:
            problems.append(f"{what}: exit {r.returncode}, stderr {r.stderr.strip()!r}")
        if what == "log" and r.stdout:
            problems.append(f"log printed {len(r.stdout)} bytes of a damaged log")
    TALLY.report(f"reads: {name}", problems, f"results, --matches and log exit {DAMAGED}")


def expect_clean(store, name):
    r = store.verify()
    problems = []
    if r.returncode != 0 or damaged_matches(r):
        problems.append(f"exit {r.returncode}: {r.stdout.strip()} {r.stderr.strip()}")
    planned = len(store.saved)
    if f"{planned} replayed identically" not in r.stdout:
        problems.append(f"expected {planned} replayed: {r.stdout.strip()}")
    for args in (["results", str(store.tid)], ["log", str(store.tid), "0"]):
        rr = arbiter("tournament", *args, "--store", store.url)
        if rr.returncode != 0:
            problems.append(f"tournament {' '.join(args)}: exit {rr.returncode}: {rr.stderr}")
    TALLY.report(f"clean: {name}", problems, r.stdout.strip().splitlines()[-1])
    return r


def play(url):
    r = arbiter("tournament", "run", "-g", "q", "-p", "a:dag", "-p", "b:ldasg", "-p", "c:dag",
                "--seed", "7", "--workers", "2", "--store", url)
    m = re.search(r"tournament (\d+) in ", r.stderr)
    if r.returncode != 0 or not m:
        raise RuntimeError(f"tournament run: exit {r.returncode}: {r.stderr}")
    return int(m.group(1))


def test_store(db, url, backend):
    tid = play(url)
    store = Store(db, url, tid)
    if len(store.saved) != 6:
        raise RuntimeError(f"expected 6 results, found {len(store.saved)}")
    expect_clean(store, f"{backend}: the untouched store")

    # (a) result rows
    _, result, _, _ = store.saved[1]
    impossible = re.sub(r'"winners":\[[^\]]*\]', '"winners":[7]', result)
    store.set(1, result=impossible)
    expect_verify(store, f"{backend}: a winner that is no seat", [1], "winner 7")
    expect_reads_damaged(store, f"{backend}: a winner that is no seat", 1)
    store.restore()
    # A shape the match allows, but not what happened: only the log can tell.
    scores = [int(v) for v in re.search(r'"scores":\[([^\]]*)\]', result).group(1).split(",")]
    scores[0] += 1000
    false = re.sub(r'"scores":\[[^\]]*\]', '"scores":' + str(scores).replace(" ", ""), result)
    store.set(1, result=false)
    expect_verify(store, f"{backend}: a plausible false result", [1], "is not the stored result")
    expect_reads_damaged_log_only(store, f"{backend}: a plausible false result", 1)
    store.restore()

    # (b) a log's bytes
    store.set(2, log_hex=b"garbage, not a game log\n".hex())
    expect_verify(store, f"{backend}: garbage log bytes", [2], "SHA-256")
    expect_reads_damaged_log_only(store, f"{backend}: garbage log bytes", 2)
    store.restore()

    # (c) two logs swapped: without their checksums, then with them
    log3, log4 = store.saved[3][2], store.saved[4][2]
    store.set(3, log_hex=log4)
    store.set(4, log_hex=log3)
    expect_verify(store, f"{backend}: two logs swapped", [3, 4], "SHA-256")
    store.set(3, checksum=store.saved[4][3])
    store.set(4, checksum=store.saved[3][3])
    expect_verify(store, f"{backend}: two logs swapped with their checksums", [3, 4], "seed")
    expect_reads_damaged_log_only(store, f"{backend}: two logs swapped with checksums", 3)
    store.restore()
    expect_clean(store, f"{backend}: the store put back")

    # Rows from before checksums: unverified, not damaged.
    db.run(f"UPDATE results SET log_sha256 = NULL WHERE tournament = {tid}")
    r = store.verify()
    problems = []
    if r.returncode != 0 or "6 unverified" not in r.stdout:
        problems.append(f"exit {r.returncode}: {r.stdout.strip()}")
    lr = arbiter("tournament", "log", str(tid), "0", "--store", url)
    if lr.returncode != 0 or "unverified" not in lr.stderr or not lr.stdout:
        problems.append(f"log: exit {lr.returncode}: {lr.stderr.strip()}")
    TALLY.report(f"{backend}: logs without a checksum", problems, "unverified, exit 0")
    store.restore()


def expect_reads_damaged_log_only(store, name, idx):
    """The row itself is sound, so results read it; the log read says damaged and exits 3."""
    problems = []
    r = arbiter("tournament", "log", str(store.tid), str(idx), "--store", store.url)
    if r.returncode != DAMAGED or f"damaged: tournament {store.tid} match {idx}:" not in r.stderr:
        problems.append(f"log: exit {r.returncode}, stderr {r.stderr.strip()!r}")
    if r.stdout:
        problems.append(f"log printed {len(r.stdout)} bytes of a damaged log")
    TALLY.report(f"log read: {name}", problems, f"exit {DAMAGED}, nothing printed")


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--arbiter", required=True)
    p.add_argument("--postgres-from-env", action="store_true",
                   help="run against ARBITER_TEST_POSTGRES_URL (set by scripts/with_postgres.sh)")
    ARGS = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="arbiter-integrity-")

    def check():
        if ARGS.postgres_from_env:
            url = os.environ.get("ARBITER_TEST_POSTGRES_URL")
            if not url:
                sys.exit("--postgres-from-env: ARBITER_TEST_POSTGRES_URL is not set")
            test_store(PostgresDb(url), url, "postgresql")
        else:
            path = os.path.join(tmp, "store.db")
            test_store(SqliteDb(path), f"sqlite:{path}", "sqlite")
    sys.exit(TALLY.run_all([check], tmp))


if __name__ == "__main__":
    main()
