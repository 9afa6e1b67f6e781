#!/usr/bin/env python3
"""Worker roles on PostgreSQL (docs/security.md, "Untrusted workers"), attacked from real
processes: psql logged in as a worker's role tries what a lying or curious worker would, and the
organizer checks from outside that nothing happened. Then workers play through the CLI, the
checker settles their results, and a worker's results are voided and played again.

Usage (under scripts/with_postgres.sh): worker_roles_e2e.py --arbiter PATH
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time

TABLES = ["tournaments", "jobs", "results", "live_lines", "conclusions", "bot_versions",
          "bot_owners", "authors", "webhooks", "blobs", "ladders", "rating_steps", "ratings_now",
          "worker_roles", "set_aside"]

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def psql(url, sql):
    """(ok, output): ok when psql ran the statement without an error."""
    p = subprocess.run(["psql", url, "-qAtX", "-v", "ON_ERROR_STOP=1", "-c", sql],
                       capture_output=True, text=True, timeout=60)
    return p.returncode == 0, (p.stdout + p.stderr).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arbiter", required=True)
    a = ap.parse_args()
    org = os.environ["ARBITER_TEST_POSTGRES_URL"]

    def arbiter(*args, **kw):
        return subprocess.run([a.arbiter, *args], capture_output=True, text=True, timeout=300,
                              **kw)

    # Refusals before anything is made.
    p = arbiter("worker-role", "create", "w1", "--store", "sqlite:/tmp/nowhere.db")
    check(p.returncode == 2 and "PostgreSQL" in p.stderr and len(p.stderr.splitlines()) == 1,
          "worker-role on an SQLite store: one line, exit 2")
    p = arbiter("worker-role", "create", "Bad-Name", "--store", org)
    check(p.returncode == 2 and "not a worker role name" in p.stderr, "a bad role name refused")

    ok, _ = psql(org, "SELECT 1")
    p = arbiter("tournament", "create", "-g", "battleship", "-p", "a:hunt", "-p", "b:random",
                "--rounds", "6", "--seed", "7", "--store", org)
    check(p.returncode == 0, "the organizer makes tournament 1 (12 matches)")
    arbiter("tournament", "create", "-g", "battleship", "-p", "a:hunt", "-p", "b:tracker",
            "--rounds", "1", "--seed", "8", "--store", org)
    urls = {}
    for name in ("w1", "w2"):
        p = arbiter("worker-role", "create", name, "--store", org)
        urls[name] = p.stdout.strip()
        check(p.returncode == 0 and urls[name].startswith(f"postgresql://{name}:"),
              f"worker-role create {name} prints its URL once")
    p = arbiter("worker-role", "create", "w1", "--store", org)
    check(p.returncode == 1 and "already has a role w1" in p.stderr, "a taken name refused")
    w1, w2 = urls["w1"], urls["w2"]

    # No table, read or written, by name.
    for t in TABLES:
        ok, out = psql(w1, f"SELECT 1 FROM {t} LIMIT 1")
        check(not ok and "permission denied" in out, f"w1 cannot SELECT {t}")
    for sql in ["UPDATE jobs SET done = true", "DELETE FROM results",
                "INSERT INTO conclusions(tournament, verdict) VALUES (1, 'x')",
                "UPDATE worker_roles SET state = 'active'",
                "CREATE TABLE public.mine(x int)",
                "CREATE FUNCTION public.length(text) RETURNS int LANGUAGE sql AS 'SELECT 1'"]:
        ok, out = psql(w1, sql)
        check(not ok and "permission denied" in out, f"w1 cannot: {sql}")

    # Leases: w1 holds a job; w2 can neither finish, renew, feed nor steal it.
    ok, out = psql(w1, "SELECT job FROM arbiter_worker.claim('p1', 1, 60000, 1)")
    job = int(out.splitlines()[0]) if ok and out else 0
    check(ok and job > 0, f"w1 claims a job ({job})")
    _, before = psql(org, f"SELECT lease_owner, lease_until FROM jobs WHERE id = {job}")
    ok, out = psql(w2, f"SELECT arbiter_worker.complete({job}, 'p2', '{{\"winners\":[0]}}', "
                       "'x'::bytea, 1, NULL, 'sha256:0')")
    check(not ok and "not held" in out, "w2 cannot store a result for w1's job (refused: AW001)")
    ok, out = psql(w2, "SELECT arbiter_worker.renew('p1', 600000)")
    check(ok and out == "0", "w2 renews nothing of w1's, even naming w1's process id")
    ok, out = psql(w2, f"SELECT arbiter_worker.append_live({job}, 1, 0, '[\"forged\"]')")
    check(ok and out == "0", "w2 cannot post live lines to w1's job")
    ok, out = psql(w1, f"SELECT arbiter_worker.complete({job}, 'other', '{{}}', 'x'::bytea, 1, "
                       "NULL, 'sha256:0')")
    check(not ok and "not held" in out, "w1 cannot complete its job under another process id")
    ok, out = psql(w1, "SELECT arbiter_worker.complete(999999, 'p1', '{}', 'x'::bytea, 1, NULL, "
                       "'sha256:0')")
    check(not ok and "not held" in out, "w1 cannot complete a job it never claimed")
    ok, out = psql(w1, f"SELECT arbiter_worker.complete({job}, 'p1', '{{}}', 'x'::bytea, "
                       "'NaN', NULL, 'sha256:0')")
    check(not ok and "bounds" in out, "a result with NaN seconds is refused")
    ok, out = psql(w2, "SELECT job FROM arbiter_worker.claim('p2', 64, 60000, 1)")
    check(ok and str(job) not in out.split(), "w2's claim does not take w1's live job")
    psql(w2, "SELECT arbiter_worker.release('p2')")
    _, after = psql(org, f"SELECT lease_owner, lease_until FROM jobs WHERE id = {job}")
    _, stored = psql(org, "SELECT count(*) FROM results")
    check(before == after and before.startswith("w1/p1") and stored == "0",
          "from outside: w1's lease untouched, no result stored")
    ok, out = psql(w1, "SELECT arbiter_worker.claim('p1', 1000, 60000, 0)")
    check(not ok and "1 to 64" in out, "a claim of 1,000 jobs is refused")

    # Specs: only of a tournament it holds a job of, and without the master seed.
    ok, out = psql(w1, "SELECT spec FROM arbiter_worker.tournament(1)")
    spec = json.loads(out) if ok else {}
    check(ok and "seed" not in spec and spec.get("game") == "battleship",
          "w1 reads tournament 1's spec, without its master seed")
    ok, out = psql(w1, "SELECT spec FROM arbiter_worker.tournament(2)")
    check(not ok and "holds none of its jobs" in out, "w1 cannot read tournament 2's spec")
    ok, out = psql(w1, "SELECT arbiter_worker.blob('sha256:" + "0" * 64 + "') IS NULL")
    check(ok and out == "t", "w1 gets no blob that is not a playable bot's files")

    # The second wall: a table granted by mistake still shows a worker no row.
    psql(org, "GRANT SELECT ON jobs, authors TO w1")
    ok, out = psql(w1, "SELECT count(*) FROM jobs")
    ok2, out2 = psql(w1, "SELECT count(*) FROM authors")
    check(ok and out == "0" and ok2 and out2 == "0",
          "row-level security: a mistaken GRANT shows w1 no rows")
    psql(org, "REVOKE SELECT ON jobs, authors FROM w1")

    # Blocking: no login, no claim, its leases end.
    p = arbiter("worker-role", "block", "w1", "--store", org)
    check(p.returncode == 0, "worker-role block w1")
    ok, out = psql(w1, "SELECT 1")
    check(not ok and "not permitted to log in" in out, "a blocked worker cannot log in")
    _, owner = psql(org, f"SELECT coalesce(lease_owner, '-') FROM jobs WHERE id = {job}")
    check(owner == "-", "a blocked worker's lease ends at once")
    psql(org, "ALTER ROLE w1 LOGIN")  # as if blocked while connected: the functions refuse it
    ok, out = psql(w1, "SELECT * FROM arbiter_worker.claim('p1', 1, 60000, 0)")
    check(not ok and "blocked" in out, "a blocked worker's claims are refused")
    p = arbiter("worker-role", "unblock", "w1", "--store", org)
    ok, out = psql(w1, "SELECT count(*) FROM arbiter_worker.claim('p1', 1, 60000, 0)")
    check(p.returncode == 0 and ok and out == "1", "unblocked, w1 claims again")
    psql(w1, "SELECT arbiter_worker.release('p1')")
    p = arbiter("worker-role", "block", "nobody", "--store", org)
    check(p.returncode == 2 and "no worker role nobody" in p.stderr, "an unknown role: one line")

    # The CLI: two workers and the checker finish both tournaments.
    p = arbiter("worker", "--store", w1, "--ladder", "x")
    check(p.returncode == 2 and "--tournament" in p.stderr, "a worker role cannot use --ladder")
    workers = [subprocess.Popen([a.arbiter, "worker", "--store", u, "--workers", "1",
                                 "--until-finished", "--no-live"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True) for u in (w1, w2)]
    p = arbiter("workers", "check", "--store", org, "--until-finished")
    outs = [w.communicate(timeout=240)[0] for w in workers]
    check(p.returncode == 0 and "checked" in p.stdout, "workers check --until-finished ends")
    check(all(w.returncode == 0 for w in workers), "both workers end when all is settled: " +
          " | ".join(o.strip().splitlines()[-1] if o.strip() else "" for o in outs))
    _, out = psql(org, "SELECT count(*), count(*) FILTER (WHERE role IS NOT NULL), "
                       "count(*) FILTER (WHERE check_state = 'passed') FROM results")
    check(out == "14|14|14", f"14 results, all from worker roles, all checked ({out})")
    p = arbiter("tournament", "verify", "1", "--store", org)
    check(p.returncode == 0 and "0 damaged" in p.stdout, "tournament verify is clean")
    p = arbiter("workers", "--store", org, "--json")
    rows = {r["worker"]: r for r in json.loads(p.stdout)} if p.returncode == 0 else {}
    check(set(rows) == {"w1", "w2"} and sum(r["agreed"] for r in rows.values()) >= 12 and
          not any(r["flagged"] for r in rows.values()),
          "workers --json: new workers' first results each played again and agreed; no flag")
    p = arbiter("workers", "--store", org)
    check(p.returncode == 0 and re.search(r"^w1\s+active", p.stdout, re.M) is not None,
          "workers prints a table")

    # Voiding a worker: its results leave the standings and are played again by the other.
    _, mine = psql(org, "SELECT count(*) FROM results WHERE role = 'w1'")
    p = arbiter("worker-role", "void", "w1", "--store", org)
    check(p.returncode == 0 and f"{mine} results voided" in p.stdout,
          f"worker-role void w1 ({mine} results)")
    _, done = psql(org, "SELECT count(*) FROM jobs WHERE done")
    check(int(done) == 14 - int(mine), "the voided matches are queued again")
    w = subprocess.Popen([a.arbiter, "worker", "--store", w1, "--workers", "1", "--no-live",
                          "--until-finished"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    w2p = subprocess.Popen([a.arbiter, "worker", "--store", w2, "--workers", "1", "--no-live",
                            "--until-finished"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    # The organizer's own worker too: a job both roles are kept from (w1 voided, w2 to be
    # checked) is played by a worker of neither.
    own = subprocess.Popen([a.arbiter, "worker", "--store", org, "--workers", "1", "--no-live",
                            "--until-finished"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    p = arbiter("workers", "check", "--store", org, "--until-finished")
    for proc in (w, w2p, own):
        proc.communicate(timeout=240)
    _, out = psql(org, "SELECT count(*), count(*) FILTER (WHERE role = 'w1') FROM results")
    check(out == "14|0", f"every match stored again, none by w1 ({out})")

    # "I could not play it": no log to replay, so it is always played again.
    arbiter("tournament", "create", "-g", "battleship", "-p", "a:hunt", "-p", "b:random",
            "--rounds", "1", "--seed", "9", "--replay-share", "0", "--replay-first", "0",
            "--store", org)
    ok, out = psql(w2, "SELECT job FROM arbiter_worker.claim('p9', 1, 60000, 3)")
    err_job = int(out) if ok and out.isdigit() else 0
    empty_sha = hashlib.sha256(b"").hexdigest()
    ok, out = psql(w2, f"SELECT arbiter_worker.complete({err_job}, 'p9', "
                       "'{\"error\": \"the match failed: no\"}', ''::bytea, 1, NULL, "
                       f"'{empty_sha}')")
    check(ok, f"w2 says job {err_job} could not be played")
    subprocess.run(["timeout", "-s", "INT", "4", a.arbiter, "workers", "check", "--store", org],
                   capture_output=True)
    _, state = psql(org, f"SELECT state FROM set_aside WHERE job = {err_job}")
    _, standing = psql(org, f"SELECT count(*) FROM results WHERE job = {err_job}")
    check(state == "awaiting-replay" and standing == "0",
          f"an unplayed match is always played again, even with re-plays off ({state})")

    # The red team's: results made to break the checker, a session holding its claims open, a
    # worker id made to forge the checker's notes, temporary tables, leases without end.
    arbiter("tournament", "create", "-g", "battleship", "-p", "a:hunt", "-p", "b:random",
            "--rounds", "150", "--seed", "10", "--store", org)  # tournament 4: 300 matches
    ok, out = psql(w2, "SELECT job FROM arbiter_worker.claim('p9', 2, 60000, 4)")
    bad = [int(j) for j in out.split()] if ok else []
    long_winners = '{"winners": ["' + "\u00e9" * 40 + '"], "ejections": [], "scores": [0, 0]}'
    bomb = "5a4c4231" + (1 << 34).to_bytes(8, "little").hex() + "deadbeef"
    ok1, _ = psql(w2, f"SELECT arbiter_worker.complete({bad[0]}, 'p9', '{long_winners}', "
                      f"''::bytea, 1, NULL, '{empty_sha}')") if bad else (False, "")
    ok2, _ = psql(w2, f"SELECT arbiter_worker.complete({bad[1]}, 'p9', '{{\"winners\":[0]}}', "
                      f"'\\x{bomb}'::bytea, 1, NULL, '{empty_sha}')") if bad else (False, "")
    check(ok1 and ok2, "w2 stores a result whose damage reads in cut UTF-8, and a 16-byte log "
                       "that says it inflates to 16 GiB")
    r = arbiter("tournament", "results", "4", "--print-json", "--store", org)
    check(r.returncode == 0 and json.loads(r.stdout).get("done") == 0,
          "results waiting for their check count nowhere yet (done 0 of tournament 4)")
    p = subprocess.run(["timeout", "-s", "INT", "6", a.arbiter, "workers", "check", "--store",
                        org], capture_output=True, text=True)
    _, states = psql(org, "SELECT string_agg(state, ',' ORDER BY job) FROM set_aside WHERE job IN "
                          f"({bad[0] if bad else 0}, {bad[1] if bad else 0})")
    # (124: still running when `timeout` stopped it, as it should be.)
    check(p.returncode == 124 and "terminate" not in p.stderr and states == "failed,failed",
          f"the checker survives both and sets them aside as failed ({p.returncode}, {states})")
    ok, out = psql(w1, "SELECT arbiter_worker.claim(E'p1\\nw2/p1''s result', 1, 60000, 0)")
    check(not ok and "a worker id is" in out, "a worker id with a line break is refused")
    ok, out = psql(w1, "CREATE TEMP TABLE hoard(x text)")
    check(not ok and "permission denied" in out, "a worker cannot make temporary tables")
    held = 0
    for _ in range(5):
        ok, out = psql(w1, "SELECT count(*) FROM arbiter_worker.claim('p5', 64, 600000, 4)")
        held += int(out) if ok else 0
    check(held == 256 and not ok and "256 live leases" in out,
          f"a worker holds 256 live leases at most ({held})")
    psql(w1, "SELECT arbiter_worker.release('p5')")
    hold = subprocess.Popen(["psql", w1, "-qAtX", "-c", "BEGIN", "-c",
                             "SELECT count(*) FROM arbiter_worker.claim('hold', 64, 1000, 4)",
                             "-c", "SELECT pg_sleep(50)"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    time.sleep(1.5)
    started = time.monotonic()
    arbiter("worker-role", "block", "w1", "--store", org)
    try:
        hold.communicate(timeout=20)
        ended = time.monotonic() - started
    except subprocess.TimeoutExpired:
        hold.kill()
        ended = 99
    ok, out = psql(w2, "SELECT count(*) FROM arbiter_worker.claim('p8', 1, 60000, 4)")
    check(ended < 10 and ok and out == "1",
          f"blocking ends a session that held its claims open in a transaction (after "
          f"{ended:.1f} s); its jobs are claimable at once")

    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
