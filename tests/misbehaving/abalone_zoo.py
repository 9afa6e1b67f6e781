#!/usr/bin/env python3
"""abalone_zoo: a Concurrent Abalone team (standard library only) that speaks arbiter's §8
protocol over stdin/stdout (docs/protocol.md, docs/games/abalone.md §8) correctly except for one
chosen misbehaviour, picked with --mode. tests/e2e/abalone_e2e.py sets it loose.

When it behaves it is passive, so that the house team it plays wins every game: setup spawns no
piece (--spawn N to change that), and each take-turn commits direction 0 (stay) for each of its
own pieces, a valid answer that moves nothing. It answers "void" to win and exits after it.

A mode misbehaves at one call: setup, the K-th take-turn it receives (--turn K, default 2), or
win. `--list` prints every mode with its phase and the ejection it should get. --pid-file PATH
appends this process's PID as the machine sees it (also inside a PID namespace) so that a test
can check it did not outlive the referee.

Run it: arbiter play abalone --black simple --white "cmd:python3 tests/misbehaving/abalone_zoo.py --mode bad-dir"
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from zoo_io import machine_pid, write_raw  # noqa: E402

HUGE = 3 << 20  # bytes of the huge line: well over arbiter's 1 MiB message cap


def own_pids(view):
    return [p["pid"] for p in view["pieces"] if p["team"] == view["team"]]


def enemy_pids(view):
    return [p["pid"] for p in view["pieces"] if p["team"] != view["team"]]


def good_turn(view):
    return [{"pid": pid, "dir": 0} for pid in own_pids(view)]


# Each mode: (phase, expected verdict, what it answers). An answer is ("json", value),
# ("raw", bytes), ("sleep", seconds) or ("exit", code); a function of the call's view.
SETUP = {
    "too-many-spawns": ("foul", lambda v: ("json", 99)),
    "negative-spawns": ("foul", lambda v: ("json", -1)),
    "setup-string": ("malformed", lambda v: ("json", "13")),
    "timeout-setup": ("timeout", lambda v: ("sleep", 30.0)),
}
TURN = {
    "garbage": ("malformed", lambda v: ("raw", b"pushing everything off! {\n")),
    "wrong-shape": ("malformed", lambda v: ("json", {"pid": own_pids(v)[0], "dir": 1})),
    "not-own-piece": ("foul", lambda v: ("json", [{"pid": enemy_pids(v)[0], "dir": 1}])),
    "repeated-piece": ("foul", lambda v: ("json", [{"pid": own_pids(v)[0], "dir": 1},
                                                   {"pid": own_pids(v)[0], "dir": 2}])),
    "bad-dir": ("malformed", lambda v: ("json", [{"pid": own_pids(v)[0], "dir": 9}])),
    "timeout-turn": ("timeout", lambda v: ("sleep", 30.0)),
    "hang-up": ("hang-up", lambda v: ("exit", 0)),
    "huge-line": ("malformed", lambda v: ("raw", b"[" + b" " * HUGE + b"]\n")),
}
WIN = {
    "win-garbage": ("malformed", lambda v: ("raw", b"void?! \x00\xff\n")),
    "win-wrong": ("malformed", lambda v: ("json", "ok")),
}
OTHER = {
    "well-behaved": None,
}


def modes():
    """mode -> (phase, expected verdict or None)."""
    out = {m: ("setup", why) for m, (why, _) in SETUP.items()}
    out.update({m: ("take_turn", why) for m, (why, _) in TURN.items()})
    out.update({m: ("win", why) for m, (why, _) in WIN.items()})
    out.update({m: ("none", None) for m in OTHER})
    return out


def misbehave(answer, good):
    kind = answer[0]
    if kind == "json":
        write_raw((json.dumps(answer[1]) + "\n").encode())
    elif kind == "raw":
        write_raw(answer[1])
    elif kind == "sleep":
        time.sleep(answer[1])
        write_raw((json.dumps(good) + "\n").encode())
    elif kind == "exit":
        sys.stdout.flush()
        os._exit(answer[1])
    else:
        raise AssertionError(kind)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", default="well-behaved")
    ap.add_argument("--turn", type=int, default=2,
                    help="the take-turn call (from 1) to misbehave at (default 2)")
    ap.add_argument("--spawn", type=int, default=0, help="pieces to spawn when behaving")
    ap.add_argument("--pid-file")
    ap.add_argument("--list", action="store_true",
                    help="print every mode, its phase and its expected verdict")
    args = ap.parse_args()
    table = modes()
    if args.list:
        for mode, (phase, why) in table.items():
            print(mode, phase, why or "none")
        return 0
    if args.mode not in table:
        print(f"abalone_zoo: unknown mode {args.mode!r}", file=sys.stderr)
        return 2
    if args.pid_file:
        with open(args.pid_file, "a") as f:
            f.write(f"{machine_pid()}\n")
    mode = args.mode
    turns = 0
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        method, call_args = json.loads(line)
        if method == "setup":
            good = args.spawn
            if mode in SETUP:
                misbehave(SETUP[mode][1](call_args[0]), good)
                continue
        elif method == "take-turn":
            turns += 1
            view = call_args[0]
            good = good_turn(view)
            if mode in TURN and turns == args.turn:
                misbehave(TURN[mode][1](view), good)
                continue
        elif method == "win":
            good = "void"
            if mode in WIN:
                misbehave(WIN[mode][1](None), good)
                return 0
        else:
            good = "void"
        write_raw((json.dumps(good) + "\n").encode())
        if method == "win":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
