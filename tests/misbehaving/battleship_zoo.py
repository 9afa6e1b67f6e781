#!/usr/bin/env python3
"""battleship_zoo: a Battleship player (standard library only) that speaks arbiter's wire protocol
over stdin/stdout (docs/protocol.md, docs/games/battleship.md §3) correctly except for one
chosen misbehaviour, picked with --mode. tests/e2e/battleship_wire.py sets it loose.

When it behaves it places a fixed legal fleet (ship i, longest first, horizontally at row 2i,
column 0: legal with and without no_touch) and fires row by row at the cells it has not fired at,
as many shots as it owes (one, or in salvo mode one per own ship afloat). It answers "void" to win
and exits after it.

A mode misbehaves at one call: setup, the K-th take-turn it receives (--turn K, default 3), or
win; a few modes (list-one, linger, chatter) change every call and are meant to be accepted.
`--list` prints every mode with its phase. --pid-file PATH appends this process's PID as the
machine sees it (also inside a PID namespace) so that a test can check it did not outlive the
referee.
"""
import argparse
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from zoo_io import machine_pid, write_raw  # noqa: E402

CAP = 1 << 20  # arbiter's message cap, in bytes without the newline


# ---------------------------------------------------------------------------------------------
# Playing correctly

def ship_cells(ship):
    dr, dc = (0, 1) if ship["dir"] == "h" else (1, 0)
    return [(ship["row"] + i * dr, ship["col"] + i * dc) for i in range(ship["length"])]


def good_fleet(config):
    """Ship i (longest first) horizontally at row 2i, column 0; vertically at column 2i, row 0
    when the grid has too few rows."""
    lengths = sorted(config["ships"], reverse=True)
    if 2 * (len(lengths) - 1) < config["rows"] and max(lengths) <= config["cols"]:
        return [{"length": n, "row": 2 * i, "col": 0, "dir": "h"} for i, n in enumerate(lengths)]
    return [{"length": n, "row": 0, "col": 2 * i, "dir": "v"} for i, n in enumerate(lengths)]


def shots_due(view):
    config = view["config"]
    unfired = config["rows"] * config["cols"] - len(view["outgoing"])
    if not config.get("salvo", False):
        return 1
    hit = {(s["row"], s["col"]) for s in view["incoming"]}
    afloat = sum(1 for ship in view["fleet"] if not set(ship_cells(ship)) <= hit)
    return min(afloat, unfired)


def good_cells(view):
    """The cells to fire at: row by row, never fired at, as many as due."""
    config = view["config"]
    tried = {(s["row"], s["col"]) for s in view["outgoing"]}
    out = []
    for r in range(config["rows"]):
        for c in range(config["cols"]):
            if (r, c) not in tried:
                out.append({"row": r, "col": c})
                if len(out) == shots_due(view):
                    return out
    return out


def good_action(view):
    cells = good_cells(view)
    return cells if view["config"].get("salvo", False) else cells[0]


def next_unfired(view, skip):
    """A cell never fired at and not in `skip` (row by row from the end of the grid)."""
    config = view["config"]
    tried = {(s["row"], s["col"]) for s in view["outgoing"]} | {(s["row"], s["col"]) for s in skip}
    for r in reversed(range(config["rows"])):
        for c in reversed(range(config["cols"])):
            if (r, c) not in tried:
                return {"row": r, "col": c}
    raise RuntimeError("no cell left")


# ---------------------------------------------------------------------------------------------
# Misbehaviours. An answer is ("json", value), ("raw", bytes) or an action tuple:
# ("raw-hang", bytes) ("hang",) ("exit", code) ("abort",) ("segv",) ("close",) ("late", seconds)
# ("flood", size)

def fleet_with(config, **change):
    """The good fleet with ship 0's fields changed (None deletes a field)."""
    fleet = good_fleet(config)
    for key, value in change.items():
        if value is None:
            del fleet[0][key]
        else:
            fleet[0][key] = value
    return fleet


def setup_overlap(c):
    fleet = good_fleet(c)
    fleet[1].update(row=fleet[0]["row"], col=fleet[0]["col"] + 1, dir="h")
    return fleet


def setup_touch_side(c):
    fleet = good_fleet(c)  # ship 1 moves from row 2 to row 1, right under ship 0
    fleet[1].update(row=1, col=0, dir="h")
    return fleet


def setup_touch_diagonal(c):
    fleet = good_fleet(c)  # ship 1 moves to row 1, its left end diagonal to ship 0's right end
    fleet[1].update(row=1, col=fleet[0]["length"], dir="h")
    return fleet


def setup_extra_ship(c):
    return good_fleet(c) + [{"length": 2, "row": c["rows"] - 1, "col": c["cols"] - 2, "dir": "h"}]


def huge_line(value, size):
    """`value` as one line padded with spaces to `size` bytes before its newline."""
    text = json.dumps(value)
    return (text + " " * (size - len(text)) + "\n").encode()


SETUP = {
    # fouls: well-formed placements the rules reject (foul bad-fleet)
    "setup-overlap": lambda c: ("json", setup_overlap(c)),
    "setup-off-grid": lambda c: ("json", fleet_with(c, col=c["cols"] - 2)),
    "setup-off-grid-vertical": lambda c: ("json", fleet_with(c, row=c["rows"] - 2,
                                                             col=c["cols"] - 1, dir="v")),
    "setup-negative": lambda c: ("json", fleet_with(c, row=-1)),
    "setup-far": lambda c: ("json", fleet_with(c, row=999_999_999)),
    "setup-missing-ship": lambda c: ("json", good_fleet(c)[:-1]),
    "setup-extra-ship": lambda c: ("json", setup_extra_ship(c)),
    "setup-wrong-length": lambda c: ("json", fleet_with(c, length=c["ships"][0] + 1)),
    "setup-empty": lambda c: ("json", []),
    "setup-touch-side": lambda c: ("json", setup_touch_side(c)),
    "setup-touch-diagonal": lambda c: ("json", setup_touch_diagonal(c)),
    # malformed: not a Placement at all
    "setup-string": lambda c: ("json", "fleet"),
    "setup-void": lambda c: ("json", "void"),
    "setup-null": lambda c: ("json", None),
    "setup-object": lambda c: ("json", good_fleet(c)[0]),
    "setup-nested": lambda c: ("json", [good_fleet(c)]),
    "setup-missing-dir": lambda c: ("json", fleet_with(c, dir=None)),
    "setup-missing-length": lambda c: ("json", fleet_with(c, length=None)),
    "setup-bad-dir": lambda c: ("json", fleet_with(c, dir="x")),
    "setup-upper-dir": lambda c: ("json", fleet_with(c, dir="H")),
    "setup-float-row": lambda c: ("json", fleet_with(c, row=0.0)),
    "setup-fraction-col": lambda c: ("json", fleet_with(c, col=0.5)),
    "setup-string-row": lambda c: ("json", fleet_with(c, row="0")),
    "setup-bool-col": lambda c: ("json", fleet_with(c, col=False)),
    "setup-length-zero": lambda c: ("json", fleet_with(c, length=0)),
    "setup-huge-row": lambda c: ("json", fleet_with(c, row=10 ** 12)),
    "setup-extra-field": lambda c: ("json", fleet_with(c, name="carrier")),
    "setup-garbage": lambda c: ("raw", b"here is my fleet!\n"),
    "setup-truncated": lambda c: ("raw", b'[{"length": 5, "row": 0,\n'),
    # the channel
    "setup-hang": lambda c: ("hang",),
    "setup-late": lambda c: ("late", 5.0),
    "setup-no-newline": lambda c: ("raw-hang", json.dumps(good_fleet(c)).encode()),
    "setup-exit": lambda c: ("exit", 0),
    "setup-crash": lambda c: ("exit", 3),
    "setup-abort": lambda c: ("abort",),
    "setup-close-stdout": lambda c: ("close",),
    "setup-huge-line": lambda c: ("raw", huge_line(good_fleet(c), 2 * CAP)),
}


def first_shot(view):
    return good_cells(view)[0]


def two_shots(view):
    one = first_shot(view)
    return [one, next_unfired(view, [one])]


def salvo_plus(view, n):
    cells = good_cells(view)
    while n > 0:
        cells.append(next_unfired(view, cells))
        n -= 1
    return cells


def with_field(view, **change):
    shot = dict(first_shot(view))
    for key, value in change.items():
        if value is None:
            del shot[key]
        else:
            shot[key] = value
    return shot


def deep(n):
    v = {"row": 0, "col": 0}
    for _ in range(n):
        v = [v]
    return v


TURN = {
    # fouls: well-formed shots the rules reject
    "turn-off-grid-row": lambda v: ("json", with_field(v, row=v["config"]["rows"])),
    "turn-off-grid-col": lambda v: ("json", with_field(v, col=v["config"]["cols"])),
    "turn-negative": lambda v: ("json", with_field(v, col=-1)),
    "turn-far": lambda v: ("json", with_field(v, row=999_999_999)),
    "turn-repeat": lambda v: ("json", {"row": v["outgoing"][0]["row"], "col": v["outgoing"][0]["col"]}),
    "turn-list-two": lambda v: ("json", two_shots(v)),
    "turn-list-same-twice": lambda v: ("json", [first_shot(v), first_shot(v)]),
    "turn-empty-list": lambda v: ("json", []),
    # malformed: not a Shot (or list of Shots) at all
    "turn-string": lambda v: ("json", "A5"),
    "turn-void": lambda v: ("json", "void"),
    "turn-null": lambda v: ("json", None),
    "turn-number": lambda v: ("json", 42),
    "turn-pair": lambda v: ("json", [first_shot(v)["row"], first_shot(v)["col"]]),
    "turn-missing-col": lambda v: ("json", with_field(v, col=None)),
    "turn-missing-row": lambda v: ("json", with_field(v, row=None)),
    "turn-extra-field": lambda v: ("json", with_field(v, salvo=False)),
    "turn-x-y": lambda v: ("json", {"x": first_shot(v)["col"], "y": first_shot(v)["row"]}),
    "turn-float": lambda v: ("json", with_field(v, row=float(first_shot(v)["row"]))),
    "turn-fraction": lambda v: ("json", with_field(v, col=first_shot(v)["col"] + 0.5)),
    "turn-exponent": lambda v: ("raw", b'{"row": 1e0, "col": 0}\n'),
    "turn-huge": lambda v: ("json", with_field(v, row=10 ** 30)),
    "turn-huge-int": lambda v: ("json", with_field(v, col=2 ** 40)),
    "turn-min-int": lambda v: ("json", with_field(v, col=-(2 ** 63))),
    "turn-string-coords": lambda v: ("json", with_field(v, row=str(first_shot(v)["row"]))),
    "turn-bool": lambda v: ("json", with_field(v, row=True)),
    "turn-list-bad-element": lambda v: ("json", [with_field(v, col=None)]),
    "turn-deep": lambda v: ("json", deep(300)),
    "turn-nan": lambda v: ("raw", b'{"row": NaN, "col": 0}\n'),
    "turn-garbage": lambda v: ("raw", b"\x00\xff\xfe fire! \x07\n"),
    "turn-truncated": lambda v: ("raw", b'{"row": 1,\n'),
    "turn-two-values": lambda v: ("raw", (json.dumps(first_shot(v)) + " "
                                          + json.dumps(first_shot(v)) + "\n").encode()),
    "turn-huge-line": lambda v: ("raw", huge_line(first_shot(v), CAP + 1)),
    "turn-nul": lambda v: ("raw", (json.dumps(first_shot(v)) + "\0 junk {{{\n").encode()),
    "turn-nul-end": lambda v: ("raw", (json.dumps(first_shot(v)) + "\0\n").encode()),
    # the answer to this call and, in the same write, one more: it arrives before the next call
    "turn-early": lambda v: ("raw", (json.dumps(first_shot(v)) + "\n"
                                     + json.dumps(next_unfired(v, [first_shot(v)])) + "\n").encode()),
    "turn-flood": lambda v: ("flood", 2 * CAP),
    # the channel
    "turn-hang": lambda v: ("hang",),
    "turn-late": lambda v: ("late", 5.0),
    "turn-no-newline": lambda v: ("raw-hang", json.dumps(first_shot(v)).encode()),
    "turn-exit": lambda v: ("exit", 0),
    "turn-crash": lambda v: ("exit", 3),
    "turn-abort": lambda v: ("abort",),
    "turn-segv": lambda v: ("segv",),
    "turn-self-term": lambda v: ("self-term",),
    "turn-close-stdout": lambda v: ("close",),
    # salvo mode (config salvo: true)
    "salvo-too-many": lambda v: ("json", salvo_plus(v, 1)),
    "salvo-too-few": lambda v: ("json", good_cells(v)[:-1]),
    "salvo-duplicate": lambda v: ("json", good_cells(v)[:-1] + good_cells(v)[:1]),
    "salvo-bare-shot": lambda v: ("json", first_shot(v)),
    "salvo-repeat": lambda v: ("json", good_cells(v)[:-1]
                               + [{"row": v["outgoing"][0]["row"], "col": v["outgoing"][0]["col"]}]),
    "salvo-off-grid": lambda v: ("json", good_cells(v)[:-1] + [{"row": -1, "col": 0}]),
    "salvo-empty": lambda v: ("json", []),
    "salvo-bad-element": lambda v: ("json", good_cells(v)[:-1] + [{"row": 0}]),
}

WIN = {
    "win-wrong": ("json", "ok"),
    "win-null": ("json", None),
    "win-bare-void": ("raw", b"void\n"),
    "win-list": ("json", ["void"]),
    "win-hang": ("hang",),
    "win-exit": ("exit", 0),
}

# Modes that misbehave nowhere, or in ways the referee accepts.
OTHER = {
    "good": "plays correctly",
    "list-one": "answers every take-turn with a list of its one shot",
    "linger": "plays correctly but does not exit after win (sleeps)",
    "chatter": "plays correctly and writes to stderr at every call",
    "big-ok": f"answers take-turn K with a shot padded to exactly {CAP} bytes",
    "blank-lines": "sends empty lines before every answer",
}


def modes():
    out = {m: "setup" for m in SETUP}
    out.update({m: "take-turn" for m in TURN})
    out.update({m: "win" for m in WIN})
    out.update({m: "none" for m in OTHER})
    return out


# ---------------------------------------------------------------------------------------------


def sleep_forever():
    while True:
        time.sleep(3600)


def misbehave(answer, good):
    kind = answer[0]
    if kind == "json":
        write_raw((json.dumps(answer[1]) + "\n").encode())
    elif kind == "raw":
        write_raw(answer[1])
    elif kind == "raw-hang":
        write_raw(answer[1])
        sleep_forever()
    elif kind == "hang":
        sleep_forever()
    elif kind == "late":
        time.sleep(answer[1])
        write_raw((json.dumps(good) + "\n").encode())
    elif kind == "exit":
        sys.stdout.flush()
        os._exit(answer[1])
    elif kind == "abort":
        os.abort()  # glibc's abort(): SIGABRT, and a fault if that does not end the process
    elif kind == "self-term":
        os.kill(os.getpid(), signal.SIGTERM)  # ends it unless it is its namespace's process 1
        sleep_forever()
    elif kind == "segv":
        import ctypes
        ctypes.string_at(0)  # a real segmentation fault
        sleep_forever()
    elif kind == "close":
        sys.stdout.flush()
        os.close(1)
        sleep_forever()
    elif kind == "flood":
        write_raw(b"x" * answer[1])  # no newline: more than the cap of one unfinished message
        sleep_forever()
    else:
        raise AssertionError(kind)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", default="good")
    ap.add_argument("--turn", type=int, default=3, help="the take-turn call (from 1) to misbehave at")
    ap.add_argument("--pid-file")
    ap.add_argument("--list", action="store_true", help="print every mode and its phase")
    args = ap.parse_args()
    table = modes()
    if args.list:
        for mode, phase in table.items():
            print(mode, phase)
        return 0
    if args.mode not in table:
        print(f"battleship_zoo: unknown mode {args.mode!r}", file=sys.stderr)
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
        if mode == "chatter":
            sys.stderr.write(f"chatter: {method} {line[:200]!r}\n")
            sys.stderr.flush()
        if mode == "blank-lines":
            write_raw(b"\n\n")
        if method == "setup":
            config = call_args[0]
            good = good_fleet(config)
            if mode in SETUP:
                misbehave(SETUP[mode](config), good)
                continue
        elif method == "take-turn":
            view = call_args[0]
            turns += 1
            good = good_action(view)
            if mode == "list-one" and isinstance(good, dict):
                good = [good]
            if mode in TURN and turns == args.turn:
                misbehave(TURN[mode](view), good)
                continue
            if mode == "big-ok" and turns == args.turn:
                write_raw(huge_line(good, CAP))
                continue
        elif method == "win":
            good = "void"
            if mode in WIN:
                misbehave(WIN[mode], good)
                return 0
        else:
            good = "void"
        write_raw((json.dumps(good) + "\n").encode())
        if method == "win":
            if mode == "linger":
                sleep_forever()
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
