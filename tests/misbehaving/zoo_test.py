#!/usr/bin/env python3
"""The misbehaving zoo against `arbiter play q`: every zoo-bot mode over every transport where it
applies (stdio as `cmd:` seat, TCP as a `tcp` seat), each in a 3-player match a:dag, z:ZOO,
b:ldasg. Checks that arbiter exits 0, ejects z for the expected reason during the expected call,
completes the match, and that a's and b's results (winners, scores) are exactly those of a
reference match in which z is the in-process bad actor dag+raise=METHOD: Q treats every ejection
alike, whatever its reason. stderr-flood must not be ejected at all, must match a well-behaved
zoo-bot's match and have its stderr log capped at 1 MiB. Prints one line per failing case and
"N passed, M failed" last (with --verbose also one line per passing case)."""
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

PER_CALL = "0.3"
STDERR_CAP = 1 << 20

# mode -> (expected reason or None for "not ejected", the call it fails during)
EXPECTED = {
    "good": (None, None),
    "silent": ("timeout", "take_turn"),
    "exit-now": ("hang-up", "setup"),
    "crash-mid": ("hang-up", "take_turn"),
    "loop": ("timeout", "take_turn"),
    "late": ("timeout", "take_turn"),
    "garbage": ("malformed", "take_turn"),
    "huge-line": ("malformed", "take_turn"),
    "no-newline": ("timeout", "take_turn"),
    "illegal": ("foul", "take_turn"),
    "stderr-flood": (None, None),
    "close-stdout": ("hang-up", "take_turn"),
    "fork-exit": ("hang-up", "take_turn"),
    "ignore-sigterm": ("timeout", "take_turn"),
    "stall": ("timeout", "setup"),
    "half-close": ("hang-up", "setup"),
}
BOTH = ["silent", "crash-mid", "loop", "late", "garbage", "huge-line", "no-newline", "illegal"]
STDIO = BOTH + ["good", "exit-now", "stderr-flood", "close-stdout", "fork-exit", "ignore-sigterm"]
TCP = BOTH + ["stall", "half-close"]
# TCP bots that read until the referee closes the connection and so must exit by themselves.
TCP_EXITS_ON_ITS_OWN = {"silent", "late", "garbage", "huge-line", "no-newline", "illegal", "stall",
                        "half-close"}


def base_cmd(arbiter, z_bot, seed):
    return [arbiter, "play", "q", "--player", "a:dag", "--player", "z:" + z_bot, "--player",
            "b:ldasg", "--seed", str(seed), "--per-call", PER_CALL, "--json", *UNWALLED,
            # stderr-flood checks that a chatty stderr never blocks the referee, not the cap
            # (the cap's verdict, output-limit, is checked by sandbox_e2e.py).
            "--output", "none"]


class Run:
    def __init__(self, rc, out, err, seconds, note=""):
        self.rc, self.out, self.err, self.seconds, self.note = rc, out, err, seconds, note
        self.result = None
        try:
            self.result = json.loads(out)
        except ValueError:
            pass


def run_stdio(cmd, timeout=30):
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Run(None, "", "", time.monotonic() - start, "arbiter did not finish")
    return Run(p.returncode, p.stdout, p.stderr, time.monotonic() - start)


def run_tcp(arbiter, zoo, mode, seed, timeout=30):
    cmd = base_cmd(arbiter, "tcp", seed) + ["--listen", "127.0.0.1:0", "--accept-timeout", "10"]
    start = time.monotonic()
    ref = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(timeout, ref.kill)
    watchdog.start()
    bot = None
    note = ""
    try:
        # "arbiter: seat z is claimed with the token T", then "... waiting for 1 tcp player(s)
        # on port P"
        first = ref.stderr.readline() + ref.stderr.readline()
        token = first.split("\n")[0].rsplit(" ", 1)[-1]
        port = first.strip().rsplit(" ", 1)[-1]
        if "waiting for" in first and port.isdigit():
            bot = subprocess.Popen([zoo, mode, "--tcp", "127.0.0.1:" + port, "--token", token],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        out, err = ref.communicate()
        err = first + err
    finally:
        watchdog.cancel()
    seconds = time.monotonic() - start
    if bot is not None:
        try:
            bot.wait(timeout=2)
        except subprocess.TimeoutExpired:
            if mode in TCP_EXITS_ON_ITS_OWN:
                note = "the tcp bot was still connected 2 s after arbiter exited"
            bot.kill()
            bot.wait()
    run = Run(ref.returncode, out, err, seconds, note)
    if ref.returncode == -9:
        run.note = "arbiter did not finish"
    return run


def survivors(pid_file):
    """The zoo-bot processes (bots and their forked sleepers) recorded in `pid_file` that are
    still alive 1 s from now, zombies counting as dead."""
    pids = []
    if os.path.exists(pid_file):
        with open(pid_file) as f:
            pids = [int(line.split()[1]) for line in f if line.strip()]
    left = pids
    until = time.monotonic() + 1
    while left and time.monotonic() < until:
        time.sleep(0.05)
        left = [p for p in left if zoo_alive(p)]
    return left


def zoo_alive(pid):
    return procs.running(pid, b'zoo-bot')


def ejections_of(result, seat):
    return [e for e in result.get("ejections", []) if e.get("seat") == seat]


def compare_others(result, reference):
    """What differs for seats a (0) and b (2) between a match and its reference."""
    problems = []
    if result.get("winners") != reference.get("winners"):
        problems.append(f"winners {result.get('winners')} != reference {reference.get('winners')}")
    scores, ref_scores = result.get("scores", []), reference.get("scores", [])
    for seat in (0, 2):
        if len(scores) != 3 or len(ref_scores) != 3 or scores[seat] != ref_scores[seat]:
            problems.append(f"scores {scores} != reference {ref_scores}")
            break
    for seat in (0, 2):
        if ejections_of(result, seat) != ejections_of(reference, seat):
            problems.append(f"seat {seat} ejections differ from the reference")
    return problems


def check_complete(run):
    if run.rc != 0:
        return [f"exit {run.rc}: {run.note or run.err.strip()[-200:]}"]
    r = run.result
    if not isinstance(r, dict):
        return [f"stdout is not a JSON result: {run.out[:120]!r}"]
    problems = []
    if r.get("names") != ["a", "z", "b"]:
        problems.append(f"names {r.get('names')}")
    if r.get("aborted"):
        problems.append("match aborted")
    if len(r.get("scores", [])) != 3:
        problems.append(f"scores {r.get('scores')} do not cover the 3 seats")
    return problems


class Suite(procs.Tally):
    def __init__(self, args):
        super().__init__(show_ok=args.verbose)
        self.args = args
        self.references = {}
        self.lines = []

    def reference(self, key, cmd):
        with self.lock:
            if key in self.references:
                return self.references[key]
        run = run_stdio(cmd)
        with self.lock:
            self.references[key] = run
        return run

    def raise_reference(self, seed, method):
        return self.reference((seed, method),
                              base_cmd(self.args.arbiter, "dag+raise=" + method, seed))

    def good_reference(self, seed):
        return self.reference((seed, "good"), base_cmd(self.args.arbiter,
                                                       "cmd:" + self.args.zoo + " good", seed))


    def mode_case(self, mode, transport, seed):
        name = f"{mode}/{transport}/seed {seed}"
        why, call = EXPECTED[mode]
        tmp = None
        if transport == "stdio":
            # Every zoo-bot process records itself, so that none may outlive the match.
            tmp = tempfile.TemporaryDirectory(prefix="zoo-")
            z_bot = f"cmd:{self.args.zoo} {mode} --pid-file {tmp.name}/z.pids"
            cmd = base_cmd(self.args.arbiter, z_bot, seed)
            if mode == "stderr-flood":
                cmd += ["--stderr-dir", tmp.name]
            run = run_stdio(cmd)
        else:
            run = run_tcp(self.args.arbiter, self.args.zoo, mode, seed)
        problems = check_complete(run)
        detail = f"{run.seconds:.2f} s"
        if not problems:
            z_out = ejections_of(run.result, 1)
            if why is None:
                if z_out:
                    problems.append(f"z ejected: {z_out}")
                reference = self.good_reference(seed)
                if reference.result != run.result:
                    problems.append(f"result {run.out.strip()} != good bot's "
                                    f"{reference.out.strip()}")
                detail = f"not ejected, {detail}"
            else:
                if len(z_out) != 1:
                    problems.append(f"z ejections {z_out}, expected one {why} during {call}")
                else:
                    seen = z_out[0]
                    detail = f"{seen.get('why')} during {seen.get('call')} " \
                             f"({seen.get('detail', '')[:60]}), {detail}"
                    if (seen.get("why"), seen.get("call")) != (why, call):
                        problems.append(f"z ejected with {seen.get('why')} during "
                                        f"{seen.get('call')} ({seen.get('detail')}), expected "
                                        f"{why} during {call}")
                reference = self.raise_reference(seed, call.replace("_", "-"))
                if reference.result is None:
                    problems.append(f"reference run failed: {reference.err.strip()[-200:]}")
                else:
                    problems += compare_others(run.result, reference.result)
        if run.note:
            problems.append(run.note)
        if tmp is not None:
            left = survivors(os.path.join(tmp.name, "z.pids"))
            if left:
                problems.append(f"zoo-bot processes {left} outlived arbiter")
                for pid in left:
                    os.kill(pid, 9)
            if mode == "stderr-flood":
                log = os.path.join(tmp.name, "z.stderr")
                size = os.path.getsize(log) if os.path.exists(log) else None
                if size != STDERR_CAP:
                    problems.append(f"z.stderr holds {size} bytes, expected {STDERR_CAP}")
                else:
                    detail += f", z.stderr {size} bytes"
            tmp.cleanup()
        self.report(name, problems, detail)

    def missing_program_case(self, seed):
        name = "missing program (z:cmd:/nonexistent/bot)"
        run = run_stdio(base_cmd(self.args.arbiter, "cmd:/nonexistent/bot", seed))
        problems = []
        detail = ""
        if run.rc == 0:
            problems = check_complete(run)
            if not problems:
                z_out = ejections_of(run.result, 1)
                if len(z_out) != 1:
                    problems.append(f"exit 0 but z ejections {z_out}")
                else:
                    seen = z_out[0]
                    detail = f"ejected: {seen.get('why')} during {seen.get('call')} " \
                             f"({seen.get('detail')})"
                    reference = self.raise_reference(seed, seen.get("call", "").replace("_", "-"))
                    if reference.result is not None:
                        problems += compare_others(run.result, reference.result)
        else:
            lines = run.err.strip().splitlines()
            detail = f"exit {run.rc}: {run.err.strip()}"
            if run.rc is None or len(lines) != 1 or not lines[0].startswith("arbiter: "):
                problems.append(f"exit {run.rc} without a one-line message: {run.err!r}")
            if run.out:
                problems.append(f"printed {run.out!r} on stdout")
        self.report(name, problems, detail)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--zoo", required=True)
    ap.add_argument("--seeds", default="1,7", help="comma-separated match seeds")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    args.zoo = os.path.abspath(args.zoo)
    seeds = [int(s) for s in args.seeds.split(",")]
    suite = Suite(args)
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        jobs = [pool.submit(suite.mode_case, mode, transport, seed)
                for seed in seeds
                for transport, modes in (("stdio", STDIO), ("tcp", TCP))
                for mode in modes]
        jobs.append(pool.submit(suite.missing_program_case, seeds[0]))
        for job in jobs:
            job.result()
    if args.verbose:
        print(f"{time.monotonic() - start:.1f} s", flush=True)
    print(f"{suite.passed} passed, {suite.failed} failed", flush=True)
    return 1 if suite.failed else 0


if __name__ == "__main__":
    sys.exit(main())
