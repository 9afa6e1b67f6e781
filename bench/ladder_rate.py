#!/usr/bin/env python3
"""A ladder against a tournament of the same twelve cheap house bots on 2 workers, side by side
in one run: the tournament plays a round robin of N matches; the ladder, made afresh, plays until
N are rated. Each is timed whole, from the command's start to its exit, into a fresh SQLite
store; they run in turn, RUNS times, and the medians are compared. The ladder's matches are
counted from its leaderboard (it may play a few past N), so its rate is not flattered.

The bots are twelve copies of one Battleship house bot (--bot, default hunt), so that a match
costs the same whoever meets whom and the rates compare the hosting alone. With --mixed, three
each of random, hunt, tracker and density: then the ladder pairs close ratings (random against
random: the longest matches) where a round robin pairs everyone alike, and its matches are
longer; the mean time a match took to play is printed to show it.

  python3 bench/ladder_rate.py --arbiter build/release/src/apps/arbiter [--matches 1056] [--runs 5]
"""
import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
import time

MIXED = ["random", "hunt", "tracker", "density"]


def timed(cmd):
    start = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    took = time.monotonic() - start
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])}...: exit {r.returncode}: {r.stderr[-400:]}")
    return took, r.stdout


def match_seconds(arbiter, store):
    """The mean seconds one match took to play (the matches' CSV): the work a match is."""
    out = subprocess.run([arbiter, "tournament", "results", "1", "--matches", "--store", store],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    col = out[0].split(",").index("seconds")
    times = [float(line.split(",")[col]) for line in out[1:] if line.split(",")[col]]
    return sum(times) / max(len(times), 1)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--arbiter", required=True)
    p.add_argument("--matches", type=int, default=1056, help="a multiple of 132 (default 1056)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--bot", default="hunt", help="the house bot of all twelve (default hunt)")
    p.add_argument("--mixed", action="store_true", help="three each of four bots instead")
    a = p.parse_args()
    if a.matches % 132:
        raise SystemExit("--matches: a multiple of 132 (one round robin of twelve, both seat orders)")
    if a.mixed:
        names = [(f"{b[0]}{i}", b) for b in MIXED for i in (1, 2, 3)]
    else:
        names = [(f"b{i}", a.bot) for i in range(1, 13)]
    tmp = tempfile.mkdtemp(prefix="arbiter-ladder-rate-")
    tournament_rates, ladder_rates = [], []
    try:
        for run in range(a.runs):
            store = f"sqlite:{tmp}/t{run}.db"
            players = [x for n, b in names for x in ("-p", f"{n}:{b}")]
            took, _ = timed([a.arbiter, "tournament", "run", "-g", "battleship", *players,
                             "--rounds", str(a.matches // 132), "--workers", "2", "-q",
                             "--store", store])
            tournament_rates.append(a.matches / took * 60)
            t_cost = match_seconds(a.arbiter, store)
            store = f"sqlite:{tmp}/l{run}.db"
            anchors = [x for n, b in names for x in ("--anchor", f"{n}:{b}")]
            start = time.monotonic()
            subprocess.run([a.arbiter, "ladder", "create", "rate", "-g", "battleship", *anchors,
                            "--store", store], capture_output=True, check=True)
            timed([a.arbiter, "ladder", "run", "rate", "--workers", "2", "--until-rated",
                   str(a.matches), "-q", "--store", store])
            took = time.monotonic() - start
            board = json.loads(subprocess.run([a.arbiter, "ladder", "status", "rate", "--json",
                                               "--store", store], capture_output=True,
                                              check=True, text=True).stdout)
            ladder_rates.append(board["played"] / took * 60)
            l_cost = match_seconds(a.arbiter, store)
            print(f"run {run + 1}: tournament {tournament_rates[-1]:.0f}/min ({1000 * t_cost:.1f} ms "
                  f"a match), ladder {ladder_rates[-1]:.0f}/min ({board['played']} played, "
                  f"{1000 * l_cost:.1f} ms a match)", flush=True)
        t, l = statistics.median(tournament_rates), statistics.median(ladder_rates)
        print(f"median: tournament {t:.0f} matches/min, ladder {l:.0f} matches/min: "
              f"{100 * l / t:.0f} % of the tournament's rate")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
