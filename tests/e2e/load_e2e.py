#!/usr/bin/env python3
"""Timeouts under load (docs/tournaments.md, "Fair clocks"): a bot that computes past its
per-call limit (q-bot --think 300 at --per-call 0.1) plays a tournament twice.

1. On a quiet machine its timeouts count as usual: "timeout", nothing voided.
2. With a CPU hog started beside it (three spinning processes per CPU, for a few seconds) the
   host's CPU pressure rises -- read from outside, from /proc/pressure/cpu -- and the bot, kept
   from its CPU, times out under load: that play is recorded as timeout-under-load, voided, and
   the match is played again once the hog is gone, when the timeout counts as usual. The
   standings say how many plays were voided.
3. A bot that raises the pressure itself, with spinners it forks, to have its own timeout
   excused: its timeouts count, nothing is voided.
"""
import argparse
import json
import os
import pathlib
import sqlite3
import subprocess
import sys
import tempfile
import time

problems = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        problems.append(what)


def pressure_total():
    with open("/proc/pressure/cpu") as f:
        some = f.readline()
    return int(some.split("total=")[1])


def tournament(arbiter, qbot, tmp, name, sandbox, bot=None, per_call="0.1"):
    store = f"sqlite:{tmp}/{name}.db"
    r = subprocess.run(
        [arbiter, "tournament", "run", "--store", store, "-g", "q", "--seed", "3",
         "-p", f"slow:cmd:{bot or qbot + ' --think 300'}", "-p", "fast:dag", "--rounds", "1",
         "--per-call", per_call, "--workers", "1", "-q", "--json", f"{tmp}/{name}.json", *sandbox],
        capture_output=True, text=True, timeout=150)
    if r.returncode != 0:
        check(False, f"{name}: tournament run failed: {r.stderr[-400:]}")
        return None
    with open(f"{tmp}/{name}.json") as f:
        return json.load(f)


def stored_results(tmp, name):
    """Each stored result's JSON, read from the store's own file (what a worker wrote)."""
    db = sqlite3.connect(f"{tmp}/{name}.db")
    return [json.loads(row[0]) for row in db.execute("SELECT result FROM results ORDER BY job")]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--qbot", required=True)
    args = ap.parse_args()
    if not os.path.exists("/proc/pressure/cpu"):
        print("FAIL this kernel has no CPU pressure (PSI) to read: timeout-under-load cannot work",
              file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="arbiter-load-") as tmp:
        sandbox = ["--unsafe-no-sandbox"] if subprocess.run(
            [args.arbiter, "sandbox", "check"], capture_output=True).returncode != 0 else []
        quiet = tournament(args.arbiter, args.qbot, tmp, "quiet", sandbox)
        if quiet is None:
            return 1
        results = stored_results(tmp, "quiet")
        whys = [e["why"] for r in results for e in r.get("ejections", [])]
        check(whys and all(w == "timeout" for w in whys),
              f"a quiet machine: the slow bot's timeouts count as usual ({whys})")
        check(all("voided" not in r for r in results) and quiet.get("voided") == 0,
              "a quiet machine: no play voided")

        # The hog: three spinners per CPU, for 6 s.
        cpus = os.cpu_count() or 2
        before = pressure_total()
        start = time.monotonic()
        hogs = [subprocess.Popen([sys.executable, "-c",
                                  "import time\nend = time.monotonic() + 6\n"
                                  "while time.monotonic() < end: pass"])
                for _ in range(3 * cpus)]
        time.sleep(1)
        loaded = tournament(args.arbiter, args.qbot, tmp, "loaded", sandbox)
        for h in hogs:
            h.wait(timeout=30)
        after = pressure_total()
        took = time.monotonic() - start
        if loaded is None:
            return 1
        check(after - before > 1_000_000,
              f"the hog raised the CPU pressure (PSI 'some' grew by {(after - before) / 1e6:.1f} s)")
        results = stored_results(tmp, "loaded")
        voided = [e for r in results for v in r.get("voided", []) for e in v.get("ejections", [])]
        check(voided and all(e["why"] == "timeout-under-load" for e in voided),
              f"under the hog: a timeout recorded as timeout-under-load and its play voided "
              f"({[e['why'] for e in voided]})")
        check(any("overloaded" in e["detail"] for e in voided),
              f"its detail says how loaded the host was ({voided[0]['detail'] if voided else ''})")
        final = [e["why"] for r in results for e in r.get("ejections", [])]
        check(final and all(w == "timeout" for w in final),
              f"the match played again once the hog was gone, where the timeout counts ({final})")
        check(loaded.get("voided", 0) == len(voided) and
              sum(r["voided"] for r in loaded["standings"]) == len(voided),
              f"the standings say {loaded.get('voided')} play(s) voided")
        check(took < 120, f"the loaded run took {took:.0f} s")

        # The attack: a bot that loads the host itself (spinners it forks) to have its own
        # timeouts excused. Its waits are its own doing: they count.
        loader = pathlib.Path(__file__).resolve().parent / "bots" / "self_loader.py"
        cheat = tournament(args.arbiter, args.qbot, tmp, "cheat", sandbox,
                           bot=f"{sys.executable} {loader}", per_call="0.5")
        if cheat is None:
            return 1
        results = stored_results(tmp, "cheat")
        whys = [e["why"] for r in results for e in r.get("ejections", [])]
        check(whys and all(w == "timeout" for w in whys) and cheat.get("voided") == 0,
              f"a bot loading the host with spinners of its own: its timeouts count ({whys}, "
              f"{cheat.get('voided')} voided)")
    if problems:
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
