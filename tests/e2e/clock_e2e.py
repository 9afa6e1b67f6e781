#!/usr/bin/env python3
"""Time controls (--clock BANK+INCREMENT) with real program players, from the command line:

  a. A tournament of program players under --clock 10s+0.1s finishes; every match's log has
     the clock in its header and each call's bank ("clock_us"), and the programs were told their
     remaining time in take-turn ({"remaining_ms", "increment_ms"}, seen in their transcripts).
  b. A program that thinks longer than its bank is ejected with time-bank-exhausted, although
     the per-call limit would have let it go on; the match goes on; its log replays identically.
  c. The games without turns refuse --clock with one line, exit 2; so does a bad clock.

The bank running out in virtual time is tested in src/referee/turn_based_test.cpp.
Usage: clock_e2e.py --arbiter PATH --root REPO --qbot PATH --python PATH
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from procs import Tally  # noqa: E402

ARGS = None
TALLY = Tally()


def report(name, problems):
    TALLY.report(name, problems, "as expected")


def arbiter(*argv, timeout=300):
    return subprocess.run([ARGS.arbiter, *argv], capture_output=True, text=True, timeout=timeout,
                          cwd=ARGS.root)


def check_tournament(tmp):
    store = f"sqlite:{tmp / 'clock.db'}"
    logs = tmp / "logs"
    logs.mkdir()
    r = arbiter("tournament", "run", "-g", "q",
                "-p", f"c:cmd:{ARGS.qbot} --strategy dag",
                "-p", f"py:cmd:{ARGS.python} bots/python/q_bot.py --transcript",
                "-p", "house:ldasg",
                "--clock", "10s+0.1s", "--store", store, "-q", "--stderr-dir", str(logs))
    problems = [] if r.returncode == 0 else [f"exit {r.returncode}: {r.stderr[-300:]}"]
    status = arbiter("tournament", "results", "1", "--print-json", "--store", store)
    try:
        done = json.loads(status.stdout)
    except json.JSONDecodeError:
        done = {}
    if not done or done.get("done") != done.get("planned") or not done.get("planned"):
        problems.append(f"not finished: {status.stdout[:200]} {status.stderr[:200]}")
    if done.get("spec", {}).get("clock") != "10s+100ms":
        problems.append(f"the stored spec has no clock: {done.get('spec')}")
    for index in range(done.get("planned", 0)):
        log = arbiter("tournament", "log", "1", str(index), "--store", store).stdout.splitlines()
        lines = [json.loads(l) for l in log if l.strip()]
        if not lines or lines[0].get("clock") != "10s+100ms":
            problems.append(f"match {index}: no clock in the header")
            continue
        calls = [l for l in lines if l.get("type") == "call"]
        if not calls or any("clock_us" not in c for c in calls):
            problems.append(f"match {index}: a call without clock_us")
        if any(c.get("verdict") == "time-bank-exhausted" for c in calls):
            problems.append(f"match {index}: a bank ran out in a fast match")
    told = [f for f in logs.glob("*py.stderr") if '"remaining_ms"' in f.read_text()]
    if not told:
        problems.append("the Python bot's transcripts show no remaining_ms in take-turn")
    report("a. a tournament of programs under --clock 10s+0.1s finishes, the clock in every log",
           problems)


def check_bank_runs_out(tmp):
    log = tmp / "slow.jsonl"
    # Sleeps 1.5 s at its second turn: within --per-call 30, beyond a 1 s bank. Seeded: on some
    # deals dag places its whole hand at once and the game ends before that turn (1 in CI).
    r = arbiter("play", "q", "--seed", "1", "-p", "a:dag",
                "-p", f"slow:cmd:{ARGS.python} examples/q_misbehave.py --mode slow --sleep 1.5",
                "--read-only", "bots/python", "--per-call", "30", "--clock", "1s+0s",
                "--log", str(log), "--json")
    problems = [] if r.returncode == 0 else [f"exit {r.returncode}: {r.stderr[-300:]}"]
    try:
        result = json.loads(r.stdout)
    except json.JSONDecodeError:
        result = {}
        problems.append(f"no JSON: {r.stdout[:200]}")
    ejected = [e for e in result.get("ejections", []) if e.get("seat") == 1]
    if not ejected or ejected[0].get("why") != "time-bank-exhausted" or \
            ejected[0].get("call") != "take_turn":
        problems.append(f"ejections {result.get('ejections')}")
    if result.get("winners") != [0]:
        problems.append(f"winners {result.get('winners')}")
    replay = arbiter("replay", str(log))
    if replay.returncode != 0 or "identical" not in replay.stdout:
        problems.append(f"replay: exit {replay.returncode} {replay.stdout[:200]} {replay.stderr[:200]}")
    report("b. a program that outthinks its bank is ejected with time-bank-exhausted; the log "
           "replays", problems)


def check_refusals():
    for argv, words in (
            (["play", "speed_scrabble", "-p", "a:solver", "-p", "b:solver", "--clock", "60s+1s"],
             "--clock: speed_scrabble has no turns to clock"),
            (["play", "abalone", "--black", "simple", "--white", "simple", "--clock", "60s+1s"],
             "--clock: abalone has no turns to clock"),
            (["tournament", "run", "-g", "dominosa", "-p", "a:slow=1", "-p", "b:slow=1",
              "--clock", "60s+1s", "--store", "sqlite:/nonexistent-dir/x.db"],
             "--clock: dominosa has no turns to clock"),
            (["play", "q", "-p", "a:dag", "-p", "b:dag", "--clock", "60s+"],
             '--clock "60s+": a part after +, / or ~ is missing'),
            (["play", "q", "-p", "a:dag", "-p", "b:dag", "--clock", "0s"],
             "the bank must be more than 0")):
        r = arbiter(*argv)
        lines = r.stderr.splitlines()
        ok = r.returncode == 2 and len(lines) == 1 and words in lines[0] and not r.stdout
        report(f"c. {' '.join(argv[:2])} {' '.join(argv[-2:])}: one line, exit 2",
               [] if ok else [f"exit {r.returncode}: {r.stderr!r} {r.stdout[:100]!r}"])


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--qbot", required=True)
    ap.add_argument("--python", default=sys.executable)
    ARGS = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="arbiter-clock-") as d:
        tmp = pathlib.Path(d)
        check_tournament(tmp)
        check_bank_runs_out(tmp)
    check_refusals()
    print(f"{TALLY.passed} passed, {TALLY.failed} failed")
    return 1 if TALLY.failed else 0


if __name__ == "__main__":
    sys.exit(main())
