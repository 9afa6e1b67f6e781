#!/usr/bin/env python3
"""CPU starvation: a program that forks 60 spinning processes (within the default cap of 64)
must not slow its opponent. The victim spends 0.15 s of its own CPU time on every shot; its
per-call times (the game log's elapsed_us) are measured against a harmless opponent and against
the hog, behind the walls with the default --cpus 1, and the attacked median must stay within 2x
of the unattacked one. With --cpus none the same attack starves it (so the check can fail).

Runs alone (RUN_SERIAL): it measures CPU shares on this machine. Prints its figures for
docs/benchmarks.md.

Usage: starvation_e2e.py --arbiter PATH --root REPO   (as root; the walls need it)
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from procs import Tally  # noqa: E402

ARGS = None
TALLY = Tally()
PY = "/usr/bin/python3"
THINK = 0.15  # CPU seconds per shot


def victim_times(tmp, name, opponent, *extra):
    """The victim's take-turn times in ms, and its ejection if it had one."""
    log = os.path.join(tmp, f"{name}.jsonl")
    r = subprocess.run([ARGS.arbiter, "play", "battleship", "--seed", "1",
                        "-p", f"victim:cmd:{PY} {tmp}/bots/cpu_bots.py victim {THINK}",
                        "-p", opponent, "--config", '{"max_turns": 24}', "--log", log, "--json",
                        *extra], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"{name}: exit {r.returncode}: {r.stderr[-300:]}")
    times, ejected = [], None
    with open(log) as f:
        for line in f:
            j = json.loads(line)
            if j.get("type") == "call" and j.get("seat") == 0 and j.get("call") == "take_turn":
                times.append(j["elapsed_us"] / 1000)
    for e in json.loads(r.stdout)["ejections"]:
        if e["seat"] == 0:
            ejected = f"{e['why']} during {e['call']}"
    return times, ejected


def describe(times):
    if not times:
        return "no turns"
    return f"median {statistics.median(times):.0f} ms, max {max(times):.0f} ms over {len(times)} turns"


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arbiter", required=True)
    parser.add_argument("--root", required=True)
    ARGS = parser.parse_args()
    if os.geteuid() != 0:
        print("starvation_e2e needs root (the walls are built by root)")
        return 1
    with tempfile.TemporaryDirectory(prefix="arbiter-starve-") as tmp:
        os.chmod(tmp, 0o755)
        bots = os.path.join(tmp, "bots")
        os.makedirs(bots)
        shutil.copy(os.path.join(ARGS.root, "tests", "misbehaving", "cpu_bots.py"), bots)
        shutil.copy(os.path.join(ARGS.root, "bots", "python", "battleship_bot.py"), bots)
        hog = f"hog:cmd:{PY} {bots}/cpu_bots.py hog 60"
        alone, ej_alone = victim_times(tmp, "alone", "b:hunt")
        attacked, ej_attacked = victim_times(tmp, "attacked", hog)
        problems = []
        if ej_alone or ej_attacked:
            problems.append(f"the victim was ejected: {ej_alone or ej_attacked}")
        if len(alone) < 5 or len(attacked) < 5:
            problems.append(f"too few turns to judge ({len(alone)}, {len(attacked)})")
        else:
            ratio = statistics.median(attacked) / statistics.median(alone)
            if ratio > 2:
                problems.append(f"attacked, its median call took {ratio:.2f}x as long")
        TALLY.report("a program forking 60 spinners does not starve its opponent (--cpus 1)",
                     problems, f"alone: {describe(alone)}; against the hog: {describe(attacked)}")
        # The control: without the CPU cap, the same attack starves it.
        starved, ej = victim_times(tmp, "uncapped", hog, "--cpus", "none", "--per-call", "3")
        slow = ej is not None or (starved and statistics.median(starved) >
                                  2 * statistics.median(alone or [1]))
        TALLY.report("control: with --cpus none the hog starves it (so the check can fail)",
                     [] if slow else [f"uncapped, it was not slowed: {describe(starved)}"],
                     f"{describe(starved)}{'; ' + ej if ej else ''}")
    print(f"{TALLY.passed} passed, {TALLY.failed} failed")
    return 1 if TALLY.failed else 0


if __name__ == "__main__":
    sys.exit(main())
