#!/usr/bin/env python3
"""End-to-end: Speed Scrabble through `arbiter play speed_scrabble --json --log` and
`arbiter replay` (docs/games/speed_scrabble.md).

  a. the example Python player (bots/python/speed_scrabble_bot.py) finishes games against a slow
     house bot from either seat, and with a word-list file as the dictionary: never ejected,
     never an invalid board, at least one valid board; the logs replay identically;
  b. 2 to 8 house solvers finish a game with a winner; the logs replay;
  c. a fast solver beats a slow one (slow=0.2) on several seeds, in both seat orders;
  d. misbehaving players over stdio (tests/misbehaving/speed_scrabble_zoo.py) are ejected with
     the named reason (garbage, a non-"submit" message, a flood, too many invalid boards, an
     oversized message, hanging up) while the house bot finishes and wins; well-behaved zoo
     modes are not ejected; no zoo process outlives arbiter; the logs replay;
  e. fairness: two identical solvers over 80 seeds; each seat must win a reasonable share
     (at least MIN_SHARE of the decided games); the split is printed.

Prints one line per check and "N passed, M failed" last; exits 1 on any failure.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import procs  # noqa: E402

# Unsandboxed on purpose (--unsafe-no-sandbox): the zoo records its pids in a file of the host
# for the survivor checks, which the walls forbid; the walled programs are attacked by
# the hostile matrix of tests/e2e/sandbox_e2e.py.
UNWALLED = ["--unsafe-no-sandbox"]

# e: the smallest share of wins either seat may have. The seat is not the only thing that differs:
# each seat is dealt its own hand, and over seeds 1..40 seat 0's hands happen to be the easier
# ones about 65% of the time (seat 1's over 41..80), so a few dozen seeds leave the split at the
# mercy of the deal. Over 80 seeds 25% is more than 4 sigma below an even split.
MIN_SHARE = 0.25
FAIR_SEEDS = range(1, 81)
FAST_SLOW_SEEDS = (1, 2, 3, 4)
ZOO_HOUSE = "slow=0.15"  # d: slow enough that the zoo misbehaves before the game is over
ZOO_SEED = 5  # d: a deal where the house bot's hand makes boards from either seat
QUICK = {"stall_seconds": 5}  # a stuck game ends in 5 s, not 30


Run = procs.Run


class Suite(procs.Tally):
    def __init__(self, args, tmp):
        super().__init__(show_ok=True)
        self.args = args
        self.tmp = tmp
        self.counter = 0

    def path(self, stem):
        with self.lock:
            self.counter += 1
            return os.path.join(self.tmp, f"{self.counter:03d}-{stem}")


    def play(self, players, seed, config=None, log=None, text=False, timeout=90):
        cmd = [self.args.arbiter, "play", "speed_scrabble", "--seed", str(seed)]
        if any("--pid-file" in bot for _, bot in players):
            cmd += UNWALLED
        elif config and os.path.isabs(str(config.get("dictionary", ""))):
            cmd += ["--read-only", config["dictionary"]]  # the Python bot reads the word list too
        if not text:
            cmd.append("--json")
        for name, bot in players:
            cmd += ["--player", f"{name}:{bot}"]
        if config:
            cmd += ["--config", json.dumps(config)]
        if log:
            cmd += ["--log", log]
        start = time.monotonic()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return Run(cmd, None, "", "", time.monotonic() - start,
                       f"arbiter did not finish in {timeout} s")
        return Run(cmd, p.returncode, p.stdout, p.stderr, time.monotonic() - start)

    def replay_problem(self, log):
        p = subprocess.run([self.args.arbiter, "replay", log], capture_output=True, text=True,
                           timeout=60)
        if p.returncode != 0 or "identical" not in p.stdout:
            return f"replay exit {p.returncode}: {(p.stdout + p.stderr).strip()[-300:]}"
        return None

    def check_replay(self, problems, log):
        """Adds the replay's problem to `problems` if the run had none so far."""
        if not problems:
            why = self.replay_problem(log)
            if why:
                problems.append(why)

    def python_bot(self):
        return f"cmd:{self.args.python} {self.args.bot}"

    def zoo(self, mode, pid_file, extra=""):
        return f"cmd:{self.args.python} {self.args.zoo} --mode {mode} --pid-file {pid_file}{extra}"


def names_of(result):
    return [result["names"][w] for w in result.get("winners", [])]


def timeline_text(result):
    marks = result.get("details", {}).get("timeline", [])
    out = []
    for name, seat in zip(result.get("names", []), marks):
        out.append(f"{name} " + (f"{seat[0]['k']}..{seat[-1]['k']}" if seat else "-"))
    return ", ".join(out)


def invalid_verdicts(log, seat):
    """The verdicts the seat got that are neither "accepted" nor "stale: ..."."""
    bad = []
    with open(log) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "notice" and rec.get("seat") == seat:
                kind, args = rec["message"]
                if kind == "verdict" and args[1] != "accepted" and \
                        not args[1].startswith("stale"):
                    bad.append(args[1])
    return bad


# ---------------------------------------------------------------------------------------------
# a. the Python bot

def check_python_bot(suite, seat, seed, house="slow=1", config=None, label=""):
    name = f"a. python bot at seat {seat} vs {house}, seed {seed}{label}"
    log = suite.path("python.jsonl")
    players = [("h", house)]
    players.insert(seat, ("py", suite.python_bot()))
    cfg = dict(QUICK)
    cfg.update(config or {})
    run = suite.play(players, seed, cfg, log)
    problems = []
    detail = ""
    if run.problem():
        problems.append(run.problem())
    else:
        r = run.result
        if r.get("ejections"):
            problems.append(f"ejections {r['ejections']}")
        details = r.get("details", {})
        if "ending" not in details or "timeline" not in details:
            problems.append(f"no details.ending/timeline in {r}")
        else:
            mine = details["timeline"][seat]
            if not mine:
                problems.append(f"the python bot had no valid board ({timeline_text(r)})")
        bad = invalid_verdicts(log, seat)
        if bad:
            problems.append(f"the python bot sent {len(bad)} invalid board(s): {bad[:3]}")
        suite.check_replay(problems, log)
        detail = (f"winner {names_of(r)}, ending {details.get('ending')}, boards "
                  f"[{timeline_text(r)}], {run.seconds:.2f} s, replay identical")
    suite.report(name, problems, detail)


def write_word_list(path):
    """A word list the test makes itself: scowl's english-words up to size 60, one a line,
    lower-case, with a few lines the dictionary must skip."""
    words = []
    for size in (10, 20, 35, 40, 50, 55, 60):
        p = f"/usr/share/dict/scowl/english-words.{size}"
        if os.path.exists(p):
            with open(p, encoding="latin-1") as f:
                words += [w.strip() for w in f]
    with open(path, "w", encoding="latin-1") as f:
        f.write("don't\nx\n")
        for w in words:
            f.write(w + "\n")
    return len(words)


# ---------------------------------------------------------------------------------------------
# b. 2 to 8 house solvers

def check_many(suite, n, seed):
    name = f"b. {n} solvers, seed {seed}"
    log = suite.path(f"many{n}.jsonl")
    players = [(f"p{i}", "solver") for i in range(n)]
    run = suite.play(players, seed, QUICK, log)
    problems = []
    detail = ""
    if run.problem():
        problems.append(run.problem())
    else:
        r = run.result
        if len(r.get("winners", [])) != 1:
            problems.append(f"winners {r.get('winners')}, expected one")
        if r.get("ejections"):
            problems.append(f"ejections {r['ejections']}")
        if len(r.get("scores", [])) != n:
            problems.append(f"scores {r.get('scores')} do not cover {n} seats")
        elif r.get("winners") and r.get("details", {}).get("ending") == "won" and \
                r["scores"][r["winners"][0]] != 15:
            problems.append(f"won without a full board: scores {r['scores']}")
        suite.check_replay(problems, log)
        detail = (f"winner {names_of(r)}, ending {r.get('details', {}).get('ending')}, "
                  f"scores {r.get('scores')}, replay identical")
    suite.report(name, problems, detail)


def check_text_winner(suite, n, seed):
    """The human-readable output names the winner."""
    name = f"b. {n} solvers, seed {seed}, text output"
    run = suite.play([(f"p{i}", "solver") for i in range(n)], seed, QUICK, text=True)
    problems = []
    lines = run.out.splitlines()
    winner = [line for line in lines if line.startswith("winners:")]
    if run.rc != 0:
        problems.append(f"exit {run.rc}: {run.err.strip()[-300:]}")
    elif not winner or not winner[0].split(":", 1)[1].strip():
        problems.append(f"no winner printed: {run.out[:300]!r}")
    suite.report(name, problems, winner[0] if winner else "")


# ---------------------------------------------------------------------------------------------
# c. fast beats slow

def check_fast_slow(suite, seed, fast_seat):
    name = f"c. solver at seat {fast_seat} vs slow=0.2, seed {seed}"
    players = [("slow", "slow=0.2")]
    players.insert(fast_seat, ("fast", "solver"))
    run = suite.play(players, seed, QUICK)
    problems = []
    detail = ""
    if run.problem():
        problems.append(run.problem())
    else:
        r = run.result
        if r.get("winners") != [fast_seat]:
            problems.append(f"winners {names_of(r)} (scores {r.get('scores')}, "
                            f"{timeline_text(r)}), expected fast")
        detail = f"fast won, scores {r.get('scores')}, ending {r['details'].get('ending')}"
    suite.report(name, problems, detail)


# ---------------------------------------------------------------------------------------------
# d. misbehaving players

class ZooCase:
    def __init__(self, mode, why=None, detail=None, config=None, extra="", seat=0, players=2):
        self.mode, self.why, self.detail, self.config, self.extra = \
            mode, why, detail, config, extra
        self.seat = seat
        self.players = players


def zoo_cases():
    return [
        ZooCase("garbage", "malformed", "malformed JSON"),
        ZooCase("garbage", "malformed", "malformed JSON", seat=1),
        ZooCase("not-submit", "malformed", 'expected a "submit" message'),
        ZooCase("not-submit", "malformed", 'expected a "submit" message', seat=1),
        ZooCase("bad-board", "malformed", "a board must be"),
        ZooCase("flood", "foul", "flood: "),
        ZooCase("flood", "foul", "flood: ", seat=1),
        ZooCase("invalid", "foul", "too-many-invalid: ", {"max_invalid": 3}, " --count 4"),
        ZooCase("invalid", "foul", "too-many-invalid: ", {"max_invalid": 3}, " --count 4",
                seat=1),
        ZooCase("invalid", None, None, {"max_invalid": 3}, " --count 3"),  # at the limit: ok
        ZooCase("oversized", "malformed", "larger than 1024", {"max_bytes": 1024},
                " --size 2000"),
        ZooCase("oversized", "malformed", "larger than 1024", {"max_bytes": 1024},
                " --size 2000", seat=1),
        ZooCase("exit", "hang-up", None),
        ZooCase("exit", "hang-up", None, seat=1),
        ZooCase("close-stdout", "hang-up", None),
        ZooCase("quiet", None, None),
        ZooCase("stale", None, None),
        # Three seats, the zoo in the middle: the others play on, the faster one wins.
        ZooCase("flood", "foul", "flood: ", seat=1, players=3),
        ZooCase("garbage", "malformed", "malformed JSON", seat=1, players=3),
    ]


def zoo_alive(pid):
    return procs.running(pid, b'speed_scrabble_zoo')


def check_zoo(suite, case, seed):
    label = case.mode + case.extra
    if case.config:
        label += " " + json.dumps(case.config, separators=(",", ":"))
    name = f"d. {label} at seat {case.seat} of {case.players}"
    pid_file = suite.path("zoo.pids")
    log = suite.path("zoo.jsonl")
    players = [("h", ZOO_HOUSE)] if case.players == 2 else [("h", ZOO_HOUSE), ("s", "slow=5")]
    winner = "h"
    players.insert(case.seat, ("z", suite.zoo(case.mode, pid_file, case.extra)))
    cfg = dict(QUICK)
    cfg.update(case.config or {})
    run = suite.play(players, seed, cfg, log, timeout=60)
    problems = []
    detail = ""
    if run.problem():
        problems.append(run.problem())
    else:
        r = run.result
        ejections = r.get("ejections", [])
        if case.why is None:
            if ejections:
                problems.append(f"unexpected ejections {ejections}")
            detail = "not ejected"
        else:
            got = [(e.get("seat"), e.get("why")) for e in ejections]
            if got != [(case.seat, case.why)]:
                problems.append(f"ejections {ejections}, expected seat {case.seat} {case.why}")
            elif case.detail and case.detail not in ejections[0].get("detail", ""):
                problems.append(f"detail {ejections[0].get('detail')!r} does not say "
                                f"{case.detail!r}")
            if ejections:
                e = ejections[0]
                detail = f"{e.get('why')} ({e.get('call')}: {e.get('detail', '')[:60]})"
        if names_of(r) != [winner]:
            problems.append(f"winners {names_of(r)}, expected {winner} ({timeline_text(r)}, "
                            f"ending {r.get('details', {}).get('ending')})")
        elif r["details"].get("ending") != "won":
            problems.append(f"ending {r['details'].get('ending')}, expected won")
        suite.check_replay(problems, log)
        detail += f"; {winner} won, {run.seconds:.2f} s, replay identical"
    pids = []
    if os.path.exists(pid_file):
        with open(pid_file) as f:
            pids = [int(x) for x in f if x.strip()]
    if not pids:
        problems.append("the zoo never started (no pid recorded)")
    until = time.monotonic() + 1
    left = pids
    while left and time.monotonic() < until:
        time.sleep(0.05)
        left = [p for p in left if zoo_alive(p)]
    if left:
        problems.append(f"zoo processes {left} outlived arbiter")
        for pid in left:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
    suite.report(name, problems, detail)


# ---------------------------------------------------------------------------------------------
# e. fairness

def check_fairness(suite, pool):
    runs = list(pool.map(lambda s: suite.play([("a", "solver"), ("b", "solver")], s, QUICK),
                         FAIR_SEEDS))
    problems = []
    wins = [0, 0]
    undecided = 0
    for seed, run in zip(FAIR_SEEDS, runs):
        if run.problem():
            problems.append(f"seed {seed}: {run.problem()}")
            continue
        w = run.result.get("winners", [])
        if run.result.get("ejections"):
            problems.append(f"seed {seed}: ejections {run.result['ejections']}")
        if len(w) == 1:
            wins[w[0]] += 1
        else:
            undecided += 1
    decided = sum(wins)
    split = (f"seat 0 won {wins[0]}, seat 1 won {wins[1]} of {len(FAIR_SEEDS)} seeds "
             f"({100 * wins[0] / max(decided, 1):.0f}% / {100 * wins[1] / max(decided, 1):.0f}%)"
             f", {undecided} without a winner")
    if decided < len(FAIR_SEEDS) // 2:
        problems.append(f"only {decided} games had a winner: {split}")
    elif min(wins) < MIN_SHARE * decided:
        problems.append(f"lopsided: {split} (each seat should win at least "
                        f"{100 * MIN_SHARE:.0f}%)")
    suite.report(f"e. fairness, solver vs solver, seeds {FAIR_SEEDS[0]}..{FAIR_SEEDS[-1]}",
                 problems, split)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--bot", required=True, help="bots/python/speed_scrabble_bot.py")
    ap.add_argument("--zoo", help="tests/misbehaving/speed_scrabble_zoo.py (default: next to "
                                  "this script's ../misbehaving)")
    ap.add_argument("--only", help="run only the checks whose letters are given, e.g. ad")
    ap.add_argument("--jobs", type=int, default=2, help="games at once for CPU-bound checks")
    args = ap.parse_args()
    args.arbiter = os.path.abspath(args.arbiter)
    args.bot = os.path.abspath(args.bot)
    if not args.zoo:
        args.zoo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "misbehaving",
                                "speed_scrabble_zoo.py")
    args.zoo = os.path.abspath(args.zoo)
    for p in (args.bot, args.zoo, args.python):
        if " " in p:
            print(f"paths must not contain spaces (cmd: splits at spaces): {p}")
            return 2
    only = set(args.only or "abcde")
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ss-e2e-") as tmp:
        suite = Suite(args, tmp)
        if "d" in only:
            listed = subprocess.run([args.python, args.zoo, "--list"], capture_output=True,
                                    text=True, check=True).stdout.split()
            zoo_modes = dict(zip(listed[0::2], listed[1::2]))
            problems = []
            for case in zoo_cases():  # (controls may hold a misbehaviour below its limit)
                if case.why and zoo_modes.get(case.mode) != case.why:
                    problems.append(f"{case.mode}: the zoo expects {zoo_modes.get(case.mode)}, "
                                    f"the case {case.why}")
            untested = set(zoo_modes) - {case.mode for case in zoo_cases()}
            if untested:
                problems.append(f"zoo modes without a case: {sorted(untested)}")
            suite.report("d. the zoo's modes and the cases agree", problems,
                         f"{len(zoo_modes)} modes")
        # a and d mostly wait (slow house bots, sleeping zoos): run them side by side.
        with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
            jobs = []
            if "a" in only:
                words = os.path.join(tmp, "words.txt")
                write_word_list(words)
                jobs += [pool.submit(check_python_bot, suite, 0, 1),
                         pool.submit(check_python_bot, suite, 1, 2),
                         pool.submit(check_python_bot, suite, 1, 1, "slow=1",
                                     {"dictionary": words}, ", a word-list file")]
            if "d" in only:
                jobs += [pool.submit(check_zoo, suite, case, ZOO_SEED) for case in zoo_cases()]
            for j in jobs:
                j.result()
        # b, c and e keep the CPUs busy: as many games at once as there are cores to spare.
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            jobs = []
            if "b" in only:
                jobs += [pool.submit(check_many, suite, n, 10 + n) for n in range(2, 9)]
                jobs.append(pool.submit(check_text_winner, suite, 3, 7))
            if "c" in only:
                jobs += [pool.submit(check_fast_slow, suite, seed, seat)
                         for seed in FAST_SLOW_SEEDS for seat in (0, 1)]
            for j in jobs:
                j.result()
            if "e" in only:
                check_fairness(suite, pool)
    print(f"{suite.passed} passed, {suite.failed} failed in {time.monotonic() - start:.1f} s")
    return 1 if suite.failed else 0


if __name__ == "__main__":
    sys.exit(main())
