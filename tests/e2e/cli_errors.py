#!/usr/bin/env python3
"""End-to-end test of the arbiter command line's handling of bad input.

Acceptance criterion: bad input to every subcommand (truncated JSON, wrong shapes, unknown
strategy, empty stdin, ...) gives a one-line error and a non-zero exit, and never a crash (no
signal, no sanitizer report, no uncaught exception, no hang).

Every case runs `arbiter ARGV < STDIN` and checks:
  * an error case: exit code 2 (bad usage or input; 1 where a case says so), stdout empty, stderr
    exactly one line that starts with "arbiter: ";
  * a success case (positive control): exit code 0, stderr empty (and stdout as the case says);
  * always: the process was not killed by a signal, printed no sanitizer report, and finished
    within the timeout.

Usage: cli_errors.py --arbiter build/dev/src/apps/arbiter [--jobs N] [--verbose]
Prints one line per failing case and ends with "N passed, M failed"; exits 0 only if all passed.
Standard library only; all inputs are built here (no data files needed).
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time

TIMEOUT = 30.0  # seconds per case
DEEP = 100_000  # nesting depth of the "deeply nested" inputs

# ---------------------------------------------------------------------------------------------
# Valid inputs (docs/games/q.md §3-§4), built here so that the bad ones can be derived from them.

COLORS = ["red", "green", "blue", "yellow", "orange", "purple"]
SHAPES = ["star", "8star", "square", "circle", "clover", "diamond"]


def tile(color, shape):
    return {"color": color, "shape": shape}


def tiles(n, offset=0):
    """n distinct-ish tiles in a fixed order."""
    return [tile(COLORS[(i + offset) % 6], SHAPES[(i * 5 + offset) % 6]) for i in range(n)]


MAP = [[0, [0, tile("red", "square")]]]
TILE = tile("red", "circle")
PLACEMENTS = [{"coordinate": {"row": 0, "column": 1}, "1tile": tile("red", "circle")}]
MAP_AFTER = [[0, [0, tile("red", "square")], [1, tile("red", "circle")]]]


def jpub(score=0, others=(0,), pile=10, hand=None):
    hand = [tile("red", "circle"), tile("blue", "square"), tile("green", "star")] if hand is None else hand
    return {"map": MAP, "players": [{"score": score, "tile*": hand}, *others], "tile*": pile}


def jstate(n_players=2, named=False, score=0):
    players = []
    for i in range(n_players):
        p = {"score": score, "tile*": tiles(6, offset=i)}
        if named:
            p["name"] = NAMES[i]
        players.append(p)
    return {"map": MAP, "players": players, "tile*": tiles(12, offset=3)}


NAMES = ["alice", "bob", "carol", "dave", "eve"]


def actors(n=2, strategies=("dag", "ldasg")):
    return [[NAMES[i], strategies[i % len(strategies)]] for i in range(n)]


def values(*vs):
    """The stdin bytes of a harness: JSON values separated by newlines."""
    return ("\n".join(json.dumps(v) for v in vs) + "\n").encode()


VALID = {
    "xmap": values(MAP, TILE),
    "xlegal": values(jpub(), PLACEMENTS),
    "xscore": values(MAP_AFTER, PLACEMENTS),
    "xstrategy": values("dag", jpub()),
    "xgames": values(jstate(), actors()),
    "xgames-with-observer": values(jstate(named=True), actors()),
    "xbaddies": values(jstate(named=True), actors()),
}
GAME_HARNESSES = ["xgames", "xgames-with-observer", "xbaddies"]
# The first value of each harness's valid input, and a valid second value.
FIRST = {
    "xmap": MAP, "xlegal": jpub(), "xscore": MAP_AFTER, "xstrategy": "dag",
    "xgames": jstate(), "xgames-with-observer": jstate(named=True), "xbaddies": jstate(named=True),
}
SECOND = {
    "xmap": TILE, "xlegal": PLACEMENTS, "xscore": PLACEMENTS, "xstrategy": jpub(),
    "xgames": actors(), "xgames-with-observer": actors(), "xbaddies": actors(),
}

DEEP_ARRAY = b"[" * DEEP + b"]" * DEEP
DEEP_OBJECT = b'{"a":' * DEEP + b"1" + b"}" * DEEP
HUGE_DIGITS = b"9" * 100_000  # overflows even a double
HUGE_INT = 10**30  # an integer literal beyond 64 bits (parsed as a double)

# ---------------------------------------------------------------------------------------------
# The table of cases.


class Case:
    def __init__(self, name, argv, stdin=b"", expect="error", code=None, stdout=None):
        self.name = name
        self.argv = argv
        self.stdin = stdin
        self.expect = expect  # "error", "ok" or "either" (ok with stdout "json", or error)
        self.code = code if code is not None else (0 if expect == "ok" else 2)
        self.stdout = stdout  # for "ok": None, "json" (one JSON value) or a required substring


def harness_cases():
    out = []
    for h in VALID:
        argv = ["q", h]
        valid = VALID[h]
        first, second = FIRST[h], SECOND[h]

        def err(what, stdin, extra_argv=(), h=h, argv=argv):
            out.append(Case(f"q {h}: {what}", argv + list(extra_argv), stdin))

        out.append(Case(f"q {h}: valid input (control)", argv, valid, "ok", stdout="json"))
        err("empty stdin", b"")
        err("whitespace-only stdin", b" \n\t\r\n  ")
        err("truncated JSON (valid input cut in half)", valid[: len(valid) // 2])
        err("truncated JSON (last byte missing)", valid.rstrip()[:-1])
        first_text = json.dumps(first).encode()
        err("truncated JSON (first value cut in half)", first_text[: len(first_text) // 2])
        err("one value only", values(first))
        err("three values", valid + b"1\n")
        err("two scalars", b"1 2\n")
        err("malformed token", b"nul " + values(second))
        err("unbalanced brackets", b"[}\n" + values(second))
        err("non-UTF-8 byte in a string", valid.replace(b'"red"', b'"r\xe9d"', 1))
        err("non-UTF-8 raw bytes", b"\xff\xfe\x00\x01 " + valid)
        err("100000 unclosed '['", b"[" * DEEP)
        err("deeply nested array as first value", DEEP_ARRAY + b"\n" + values(second))
        err("deeply nested array as second value", values(first) + DEEP_ARRAY + b"\n")
        err("deeply nested object as first value", DEEP_OBJECT + b"\n" + values(second))
        err("huge number (100000 digits) as first value", HUGE_DIGITS + b"\n" + values(second))
        err("huge number (100000 digits) as second value", values(first) + HUGE_DIGITS + b"\n")
        if h in GAME_HARNESSES:
            err("--per-call 0", valid, ["--per-call", "0"])
            err("--per-call abc", valid, ["--per-call", "abc"])
            err("--per-call nan", valid, ["--per-call", "nan"])
            err("--show with empty stdin", b"", ["--show"])
        else:
            err("unexpected option --per-call", valid, ["--per-call", "1"])
        err("unexpected positional argument", valid, ["extra"])

    # Shapes of the rules harnesses.
    def e(h, what, *vs, raw=None):
        out.append(Case(f"q {h}: {what}", ["q", h], raw if raw is not None else values(*vs)))

    e("xmap", "JTile with an unknown colour", MAP, tile("pink", "circle"))
    e("xmap", "JTile with an unknown shape", MAP, tile("red", "triangle"))
    e("xmap", "JTile missing shape", MAP, {"color": "red"})
    e("xmap", "JTile with an extra field", MAP, {**TILE, "size": 3})
    e("xmap", "JTile that is a string", MAP, "red circle")
    e("xmap", "map row that is a string", ["0 red square"], TILE)
    e("xmap", "map row without cells", [[0]], TILE)
    e("xmap", "map that is an object", {"0": [0, TILE]}, TILE)
    e("xmap", "map cell with 3 items", [[0, [0, TILE, 1]]], TILE)
    e("xmap", "map cell column that is a string", [[0, ["0", TILE]]], TILE)
    e("xmap", "duplicate map row", [[0, [0, TILE]], [0, [1, TILE]]], TILE)
    # The course's reference keeps the later cell of a repeated column (it inserts cell by cell).
    out.append(Case("q xmap: a row naming a column twice keeps the later cell (as the course does)",
                    ["q", "xmap"], values([[0, [0, TILE], [0, tile("blue", "star")]]], tile("blue", "circle")),
                    "ok", stdout="json"))
    e("xmap", "fractional row index", [[0.5, [0, TILE]]], TILE)
    e("xmap", "huge row index (10^30)", [[HUGE_INT, [0, TILE]]], TILE)
    e("xmap", "row index beyond 64 bits", raw=b'[[18446744073709551616, [0, {"color":"red","shape":"square"}]]]\n'
                                              + values(TILE))
    e("xmap", "JTile and JMap swapped", TILE, MAP)

    e("xlegal", "JPlacements that is empty", jpub(), [])
    e("xlegal", "JPlacements that is an object", jpub(), PLACEMENTS[0])
    e("xlegal", "J1Placement missing 1tile", jpub(), [{"coordinate": {"row": 0, "column": 1}}])
    e("xlegal", "JCoordinate with a string row", jpub(),
      [{"coordinate": {"row": "0", "column": 1}, "1tile": TILE}])
    e("xlegal", "JCoordinate with a huge row (10^30)", jpub(),
      [{"coordinate": {"row": HUGE_INT, "column": 1}, "1tile": TILE}])
    e("xlegal", "JPub with a negative score", jpub(score=-1), PLACEMENTS)
    e("xlegal", "JPub with a negative other score", jpub(others=(-5,)), PLACEMENTS)
    e("xlegal", "JPub with a huge score (10^30)", jpub(score=HUGE_INT), PLACEMENTS)
    e("xlegal", "JPub with a negative tile*", jpub(pile=-1), PLACEMENTS)
    e("xlegal", "JPub whose players is not a list", {**jpub(), "players": {"score": 0}}, PLACEMENTS)
    e("xlegal", "JPub with no players", {**jpub(), "players": []}, PLACEMENTS)
    e("xlegal", "JPub missing map", {k: v for k, v in jpub().items() if k != "map"}, PLACEMENTS)
    e("xlegal", "JPub with an extra field", {**jpub(), "turn": 1}, PLACEMENTS)
    e("xlegal", "JPub hand with an unknown colour", jpub(hand=[tile("pink", "star")]), PLACEMENTS)
    e("xlegal", "JPub that is a JState", jstate(), PLACEMENTS)

    e("xscore", "JPlacements that is empty", MAP_AFTER, [])
    e("xscore", "map row that is a string", ["0"], PLACEMENTS)
    e("xscore", "placement not on the map", MAP,
      [{"coordinate": {"row": 5, "column": 5}, "1tile": TILE}])
    e("xscore", "JPlacements that is a string", MAP_AFTER, "pass")

    e("xstrategy", "unknown strategy \"smart\"", "smart", jpub())
    e("xstrategy", "unknown strategy \"smart\" after the JPub", jpub(), "smart")
    e("xstrategy", "strategy that is a number", 1, jpub())
    e("xstrategy", "two strategies", "dag", "ldasg")
    e("xstrategy", "two JPubs", jpub(), jpub())
    e("xstrategy", "JPub with a negative score", "dag", jpub(score=-1))
    e("xstrategy", "JPub whose players is not a list", "ldasg", {**jpub(), "players": 0})
    e("xstrategy", "JPub with a huge tile* (10^30)", "dag", jpub(pile=HUGE_INT))
    for h, vs in (("xlegal", (jpub(score=2**63 - 1, others=(2**63 - 1,), pile=2**64 - 1), PLACEMENTS)),
                  ("xstrategy", ("dag", jpub(score=2**63 - 1, others=(2**63 - 1,), pile=2**64 - 1)))):
        out.append(Case(f"q {h}: scores of 2^63-1 and tile* of 2^64-1 (answer or reject)", ["q", h],
                        values(*vs), "either", stdout="json"))

    # Shapes, actors and strategies of the game harnesses.
    for h in GAME_HARNESSES:
        named = h != "xgames"
        st = jstate(named=named)

        def g(what, state, acts, h=h):
            out.append(Case(f"q {h}: {what}", ["q", h], values(state, acts)))

        g("unknown strategy \"smart\"", st, [["alice", "dag"], ["bob", "smart"]])
        g("actor name with a space", st, [["alice", "dag"], ["a b", "dag"]])
        g("actor name of 21 characters", st, [["alice", "dag"], ["a" * 21, "dag"]])
        g("empty actor name", st, [["alice", "dag"], ["", "dag"]])
        g("actor name that is a number", st, [["alice", "dag"], [7, "dag"]])
        g("duplicate actor names", st, [["alice", "dag"], ["alice", "ldasg"]])
        g("non-ASCII actor name", st, [["alice", "dag"], ["b\u00f6b", "dag"]])
        g("actor with one item", st, [["alice", "dag"], ["bob"]])
        g("actor with five items", st, [["alice", "dag"], ["bob", "dag", "setup", 1, 2]])
        g("actor that is a string", st, [["alice", "dag"], "bob"])
        g("JActors that is empty", st, [])
        g("JActors that is an object", st, {"alice": "dag", "bob": "ldasg"})
        g("unknown method", st, [["alice", "dag"], ["bob", "dag", "shout"]])
        g("fewer actors than players", st, [["alice", "dag"]])
        g("more actors than players", st, actors(3))
        g("5-player JState with 5 actors", jstate(5, named=named), actors(5))
        g("5-player JState with 4 actors", jstate(5, named=named), actors(4))
        g("JState whose players is not a list", {**st, "players": {"score": 0}}, actors())
        g("JState with no players", {**st, "players": []}, [])
        g("JState whose tile* is a number", {**st, "tile*": 12}, actors())
        g("JState pile tile with an unknown colour", {**st, "tile*": [tile("pink", "star")]}, actors())
        g("JState player with a negative score", jstate(named=named, score=-3), actors())
        g("JState player with a huge score (10^30)", jstate(named=named, score=HUGE_INT), actors())
        g("JState player name that is a number",
          {**st, "players": [{**p, "name": 5} for p in st["players"]]}, actors())
        g("JState map row that is a string", {**st, "map": ["row"]}, actors())
        g("JState that is a JPub", jpub(), actors())
        g("JState and JActors swapped", actors(), st)
        out.append(Case(f"q {h}: JState scores of 2^63-1 (play or reject, no overflow)", ["q", h],
                        values(jstate(named=named, score=2**63 - 1), actors()), "either", stdout="json"))
        if h == "xgames":
            g("cheat actor (not allowed in M7)", st,
              [["alice", "dag"], ["bob", "dag", "a cheat", "no-fit"]])
            g("counted failure (not allowed in M7)", st, [["alice", "dag"], ["bob", "dag", "setup", 1]])
        if h == "xgames-with-observer":
            g("unknown cheat", st, [["alice", "dag"], ["bob", "dag", "a cheat", "teleport"]])
            g("cheat without a JCheat", st, [["alice", "dag"], ["bob", "dag", "a cheat"]])
            g("counted failure (not allowed in M8)", st, [["alice", "dag"], ["bob", "dag", "setup", 1]])
        if h == "xbaddies":
            g("count 0", st, [["alice", "dag"], ["bob", "dag", "take-turn", 0]])
            g("count 8", st, [["alice", "dag"], ["bob", "dag", "take-turn", 8]])
            g("count that is a string", st, [["alice", "dag"], ["bob", "dag", "take-turn", "2"]])
            g("huge count (10^30)", st, [["alice", "dag"], ["bob", "dag", "take-turn", HUGE_INT]])
    return out


PLAYERS = ["--player", "a:dag", "--player", "b:ldasg"]


def cli_cases(tmp: pathlib.Path):
    out = []

    def err(what, argv, code=2):
        out.append(Case(what, argv, b"", "error", code))

    def ok(what, argv, stdout=None):
        out.append(Case(what, argv, b"", "ok", stdout=stdout))

    # Top level.
    ok("--help (control)", ["--help"], stdout="play")
    ok("games (control)", ["games"], stdout="q")
    ok("q xmap --help (control)", ["q", "xmap", "--help"], stdout="Usage")
    ok("play --help (control)", ["play", "--help"], stdout="--player")
    err("no subcommand", [])
    err("unknown subcommand", ["bogus"])
    err("unknown option", ["--bogus"])
    err("q without a harness", ["q"])
    err("q with an unknown harness", ["q", "xbogus"])
    err("games with an extra argument", ["games", "extra"])

    # play.
    ok("play q (control)", ["play", "q", *PLAYERS, "--seed", "3"], stdout="winners:")
    ok("play q --json (control)", ["play", "q", *PLAYERS, "--seed", "3", "--json"], stdout="json")
    ok("play q with 4 players (control)",
       ["play", "q", "-p", "a:dag", "-p", "b:ldasg", "-p", "c:dag", "-p", "d:ldasg"], stdout="winners:")
    ok("play q with a hanging bot and --per-call 0.05 (control)",
       ["play", "q", "--player", "a:dag+hang=take-turn/1", "--player", "b:dag", "--per-call", "0.05"],
       stdout="ejected: a")
    ok("play q with --config players 2 (control)", ["play", "q", *PLAYERS, "--config", '{"players":2}'],
       stdout="winners:")
    err("play: unknown game", ["play", "chess", *PLAYERS])
    err("play: no game", ["play", *PLAYERS])
    err("play: no --player", ["play", "q"])
    err("play: --player without a colon", ["play", "q", "--player", "adag", "--player", "b:ldasg"])
    err("play: --player with an empty name", ["play", "q", "--player", ":dag", "--player", "b:ldasg"])
    err("play: --player with an empty bot", ["play", "q", "--player", "a:", "--player", "b:ldasg"])
    err("play: --player with no value", ["play", "q", "--player"])
    err("play: unknown bot", ["play", "q", "--player", "a:smart", "--player", "b:ldasg"])
    err("play: unknown bot modifier", ["play", "q", "--player", "a:dag+fly=high", "--player", "b:ldasg"])
    err("play: unknown cheat", ["play", "q", "--player", "a:dag+cheat=teleport", "--player", "b:ldasg"])
    err("play: hang count that is not a number",
        ["play", "q", "--player", "a:dag+hang=take-turn/x", "--player", "b:ldasg"])
    err("play: hang count beyond int",
        ["play", "q", "--player", "a:dag+hang=take-turn/99999999999999999999", "--player", "b:ldasg"])
    err("play: invalid name \"a b\"", ["play", "q", "--player", "a b:dag", "--player", "b:ldasg"])
    err("play: name of 21 characters", ["play", "q", "--player", "a" * 21 + ":dag", "--player", "b:ldasg"])
    err("play: name with a newline", ["play", "q", "--player", "a\nb:dag", "--player", "b:ldasg"])
    err("play: duplicate names", ["play", "q", "--player", "a:dag", "--player", "a:ldasg"])
    err("play: 1 player", ["play", "q", "--player", "a:dag"])
    err("play: 5 players", ["play", "q", *[x for i in range(5) for x in ("--player", f"p{i}:dag")]])
    err("play: --config that is not JSON", ["play", "q", *PLAYERS, "--config", "{players: 2"])
    err("play: --config that is empty", ["play", "q", *PLAYERS, "--config", ""])
    err("play: --config that is an array", ["play", "q", *PLAYERS, "--config", "[]"])
    err("play: --config with an unknown key", ["play", "q", *PLAYERS, "--config", '{"colour":"red"}'])
    err("play: --config with players 3 for 2 players", ["play", "q", *PLAYERS, "--config", '{"players":3}'])
    err("play: --config with players \"two\"", ["play", "q", *PLAYERS, "--config", '{"players":"two"}'])
    err("play: --config with a negative bonus",
        ["play", "q", *PLAYERS, "--config", '{"bonuses":{"q":-1,"finish":4}}'])
    err("play: --config with a 5-player table",
        ["play", "q", *[x for i in range(5) for x in ("--player", f"p{i}:dag")],
         "--config", json.dumps({"table": jstate(5)})])
    err("play: --config with a table whose players is not a list",
        ["play", "q", *PLAYERS, "--config", json.dumps({"table": {**jstate(), "players": 2}})])
    err("play: --config nested 60000 deep",  # stays under the kernel's 128 KiB limit per argument
        ["play", "q", *PLAYERS, "--config", "[" * 60_000 + "]" * 60_000])
    err("play: --config with non-UTF-8 bytes",
        ["play", "q", *PLAYERS, "--config", os.fsdecode(b'{"colour":"r\xe9d"}')])
    err("play: --log into a directory that does not exist",
        ["play", "q", *PLAYERS, "--log", str(tmp / "no-such-dir" / "match.log")])
    err("play: --log that is a directory", ["play", "q", *PLAYERS, "--log", str(tmp)])
    err("play: --per-call 0", ["play", "q", *PLAYERS, "--per-call", "0"])
    err("play: --per-call -1", ["play", "q", *PLAYERS, "--per-call", "-1"])
    err("play: --per-call abc", ["play", "q", *PLAYERS, "--per-call", "abc"])
    err("play: --per-call nan", ["play", "q", *PLAYERS, "--per-call", "nan"])
    err("play: --per-call inf", ["play", "q", *PLAYERS, "--per-call", "inf"])
    err("play: --per-call 0ref", ["play", "q", *PLAYERS, "--per-call", "0ref"])
    err("play: --per-call ref", ["play", "q", *PLAYERS, "--per-call", "ref"])
    err("play: --per-call 1 ref", ["play", "q", *PLAYERS, "--per-call", "1 ref"])
    err("play: --limit-by sundial", ["play", "q", *PLAYERS, "--limit-by", "sundial"])
    err("play: --backstop without --limit-by cpu", ["play", "q", *PLAYERS, "--backstop", "2"])
    err("play: --backstop 0.5", ["play", "q", *PLAYERS, "--limit-by", "cpu", "--backstop", "0.5"])
    err("play: --limit-by cpu for a race",
        ["play", "speed_scrabble", "-p", "a:solver", "-p", "b:solver", "--limit-by", "cpu"])
    err("tournament resume: --cpus without --pin (a worker's list)",
        ["tournament", "resume", "1", "--store", str(tmp / "pin.db"), "--cpus", "0"])
    err("worker: --pin --cpus naming a CPU this process may not use",
        ["worker", "--store", str(tmp / "pin.db"), "--pin", "--cpus", "4000"])
    err("worker: --pin --cpus backwards", ["worker", "--store", str(tmp / "pin.db"), "--pin", "--cpus", "1-0"])
    err("calibrate: --runs 0", ["calibrate", "--runs", "0"])
    err("play: --seed -1", ["play", "q", *PLAYERS, "--seed", "-1"])
    err("play: --seed abc", ["play", "q", *PLAYERS, "--seed", "abc"])
    err("play: --seed 2^64 (out of range)", ["play", "q", *PLAYERS, "--seed", "18446744073709551616"])
    err("play: --seed 1.5", ["play", "q", *PLAYERS, "--seed", "1.5"])
    err("play: --seed without a value", ["play", "q", *PLAYERS, "--seed"])
    err("play: unknown option", ["play", "q", *PLAYERS, "--turbo"])
    return out


def replay_cases(tmp: pathlib.Path, log: pathlib.Path):
    """Cases for `replay`, derived from `log`, a freshly written log of a valid match."""
    out = []
    text = log.read_bytes()
    lines = text.splitlines(keepends=True)
    header = json.loads(lines[0])

    def write(name, data: bytes):
        p = tmp / name
        p.write_bytes(data)
        return str(p)

    def err(what, path, code=2):
        argv = ["replay"] if path is None else ["replay", path]
        out.append(Case(f"replay: {what}", argv, b"", "error", code))

    def with_header(**changes):
        return (json.dumps({**header, **changes}) + "\n").encode() + b"".join(lines[1:])

    out.append(Case("replay: a fresh log (control)", ["replay", str(log)], b"", "ok", stdout="identical"))
    err("a missing file", str(tmp / "missing.log"))
    err("no file argument", None)
    err("an empty file", write("empty.log", b""))
    err("a file of blank lines", write("blank.log", b"\n  \n\t\n"))
    err("a file of garbage", write("garbage.log", b"\x00\x01garbage\xff\nmore garbage\n"))
    err("a directory", str(tmp))
    mid = len(lines) // 2
    cut = b"".join(lines[:mid]) + lines[mid][: len(lines[mid]) // 2]
    err("a log truncated in the middle of a line", write("truncated.log", cut))
    err("a log truncated after the header", write("header-only.log", lines[0]), code=1)
    err("a header that names an unknown game", write("chess.log", with_header(game="chess")))
    err("a header without a game", write("nogame.log", lines[0].replace(b'"game":"q",', b"") + b"".join(lines[1:])))
    err("a header whose game is a number", write("game5.log", with_header(game=5)))
    err("a header whose seed is negative", write("seedneg.log", with_header(seed=-1)))
    err("a header whose seed is a string", write("seedstr.log", with_header(seed="3")))
    err("a header whose per_call_ms is a string", write("percall.log", with_header(per_call_ms="x")))
    err("a header whose seats is not a list", write("seats.log", with_header(seats="a,b")))
    err("a header whose config has an unknown key", write("config.log", with_header(config={"colour": 1})))
    err("a header whose config is nested 100000 deep",
        write("deepconfig.log", lines[0].replace(b'"config":{', b'"config":' + b"[" * DEEP + b"]" * DEEP
                                                 + b',"x":{', 1) + b"".join(lines[1:])))
    err("a first line that is not the header", write("noheader.log", b"".join(lines[1:])))
    err("a line that is an array", write("array.log", lines[0] + b"[1,2]\n" + b"".join(lines[1:])))
    err("a line nested 100000 deep", write("deepline.log", lines[0] + DEEP_ARRAY + b"\n"))
    err("a log of another seed (replay differs)", write("seed.log", with_header(seed=header["seed"] + 1)),
        code=1)
    return out


# ---------------------------------------------------------------------------------------------
# Running and checking.


def run(arbiter, case):
    start = time.monotonic()
    proc = subprocess.Popen([arbiter, *case.argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(case.stdin, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return f"hung: no exit within {TIMEOUT:.0f} s"
    except BrokenPipeError:  # the program exited without reading all of stdin: fine
        stdout, stderr = proc.communicate()
    elapsed = time.monotonic() - start
    return check(case, proc.returncode, stdout, stderr, elapsed)


def show(b: bytes, limit=160):
    s = b.decode("utf-8", errors="replace")
    return repr(s if len(s) <= limit else s[:limit] + "...")


def crash(rc, stderr):
    """How the process died, if it did not end normally; None otherwise."""
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = str(-rc)
        how = f"killed by signal {name}"
        if b"terminate called" in stderr:
            how += " (uncaught exception)"
        return how
    for marker in (b"ERROR: AddressSanitizer", b"ERROR: LeakSanitizer", b"WARNING: ThreadSanitizer",
                   b"runtime error:", b"Sanitizer"):
        at = stderr.find(marker)
        if at >= 0:
            line = stderr[at:].split(b"\n", 1)[0]
            return f"sanitizer report: {show(line, 200)}"
    return None


def check_error(case, rc, stdout, stderr):
    if rc == 0:
        return [f"exit code 0, the input was accepted; stdout: {show(stdout)}"]
    problems = []
    if rc != case.code:
        problems.append(f"exit code {rc}")
    if stdout:
        problems.append(f"stdout not empty: {show(stdout)}")
    if not stderr.startswith(b"arbiter: "):
        problems.append("stderr does not start with 'arbiter: '")
    if stderr.count(b"\n") != 1 or not stderr.endswith(b"\n"):
        newlines = stderr.count(b"\n")
        problems.append(f"stderr is not exactly one line ({newlines} newlines)")
    return problems


def check_ok(case, rc, stdout, stderr):
    problems = []
    if rc != (case.code if case.expect == "ok" else 0):
        problems.append(f"exit code {rc}")
    if stderr:
        problems.append("stderr not empty")
    if case.stdout == "json":
        try:
            json.loads(stdout)
        except ValueError:
            problems.append(f"stdout is not one JSON value: {show(stdout)}")
    elif case.stdout is not None and case.stdout.encode() not in stdout:
        problems.append(f"stdout lacks {case.stdout!r}: {show(stdout)}")
    return problems


def check(case, rc, stdout, stderr, elapsed):
    how = crash(rc, stderr)
    if how:
        problems = [how]
    elif case.expect == "error":
        problems = check_error(case, rc, stdout, stderr)
    elif case.expect == "ok":
        problems = check_ok(case, rc, stdout, stderr)
    else:  # "either": a valid answer or a clean one-line rejection, as long as nothing breaks
        problems = check_ok(case, rc, stdout, stderr) if rc == 0 else check_error(case, rc, stdout, stderr)
    if not problems:
        return None
    return "; ".join(problems) + f" [stderr: {show(stderr)}] ({elapsed:.1f} s)"


def make_log(arbiter, tmp: pathlib.Path):
    """Plays one valid match with --log; returns the log path and the failure, if any."""
    log = tmp / "match.log"
    case = Case("play q --log (control, writes the log for the replay cases)",
                ["play", "q", *PLAYERS, "--seed", "3", "--log", str(log)], b"", "ok", stdout="log:")
    failure = run(arbiter, case)
    if failure is None and (not log.exists() or log.stat().st_size == 0):
        failure = "no log written"
    return case, log, failure


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arbiter", required=True, help="path to the arbiter binary")
    ap.add_argument("--jobs", type=int, default=max(4, os.cpu_count() or 4))
    ap.add_argument("--verbose", action="store_true", help="also print the cases that pass")
    args = ap.parse_args()
    arbiter = str(pathlib.Path(args.arbiter).resolve())
    if not os.access(arbiter, os.X_OK):
        print(f"not an executable: {arbiter}", file=sys.stderr)
        return 1

    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="arbiter-cli-errors-") as d:
        tmp = pathlib.Path(d)
        # A store with a tournament, so that a worker's flags are what is wrong in its cases.
        subprocess.run([arbiter, "tournament", "create", "--store", str(tmp / "pin.db"), "-g", "q",
                        *PLAYERS], capture_output=True, check=True, timeout=60)
        cases = harness_cases() + cli_cases(tmp)
        log_case, log, log_failure = make_log(arbiter, tmp)
        if log_failure:
            print(f"FAIL {log_case.name}: {log_failure}")
            failed += 1
        else:
            passed += 1
            cases += replay_cases(tmp, log)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda c: (c, run(arbiter, c)), cases))
    for case, failure in results:
        if failure is None:
            passed += 1
            if args.verbose:
                print(f"ok   {case.name}")
        else:
            failed += 1
            expected = {"ok": "exit 0",
                        "error": f"a one-line error and exit {case.code}",
                        "either": "exit 0 with one JSON value, or a one-line error and exit 2"}[case.expect]
            print(f"FAIL {case.name}: expected {expected}, got: {failure}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
