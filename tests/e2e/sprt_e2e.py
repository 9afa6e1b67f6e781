#!/usr/bin/env python3
"""Paired seeds and the SPRT through the CLI: every pair of matches with swapped seats shares one
seed in --matches-csv; density against hunt stops early with H1 accepted (exit 0), the reverse
with H0 (exit 1); the verdict is the same with 1 and 2 local workers; a bot against itself accepts
H1 no more often than alpha allows over many master seeds, paired and unpaired; a resumed concluded run stays concluded; contradictory options
are one line and exit 2 with no store created. With --postgres-from-env: the same test finished
by two worker processes sharing a PostgreSQL store stops both and loses or doubles no match."""
import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from procs import Tally, check_refusals  # noqa: E402

ARGS = None
TALLY = Tally()
DUEL = ["-g", "battleship", "-p", "new:density", "-p", "old:hunt"]


def arbiter(*args, timeout=300):
    return subprocess.run([ARGS.arbiter, *args], capture_output=True, text=True, timeout=timeout)


def rows(store, tid=1):
    r = arbiter("tournament", "results", str(tid), "--store", store, "--matches")
    return list(csv.DictReader(io.StringIO(r.stdout)))


def verdict(text):
    """(verdict, pairs, llr) from the SPRT line of the results."""
    m = re.search(r"SPRT \([^)]*\): (H[01] accepted|undecided), LLR (-?[\d.]+) .* after (\d+) pairs",
                  text)
    return (m.group(1), int(m.group(3)), m.group(2)) if m else None


def once_each(match_rows):
    """Problems if an index is stored twice or a stored match errored."""
    problems = []
    indexes = [int(r["index"]) for r in match_rows]
    if len(indexes) != len(set(indexes)):
        problems.append("an index is stored twice")
    errors = [r["error"] for r in match_rows if r["error"]]
    if errors:
        problems.append(f"{len(errors)} errored, e.g. {errors[0]}")
    return problems


def test_pairs_share_a_seed(tmp):
    problems = []
    store = f"sqlite:{tmp}/pairs.db"
    out = f"{tmp}/pairs.csv"
    r = arbiter("tournament", "run", "-g", "battleship", "-p", "a:density", "-p", "b:hunt",
                "-p", "c:random", "--rounds", "2", "--store", store, "-q", "--matches-csv", out)
    if r.returncode != 0:
        problems.append(f"exit {r.returncode}: {r.stderr.strip()}")
    with open(out) as f:
        lines = list(csv.DictReader(f))
    by_pair = defaultdict(list)
    for line in lines:
        by_pair[line["pair"]].append(line)
    if len(lines) != 12 or len(by_pair) != 6:
        problems.append(f"{len(lines)} matches in {len(by_pair)} pairs, expected 12 in 6")
    for pair, members in by_pair.items():
        seats = [m["seats"].split() for m in members]
        if len({m["seed"] for m in members}) != 1:
            problems.append(f"pair {pair} has seeds {[m['seed'] for m in members]}")
        if len(seats) != 2 or seats[0] != list(reversed(seats[1])):
            problems.append(f"pair {pair} seats {seats}, not one seating and its swap")
    if len({m[0]["seed"] for m in by_pair.values()}) != len(by_pair):
        problems.append("two pairs share a seed")
    # The reproduce command of both matches of a pair plays the same deal.
    r2 = arbiter("tournament", "run", "-g", "battleship", "-p", "a:density", "-p", "b:hunt",
                 "--rounds", "2", "--no-pairing", "--store", f"sqlite:{tmp}/unpaired.db", "-q",
                 "--matches-csv", f"{tmp}/unpaired.csv")
    with open(f"{tmp}/unpaired.csv") as f:
        unpaired = list(csv.DictReader(f))
    if r2.returncode != 0 or len({u["seed"] for u in unpaired}) != len(unpaired) or \
            any(u["pair"] for u in unpaired):
        problems.append(f"--no-pairing: exit {r2.returncode}, seeds "
                        f"{[u['seed'] for u in unpaired]}, pairs {[u['pair'] for u in unpaired]}")
    TALLY.report("paired seeds in --matches-csv", problems,
                 f"{len(by_pair)} pairs, each one seed and both seat orders; --no-pairing: "
                 f"{len(unpaired)} seeds")


def sprt_run(tmp, name, extra, workers="1"):
    store = f"sqlite:{tmp}/{name}.db"
    # One master seed for every run compared: without one each run draws its own.
    r = arbiter("tournament", "run", *DUEL, "--rounds", "500", "--sprt", "0", "50", "--store",
                store, "-q", "--workers", workers, "--seed", "1", *extra)
    return store, r


def test_sprt_h1_and_h0(tmp):
    store, r = sprt_run(tmp, "h1", [])
    problems = []
    v = verdict(r.stdout)
    if r.returncode != 0:
        problems.append(f"exit {r.returncode}, expected 0 for H1: {r.stderr.strip()}")
    if not v or v[0] != "H1 accepted":
        problems.append(f"no H1 line in {r.stdout!r}")
    played = rows(store)
    problems += once_each(played)
    if len(played) >= 1000 or len(played) > 100:
        problems.append(f"{len(played)} matches played of 1000: not early")
    status = arbiter("tournament", "status", "1", "--store", store).stdout
    if "concluded" not in status:
        problems.append(f"status does not say concluded: {status.strip()}")
    # Resumed, a concluded run plays nothing more and keeps its verdict.
    again = arbiter("tournament", "resume", "1", "--store", store, "-q")
    if again.returncode != 0 or verdict(again.stdout) != v or len(rows(store)) != len(played):
        problems.append(f"resume: exit {again.returncode}, {verdict(again.stdout)}, "
                        f"{len(rows(store))} matches")
    TALLY.report("--sprt 0 50: density against hunt", problems,
                 f"{v[0] if v else '?'} after {v[1] if v else '?'} pairs, {len(played)} of 1000 "
                 f"matches played, exit {r.returncode}")

    two_store, two = sprt_run(tmp, "h1w2", [], workers="2")
    problems = []
    if two.returncode != 0 or verdict(two.stdout) != v:
        problems.append(f"2 workers: exit {two.returncode}, {verdict(two.stdout)} vs {v}")
    problems += once_each(rows(two_store))
    TALLY.report("--sprt with 2 local workers: the same verdict at the same pair", problems,
                 f"{verdict(two.stdout)}")

    store = f"sqlite:{tmp}/h0.db"
    r = arbiter("tournament", "run", "-g", "battleship", "-p", "new:hunt", "-p", "old:density",
                "--rounds", "500", "--sprt", "0", "50", "--store", store, "-q")
    v = verdict(r.stdout)
    problems = []
    if r.returncode != 1 or not v or v[0] != "H0 accepted":
        problems.append(f"exit {r.returncode}, {v}: expected exit 1 with H0 accepted")
    TALLY.report("--sprt 0 50: hunt against density", problems, f"{v}, exit {r.returncode}")


def test_self_play_never_accepts_h1(tmp):
    """A bot against itself: H0 holds exactly (elo0 = 0), so H1 may be accepted in at most about
    alpha of the runs. With paired seeds every pair of a deterministic bot against itself is a
    mirror, so the bound is met with room to spare: we require no H1 in 12 runs (had the rate been
    alpha = 0.05, this would pass only 54 % of the time). The statistical calibration on
    outcomes that do vary is in head_to_head_test."""
    problems, verdicts = [], defaultdict(int)
    for seed in range(1, 13):
        r = arbiter("tournament", "run", "-g", "battleship", "-p", "a:tracker", "-p", "b:tracker",
                    "--rounds", "400", "--sprt", "0", "10", "--seed", str(seed),
                    "--store", f"sqlite:{tmp}/self{seed}.db", "-q", "--no-live")
        v = verdict(r.stdout)
        verdicts[v[0] if v else "none"] += 1
        if v and v[0] == "H1 accepted":
            problems.append(f"seed {seed}: H1 accepted")
        if (r.returncode == 0) != bool(v and v[0] == "H1 accepted"):
            problems.append(f"seed {seed}: exit {r.returncode} for {v}")
    TALLY.report("--sprt 0 10, a bot against itself, 12 master seeds", problems, dict(verdicts))

    # Unpaired, the games of a bot against itself do vary (each match has its own seed, so each
    # seat its own randomness): single-game SPRT(0, 10) runs, cut at 100 games each (a cut run
    # accepts H1 no more often than an uncut one). If the rate were alpha = 0.05, 4 or more H1
    # in 20 runs would happen with probability 0.016; we require at most 3.
    problems, verdicts = [], defaultdict(int)
    for seed in range(1, 21):
        r = arbiter("tournament", "run", "-g", "battleship", "-p", "a:tracker", "-p", "b:tracker",
                    "--rounds", "50", "--no-pairing", "--sprt", "0", "10", "--seed", str(seed),
                    "--store", f"sqlite:{tmp}/unpaired{seed}.db", "-q", "--no-live")
        m = re.search(r"SPRT \(trinomial[^)]*\): (H[01] accepted|undecided)", r.stdout)
        verdicts[m.group(1) if m else "none"] += 1
        if not m:
            problems.append(f"seed {seed}: no SPRT line: {r.stderr.strip()[:200]}")
    if verdicts["H1 accepted"] > 3:
        problems.append(f"H1 accepted in {verdicts['H1 accepted']} of 20 runs")
    TALLY.report("--no-pairing --sprt 0 10, tracker against itself, 20 master seeds", problems,
                 dict(verdicts))


def test_bad_options(tmp):
    store = f"{tmp}/never.db"
    cases = [
        (["-p", "c:random", "--sprt", "0", "10"], "two entrants"),
        (["--sprt", "10", "0"], "ELO0 must be below ELO1"),
        (["--sprt", "5", "5"], "ELO0 must be below ELO1"),
        (["--sprt", "0", "10", "--alpha", "1.5"], "(0, 1)"),
        (["--sprt", "0", "10", "--beta", "0"], "(0, 1)"),
        (["--sprt", "0", "10", "--alpha=-0.5"], "(0, 1)"),
        (["--sprt", "0", "10", "--no-pairing", "--sprt-model", "pentanomial"], "paired seeds"),
        (["--sprt", "0", "10", "--sprt-model", "heptanomial"], "pentanomial or trinomial"),
        (["--alpha", "0.1"], "go with --sprt"),
        (["--sprt", "0"], "--sprt"),
        (["--sprt", "0", "10", "--seats", "3"], ""),
    ]
    check_refusals(TALLY, lambda *extra: arbiter("tournament", "run", *DUEL, *extra, "--store",
                                                 f"sqlite:{store}"),
                   cases, store, "bad options")


def test_postgres_two_workers(tmp, url):
    """Created once, finished by two worker processes: both end once the test decides, every
    stored match is stored once, and the verdict is the one a single local worker reaches."""
    _, local = sprt_run(tmp, "reference", [])
    expected = verdict(local.stdout)
    r = arbiter("tournament", "create", *DUEL, "--rounds", "500", "--sprt", "0", "50",
                "--seed", "1", "--store", url)
    problems = []
    if r.returncode != 0:
        TALLY.report("postgresql: --sprt with two workers", [f"create: {r.stderr.strip()}"], "")
        return
    tid = r.stdout.strip()
    workers = [subprocess.Popen([ARGS.arbiter, "worker", "--store", url, "--until-finished",
                                 "--workers", "2", "--batch", "2"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(2)]
    reports = []
    for w in workers:
        try:
            out, err = w.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            w.kill()
            out, err = w.communicate()
            problems.append("a worker did not stop after the verdict")
        if w.returncode != 0:
            problems.append(f"worker exit {w.returncode}: {err.strip()}")
        reports.append(out.strip())
        if re.search(r"[1-9]\d* duplicates", out):
            problems.append(f"a duplicate result: {out.strip()}")
    res = arbiter("tournament", "results", tid, "--store", url)
    got = verdict(res.stdout)
    if got != expected:
        problems.append(f"verdict {got}, a single local worker gave {expected}")
    if "concluded early" not in res.stdout:
        problems.append("the results do not say the run concluded early")
    played = rows(url, tid)
    problems += once_each(played)
    if len(played) > 100:
        problems.append(f"{len(played)} matches played: the stop did not reach the workers")
    TALLY.report("postgresql: --sprt with two workers", problems,
                 f"{got}, {len(played)} matches stored once each; {reports}")


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--arbiter", required=True)
    p.add_argument("--postgres-from-env", action="store_true",
                   help="run the PostgreSQL check against ARBITER_TEST_POSTGRES_URL")
    ARGS = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="arbiter-sprt-")
    if ARGS.postgres_from_env:
        url = os.environ.get("ARBITER_TEST_POSTGRES_URL")
        if not url:
            sys.exit("--postgres-from-env: ARBITER_TEST_POSTGRES_URL is not set")
        tests = [lambda: test_postgres_two_workers(tmp, url)]
    else:
        tests = [lambda: test_pairs_share_a_seed(tmp), lambda: test_sprt_h1_and_h0(tmp),
                 lambda: test_self_play_never_accepts_h1(tmp), lambda: test_bad_options(tmp)]
    sys.exit(TALLY.run_all(tests, tmp))


if __name__ == "__main__":
    main()
