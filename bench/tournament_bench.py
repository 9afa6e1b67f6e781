#!/usr/bin/env python3
"""Matches per minute of whole tournaments, side by side in one run: two-player Q (dag against
ldasg) with in-process house bots and with stdio children (bots/cpp q-bot), at 1 and 2 workers,
each into a fresh SQLite store, timed from the command's start to its exit (store creation,
scheduling, every match with its game log stored, standings and ratings included).

  python3 bench/tournament_bench.py --arbiter build/release/src/apps/arbiter \
      --qbot build/release/bots/q-bot [--matches 2000] [--store-url postgresql://...]
"""
import argparse
import os
import shutil
import subprocess
import tempfile
import time

HIGC_PER_MINUTE = 50  # the course runner's ceiling, from its fixed sleeps per match


def run(arbiter, players, matches, workers, store):
    cmd = [arbiter, "tournament", "run", "-g", "q", *players, "--rounds", str(matches // 2),
           "--workers", str(workers), "--store", store, "-q"]
    start = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    took = time.monotonic() - start
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr}")
    if f"{matches} matches" not in r.stdout:
        raise SystemExit(f"unexpected output: {r.stdout}")
    return took


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--arbiter", required=True)
    p.add_argument("--qbot", required=True)
    p.add_argument("--matches", type=int, default=2000, help="per configuration (default 2000)")
    p.add_argument("--store-url", help="use this PostgreSQL store instead of fresh SQLite files")
    a = p.parse_args()
    house = ["-p", "dag:dag", "-p", "ldasg:ldasg"]
    stdio = ["-p", f"dag:cmd:{a.qbot} --strategy dag", "-p", f"ldasg:cmd:{a.qbot} --strategy ldasg"]
    tmp = tempfile.mkdtemp(prefix="arbiter-tbench-")
    try:
        print(f"{'players':<12} {'workers':>7} {'matches':>8} {'seconds':>8} {'per minute':>11} {'vs HIGC':>8}")
        for label, players in (("in-process", house), ("stdio", stdio)):
            for workers in (1, 2):
                store = a.store_url or f"sqlite:{tmp}/{label}-{workers}.db"
                took = run(a.arbiter, players, a.matches, workers, store)
                rate = a.matches / took * 60
                print(f"{label:<12} {workers:>7} {a.matches:>8} {took:>8.2f} {rate:>11.0f} "
                      f"{rate / HIGC_PER_MINUTE:>7.0f}x", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
