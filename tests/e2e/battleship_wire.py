#!/usr/bin/env python3
"""End-to-end: Battleship's misbehaving players over the wire. Every mode of
tests/misbehaving/battleship_zoo.py plays `arbiter play battleship --json` against a house bot,
in both seat orders (zoo at seat 1, then at seat 0), as a `cmd:` seat. For each case it checks
that arbiter exits 0 with a result, that the zoo seat is ejected once, with the expected reason,
during the expected call (and, for fouls, with the expected foul code), that the house bot is the
only winner, that the match finished quickly, and that no zoo process outlived arbiter. Control
modes (well-behaved, or behaving in ways the protocol accepts) must finish without an ejection.

Prints one line per case and "N passed, M failed" last; exits 1 on any failure.
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

FAST = "1.0"    # --per-call for the cases that end in a timeout (a Python start under a
                # loaded CI machine must fit in it)
NORMAL = "3"    # --per-call for the others (a regression to a hang still shows, as slowness)
WALL = 4.0      # seconds any case may take, whole arbiter run included
FLEET = 17      # cells of the default fleet [5, 4, 3, 3, 2]

NO_TOUCH = {"no_touch": True}
SALVO = {"salvo": True}


class Case:
    def __init__(self, mode, why=None, call=None, code=None, config=None, turn=None, note=""):
        self.mode = mode
        self.why = why          # the expected ejection reason, None: no ejection
        self.call = call        # the call it happens during
        self.code = code        # the expected foul code (fouls only)
        self.config = config
        self.turn = turn        # --turn K for the zoo
        self.note = note

    def label(self):
        out = self.mode
        if self.config:
            out += " " + json.dumps(self.config, separators=(",", ":"))
        if self.turn:
            out += f" turn {self.turn}"
        return out


def foul(mode, call, code, **kw):
    return Case(mode, "foul", call, code, **kw)


def malformed(mode, call, **kw):
    return Case(mode, "malformed", call, **kw)


def cases():
    out = []
    # Setup: placements the rules reject (foul bad-fleet).
    for mode in ["setup-overlap", "setup-off-grid", "setup-off-grid-vertical", "setup-negative",
                 "setup-far", "setup-missing-ship", "setup-extra-ship", "setup-wrong-length",
                 "setup-empty"]:
        out.append(foul(mode, "setup", "bad-fleet"))
    for mode in ["setup-touch-side", "setup-touch-diagonal"]:
        out.append(foul(mode, "setup", "bad-fleet", config=NO_TOUCH))
        out.append(Case(mode, note="ships may touch without no_touch"))
    # Setup: answers that are not a Placement.
    for mode in ["setup-string", "setup-void", "setup-null", "setup-object", "setup-nested",
                 "setup-missing-dir", "setup-missing-length", "setup-bad-dir", "setup-upper-dir",
                 "setup-float-row", "setup-fraction-col", "setup-string-row", "setup-bool-col",
                 "setup-length-zero", "setup-huge-row", "setup-extra-field", "setup-garbage",
                 "setup-truncated", "setup-huge-line"]:
        out.append(malformed(mode, "setup"))
    # Setup: the channel.
    out += [Case("setup-hang", "timeout", "setup"),
            Case("setup-late", "timeout", "setup"),
            Case("setup-no-newline", "timeout", "setup"),
            Case("setup-exit", "hang-up", "setup"),
            Case("setup-crash", "hang-up", "setup"),
            Case("setup-abort", "hang-up", "setup"),
            Case("setup-close-stdout", "hang-up", "setup")]
    # Turns: shots the rules reject.
    out += [foul("turn-off-grid-row", "take_turn", "off-grid"),
            foul("turn-off-grid-col", "take_turn", "off-grid"),
            foul("turn-negative", "take_turn", "off-grid"),
            foul("turn-far", "take_turn", "off-grid"),
            foul("turn-repeat", "take_turn", "repeat-shot"),
            foul("turn-repeat", "take_turn", "repeat-shot", turn=12),
            foul("turn-list-two", "take_turn", "wrong-shot-count"),
            foul("turn-list-same-twice", "take_turn", "wrong-shot-count"),
            foul("turn-empty-list", "take_turn", "wrong-shot-count"),
            foul("turn-off-grid-row", "take_turn", "off-grid", turn=1)]
    # Turns: answers that are not a Shot.
    for mode in ["turn-string", "turn-void", "turn-null", "turn-number", "turn-pair",
                 "turn-missing-col", "turn-missing-row", "turn-extra-field", "turn-x-y",
                 "turn-float", "turn-fraction", "turn-exponent", "turn-huge", "turn-huge-int",
                 "turn-min-int", "turn-string-coords", "turn-bool", "turn-list-bad-element",
                 "turn-deep", "turn-nan", "turn-garbage", "turn-truncated", "turn-two-values",
                 "turn-huge-line", "turn-flood", "turn-nul", "turn-nul-end"]:
        out.append(malformed(mode, "take_turn"))
    # An answer written before its call: the next call finds it waiting.
    out += [foul("turn-early", "take_turn", "unsolicited"),
            foul("turn-early", "take_turn", "unsolicited", turn=1)]
    # Turns: the channel.
    out += [Case("turn-hang", "timeout", "take_turn", turn=1),
            Case("turn-hang", "timeout", "take_turn", turn=5),
            Case("turn-late", "timeout", "take_turn"),
            Case("turn-no-newline", "timeout", "take_turn"),
            Case("turn-exit", "hang-up", "take_turn"),
            Case("turn-exit", "hang-up", "take_turn", turn=1),
            Case("turn-crash", "hang-up", "take_turn"),
            Case("turn-abort", "hang-up", "take_turn"),
            Case("turn-segv", "hang-up", "take_turn"),
            Case("turn-self-term", "hang-up", "take_turn"),
            Case("turn-close-stdout", "hang-up", "take_turn"),
            Case("turn-close-stdout", "hang-up", "take_turn", turn=7)]
    # Salvo mode.
    out += [foul("salvo-too-many", "take_turn", "wrong-shot-count", config=SALVO),
            foul("salvo-too-few", "take_turn", "wrong-shot-count", config=SALVO),
            foul("salvo-empty", "take_turn", "wrong-shot-count", config=SALVO),
            foul("salvo-bare-shot", "take_turn", "wrong-shot-count", config=SALVO),
            foul("salvo-duplicate", "take_turn", "repeat-shot", config=SALVO),
            foul("salvo-repeat", "take_turn", "repeat-shot", config=SALVO),
            foul("salvo-off-grid", "take_turn", "off-grid", config=SALVO),
            malformed("salvo-bad-element", "take_turn", config=SALVO),
            # a list of one shot where one is due: the codec accepts it (protocol.md)
            Case("list-one"),
            # a list of two where five are due
            foul("turn-list-two", "take_turn", "wrong-shot-count", config=SALVO)]
    # The win call: the house bot has won already; the zoo loses and answers win badly.
    out += [malformed("win-wrong", "win"),
            malformed("win-null", "win"),
            malformed("win-bare-void", "win"),
            malformed("win-list", "win"),
            Case("win-hang", "timeout", "win"),
            Case("win-exit", "hang-up", "win")]
    # Controls: no ejection.
    out += [Case("good"),
            Case("good", config=NO_TOUCH),
            Case("good", config=SALVO),
            Case("good", config={"announce_sunk": False}),
            Case("linger"),
            Case("chatter"),
            Case("blank-lines"),
            Case("big-ok"),
            Case("good", config={"max_turns": 20})]
    return out


class Run:
    def __init__(self, rc, out, err, seconds, note=""):
        self.rc, self.out, self.err, self.seconds, self.note = rc, out, err, seconds, note
        self.result = None
        try:
            self.result = json.loads(out)
        except ValueError:
            pass


class Suite(procs.Tally):
    def __init__(self, args):
        super().__init__(show_ok=True)
        self.args = args

    def play(self, mode, zoo_seat, house, seed, config, per_call, turn, pid_file):
        zoo = f"cmd:{self.args.python} {self.args.zoo} --mode {mode} --pid-file {pid_file}"
        if turn:
            zoo += f" --turn {turn}"
        seats = [("h", house), ("z", zoo)]
        if zoo_seat == 0:
            seats.reverse()
        cmd = [self.args.arbiter, "play", "battleship", "--seed", str(seed), "--json",
               "--per-call", per_call, *UNWALLED]
        for name, bot in seats:
            cmd += ["--player", f"{name}:{bot}"]
        if config:
            cmd += ["--config", json.dumps(config)]
        start = time.monotonic()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            return Run(None, "", "", time.monotonic() - start, "arbiter did not finish in 30 s")
        return Run(p.returncode, p.stdout, p.stderr, time.monotonic() - start)


    def survivors(self, pid_file):
        return procs.survivors(pid_file, b"battleship_zoo")

    def case(self, case, zoo_seat, seed):
        house_seat = 1 - zoo_seat
        # The zoo is seat 0 (moves first) or seat 1; house bots vary where the game ends early.
        ends_early = case.why is not None and case.call != "win"
        house = "density" if not ends_early or zoo_seat == 1 else "hunt+evasive"
        per_call = FAST if case.why == "timeout" else NORMAL
        name = f"{case.label()} / zoo seat {zoo_seat} vs {house} / seed {seed}"
        with tempfile.TemporaryDirectory(prefix="bs-zoo-") as tmp:
            pid_file = os.path.join(tmp, "zoo.pids")
            run = self.play(case.mode, zoo_seat, house, seed, case.config, per_call, case.turn,
                            pid_file)
            problems = self.check(case, run, zoo_seat, house_seat)
            pids, left = self.survivors(pid_file)
            # A zoo meant to time out at setup may be killed before Python gets to record its
            # pid on a loaded machine; every other case must have started.
            if not pids and not (case.why == "timeout" and case.call == "setup"):
                problems.append("the zoo never started (no pid recorded)")
            if left:
                problems.append(f"zoo processes {left} outlived arbiter")
                for pid in left:
                    try:
                        os.kill(pid, 9)
                    except OSError:
                        pass
        detail = f"{run.seconds:.2f} s"
        if run.result:
            ej = run.result.get("ejections") or []
            if ej:
                detail = (f"{ej[0].get('why')} during {ej[0].get('call')} "
                          f"({ej[0].get('detail', '')[:70]}), {detail}")
            else:
                detail = f"no ejection, scores {run.result.get('scores')}, {detail}"
        self.report(name, problems, detail)

    def check(self, case, run, zoo_seat, house_seat):
        if run.note:
            return [run.note]
        if run.rc != 0:
            return [f"exit {run.rc}: {run.err.strip()[-300:]}"]
        r = run.result
        if not isinstance(r, dict) or r.get("type") != "result":
            return [f"stdout is not a JSON result: {run.out[:200]!r}"]
        problems = []
        names = ["z", "h"] if zoo_seat == 0 else ["h", "z"]
        if r.get("names") != names:
            problems.append(f"names {r.get('names')} != {names}")
        if r.get("aborted"):
            problems.append("match aborted")
        scores = r.get("scores")
        if not isinstance(scores, list) or len(scores) != 2:
            problems.append(f"scores {scores} do not cover the 2 seats")
            return problems
        ejections = r.get("ejections")
        winners = r.get("winners")
        if case.why is None:
            if ejections:
                problems.append(f"unexpected ejections {ejections}")
            if not winners:
                problems.append("no winner")
            max_turns = (case.config or {}).get("max_turns")
            if max_turns is None:
                # Played to the end: the winner sank the whole fleet.
                if max(scores) != FLEET:
                    problems.append(f"scores {scores}: nobody sank the fleet")
                elif winners != [scores.index(FLEET)]:
                    problems.append(f"winners {winners} but scores {scores}")
            else:
                # Possibly ended by the turn limit: more hits win, equal hits draw.
                if FLEET not in scores:
                    expect = [0, 1] if scores[0] == scores[1] else [scores.index(max(scores))]
                    if winners != expect:
                        problems.append(f"winners {winners}, expected {expect} by hits {scores}")
        else:
            if not isinstance(ejections, list) or len(ejections) != 1:
                problems.append(f"ejections {ejections}, expected one {case.why} during "
                                f"{case.call}")
            else:
                e = ejections[0]
                got = (e.get("seat"), e.get("why"), e.get("call"))
                want = (zoo_seat, case.why, case.call)
                if got != want:
                    problems.append(f"ejected seat {got[0]} with {got[1]} during {got[2]} "
                                    f"({e.get('detail')}), expected seat {want[0]} with {want[1]} "
                                    f"during {want[2]}")
                if case.code and not str(e.get("detail", "")).startswith(case.code + ": "):
                    problems.append(f"detail {e.get('detail')!r} does not name foul {case.code}")
                if not e.get("detail"):
                    problems.append("the ejection has no detail")
            if case.call == "win":
                # The game was over: the zoo is told win(false) when the house bot sank its
                # fleet first, and is then ejected. Should the zoo have won the game itself
                # (possible, the seeds are fixed but bots evolve), its failed win(true) leaves
                # no winner at all (a winner whose win call fails is no winner).
                if max(scores) != FLEET:
                    problems.append(f"scores {scores}: the game did not end with a sunk fleet")
                elif scores.index(FLEET) == house_seat and winners != [house_seat]:
                    problems.append(f"winners {winners}, expected the house bot "
                                    f"(seat {house_seat}), which sank the fleet")
                elif scores.index(FLEET) == zoo_seat and winners != []:
                    problems.append(f"winners {winners}: the zoo won the game but failed its "
                                    f"win call, so no winner was expected")
            elif winners != [house_seat]:
                problems.append(f"winners {winners}, expected the house bot (seat {house_seat})")
            if case.call == "setup" and scores != [0, 0]:
                problems.append(f"scores {scores} after an ejection at setup")
        if run.seconds > WALL:
            problems.append(f"took {run.seconds:.2f} s (limit {WALL} s)")
        return problems

    def searched_case(self, what, zoo_seat, house, config, want, seeds):
        """win-wrong in a game whose outcome is picked by seed: the first seed in `seeds` whose
        well-behaved game (mode good) ends with winners `want(zoo_seat)`. The zoo then answers
        win(true) wrongly: it is ejected (malformed, during win) and is no winner; the scores are
        those of the well-behaved game."""
        house_seat = 1 - zoo_seat
        expected = want(zoo_seat)
        name = f"win-wrong {what}"
        if config:
            name += " " + json.dumps(config, separators=(",", ":"))
        name += f" / zoo seat {zoo_seat} vs {house}"
        problems = []
        detail = ""
        with tempfile.TemporaryDirectory(prefix="bs-zoo-") as tmp:
            pid_file = os.path.join(tmp, "zoo.pids")
            seed = ref = None
            for s in seeds:
                ref = self.play("good", zoo_seat, house, s, config, NORMAL, None, pid_file)
                if ref.result and ref.result.get("winners") == expected:
                    seed = s
                    break
            if seed is None:
                problems.append(f"no seed in {seeds[0]}..{seeds[-1]} gives winners {expected}")
            else:
                name += f" / seed {seed}"
                if ref.result.get("ejections"):
                    problems.append(f"the well-behaved game had ejections: {ref.out.strip()}")
                run = self.play("win-wrong", zoo_seat, house, seed, config, NORMAL, None, pid_file)
                if run.rc != 0 or not isinstance(run.result, dict):
                    problems.append(f"exit {run.rc}: {run.note or run.err.strip()[-300:]}")
                else:
                    r = run.result
                    e = r.get("ejections") or []
                    if [(x.get("seat"), x.get("why"), x.get("call")) for x in e] != \
                            [(zoo_seat, "malformed", "win")]:
                        problems.append(f"ejections {e}, expected the zoo's malformed win")
                    remaining = [w for w in expected if w != zoo_seat]
                    if r.get("winners") != remaining:
                        problems.append(f"winners {r.get('winners')}, expected {remaining}")
                    if r.get("scores") != ref.result.get("scores"):
                        problems.append(f"scores {r.get('scores')} != the well-behaved game's "
                                        f"{ref.result.get('scores')}")
                    detail = f"winners {r.get('winners')}, scores {r.get('scores')}, " \
                             f"{run.seconds:.2f} s"
                    if run.seconds > WALL:
                        problems.append(f"took {run.seconds:.2f} s (limit {WALL} s)")
            pids, left = self.survivors(pid_file)
            if left:
                problems.append(f"zoo processes {left} outlived arbiter")
        self.report(name, problems, detail)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--zoo", required=True, help="tests/misbehaving/battleship_zoo.py")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--only", help="run only the modes containing this text")
    args = ap.parse_args()
    args.zoo = os.path.abspath(args.zoo)
    args.arbiter = os.path.abspath(args.arbiter)
    if " " in args.zoo or " " in args.python:
        print("the zoo and python paths must not contain spaces (cmd: splits at spaces)")
        return 2
    listed = subprocess.run([args.python, args.zoo, "--list"], capture_output=True, text=True,
                            check=True).stdout.split()
    zoo_modes = set(listed[0::2])
    suite = Suite(args)
    all_cases = cases()
    unknown = {c.mode for c in all_cases} - zoo_modes
    untested = zoo_modes - {c.mode for c in all_cases}
    if unknown or untested:
        print(f"FAIL the case list and the zoo disagree: unknown {sorted(unknown)}, "
              f"untested {sorted(untested)}")
        return 1
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        jobs = []
        for i, case in enumerate(all_cases):
            if args.only and args.only not in case.mode:
                continue
            for zoo_seat in (1, 0):
                jobs.append(pool.submit(suite.case, case, zoo_seat, 100 + i))
        if not args.only or args.only in "win-wrong":
            for zoo_seat in (1, 0):
                # A draw by the turn limit (both first shots miss): both seats are winners.
                jobs.append(pool.submit(suite.searched_case, "in a draw", zoo_seat, "density",
                                        {"max_turns": 1}, lambda z: [0, 1], range(1, 40)))
                # The zoo sinks the house bot's fleet first (against the random shooter, which
                # is about as slow as the zoo's row-by-row fire).
                jobs.append(pool.submit(suite.searched_case, "by the game's winner", zoo_seat,
                                        "random", None, lambda z: [z], range(300, 360)))
        for job in jobs:
            job.result()
    print(f"{suite.passed} passed, {suite.failed} failed, {time.monotonic() - start:.1f} s",
          flush=True)
    return 1 if suite.failed else 0


if __name__ == "__main__":
    sys.exit(main())
