#!/usr/bin/env python3
"""Untrusted workers on PostgreSQL, side by side in one run (docs/scaling.md):

  1. the scale curve: matches per minute of a cheap game (two-player Q, dag against ldasg, in
     process) with 1, 2, 4 and 8 worker processes, each logged in with a worker role of its own
     and one match at a time (--workers 1), the organizer's checker passing results (checks
     off); and the claim latency each worker measured (p50, p99 over all its claims);
  2. the cost of checking on arrival: the same tournament with 2 workers, checks off and on
     (every log replayed; re-plays off in both, so only the arrival check differs), for Q with
     in-process bots and for Q with stdio programs (q-bot).

Run under scripts/with_postgres.sh (ARBITER_TEST_POSTGRES_URL: a superuser's URL; a database
per configuration is made and dropped):

  bash scripts/with_postgres.sh python3 bench/workers_bench.py \
      --arbiter build/release/src/apps/arbiter --qbot build/release/bots/q-bot [--matches 2000]
"""
import argparse
import os
import re
import subprocess
import sys
import time


def psql(url, sql):
    subprocess.run(["psql", url, "-qAtX", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True,
                   capture_output=True, text=True)


def run(arbiter, admin, name, players, matches, workers, check):
    psql(admin, f"CREATE DATABASE {name}")
    store = re.sub(r"/[^/]*$", f"/{name}", admin)
    try:
        checks = [] if check else ["--no-arrival-check"]
        subprocess.run([arbiter, "tournament", "create", "-g", "q", *players, "--rounds",
                        str(matches // 2), "--seed", "1", "--replay-share", "0",
                        "--replay-first", "0", "--store", store, *checks],
                       check=True, capture_output=True, text=True)
        urls = []
        for i in range(workers):
            r = subprocess.run([arbiter, "worker-role", "create", f"{name}_w{i}", "--store",
                                store], check=True, capture_output=True, text=True)
            urls.append(r.stdout.strip())
        start = time.monotonic()
        checker = subprocess.Popen([arbiter, "workers", "check", "--store", store,
                                    "--until-finished"], stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
        procs = [subprocess.Popen([arbiter, "worker", "--store", u, "--workers", "1",
                                   "--no-live", "--until-finished", "--batch", "2"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                 for u in urls]
        outs = [p.communicate(timeout=1800)[0] for p in procs]
        checker.communicate(timeout=600)
        took = time.monotonic() - start
        if any(p.returncode != 0 for p in procs) or checker.returncode != 0:
            raise SystemExit(f"{name}: a worker or the checker failed: {outs}")
        p50 = [float(m.group(1)) for o in outs for m in re.finditer(r"p50 ([\d.]+) ms", o)]
        p99 = [float(m.group(1)) for o in outs for m in re.finditer(r"p99 ([\d.]+) ms", o)]
        return took, max(p50 or [0]), max(p99 or [0])
    finally:
        for i in range(workers):
            subprocess.run(["psql", admin, "-qAtX", "-c", f"DROP OWNED BY {name}_w{i}"],
                           capture_output=True)
        psql(admin, f"DROP DATABASE {name} WITH (FORCE)")
        for i in range(workers):
            subprocess.run(["psql", admin, "-qAtX", "-c", f"DROP ROLE IF EXISTS {name}_w{i}"],
                           capture_output=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--qbot", required=True)
    ap.add_argument("--matches", type=int, default=2000)
    a = ap.parse_args()
    admin = os.environ.get("ARBITER_TEST_POSTGRES_URL")
    if not admin:
        raise SystemExit("run under scripts/with_postgres.sh")
    house = ["-p", "dag:dag", "-p", "ldasg:ldasg"]
    print(f"{a.matches} two-player Q matches (dag against ldasg) per row; PostgreSQL on this "
          f"machine; {os.cpu_count()} cores\n")
    print("| worker processes | matches/min | claim p50 (worst worker) | claim p99 (worst worker) |")
    print("|---|---|---|---|")
    for n in (1, 2, 4, 8):
        took, p50, p99 = run(a.arbiter, admin, f"scale{n}", house, a.matches, n, False)
        print(f"| {n} | {a.matches / took * 60:,.0f} | {p50:.2f} ms | {p99:.2f} ms |", flush=True)
    print("\n| players | workers | checks off: matches/min | on arrival: matches/min | cost |")
    print("|---|---|---|---|---|")
    program = ["-p", f"dag:cmd:{a.qbot} --strategy dag", "-p", f"ldasg:cmd:{a.qbot} --strategy ldasg"]
    for label, players, matches in (("in-process", house, a.matches),
                                    ("stdio (q-bot)", program, a.matches // 4)):
        off, _, _ = run(a.arbiter, admin, "checkoff", players, matches, 2, False)
        on, _, _ = run(a.arbiter, admin, "checkon", players, matches, 2, True)
        print(f"| {label} | 2 | {matches / off * 60:,.0f} | {matches / on * 60:,.0f} | "
              f"{(on - off) / off * 100:+.0f} % time |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
