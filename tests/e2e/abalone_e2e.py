#!/usr/bin/env python3
"""End-to-end: Concurrent Abalone through `arbiter play abalone`, `arbiter replay` and
`arbiter tournament` (docs/games/abalone.md, docs/protocol.md).

  a. the acceptance command, from the repo root: `arbiter play abalone --black
     bots/abalone/simple.lua --white bots/abalone/team.lua` exits 0 and prints a result; so do
     the house names (`--black simple --white team`);
  b. the same seed gives byte-identical --log files (Lua teams only: no timing fields; with a
     default runtime, see CALM), another seed a different one; `arbiter replay` finds them identical; tampered logs fail replay with
     a non-zero exit and a message;
  c. the Python external team (bots/python/abalone_team.py, §8 over stdio) plays full games
     against `simple` in both colour orders: a sane --json result, call lines for setup,
     take_turn and win in the log, an identical replay;
  d. every mode of tests/misbehaving/abalone_zoo.py in both colour orders: exit 0, the zoo's
     seat ejected with the expected reason during the expected call, the house team the only
     winner, quick, no zoo process outliving arbiter, the log replaying identically; the
     well-behaved control is not ejected;
  e. the §7 GUI stream, read by a listening socket, against the game log: every line a valid
     command, the `set` commands rebuilding exactly the final world, the last scores, one
     `turns` line per resolution counting 1, 2, 3..., the say lines the log's talk events in
     order (a talking Lua team written here); a --gui port where nobody listens fails before
     any match; a viewer that hangs up early is dropped and the match finishes;
  f. a tournament with two workers stores logs equal to those of `arbiter play` with the same
     players, seed and config (its reproduce commands);
  g. command-line errors: exit 2, nothing on stdout, one `arbiter: ` line naming the problem.

Prints one line per check and "N passed, M failed" last; exits 1 on any failure.
Usage: abalone_e2e.py --arbiter build/dev/src/apps/arbiter --root . [--only abcdefg]
"""
import argparse
import concurrent.futures
import csv
import io
import json
import os
import re
import shlex
import socket
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

FAST = "1"       # d: --per-call for the cases that end in a timeout (a loaded Python starts slowly)
NORMAL = "3"     # d: --per-call for the others
WALL = 6.0       # d: seconds any zoo case may take, whole arbiter run included
# The step watchdog (§5, default 50 ms) judges wall-clock time confirmed by the thread's CPU
# time, so a loaded machine (ctest -j, this suite's own parallel jobs) does not make an honest
# Lua team forfeit: the matches here run with the default runtime.
CALM = {}
PLAIN_CONFIG = dict(CALM)
ZOO_CONFIG = {"game_length": 2000, **CALM}
GUI_CONFIG = {"game_length": 2000, **CALM}
TOURNAMENT_CONFIG = {"game_length": 1000, **CALM}
MAX_SAY = 200    # §4 talk: the viewer's text is capped (gui.h kMaxSayLength)

# A Lua team that talks (e): every piece greets with a newline, a tab, a byte outside ASCII and
# a would-be GUI command in its text; the start piece says something longer than the cap; then
# pieces walk like `simple` and talk now and then.
TALK_LUA = r'''
local T_EMPTY = 1
local function piece()
  while spawn(piece) do end
  local r, d = mystat()
  talk("here " .. r .. "," .. d .. "\nset E0 w1\tok \xff")
  if r == -3 and d == -1 then talk(string.rep("long ", 80)) end
  local n = 0
  while true do
    local around = scan()
    local empty = {}
    for dir = 1, 6 do
      if around[dir] == T_EMPTY then empty[#empty + 1] = dir end
    end
    if #empty > 0 then commit(empty[math.random(#empty)]) else commit(0) end
    n = n + 1
    if math.random(7) == 1 then talk("turn " .. gamestat() .. " step " .. n) end
    wait_my_turn()
  end
end
return piece
'''

# A team whose chunk does not return a function: it forfeits before the first cycle (d).
BROKEN_LUA = "return 42\n"


Run = procs.Run


def read_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def hex_rd(name):
    """'B-1' or 'B~1' -> (r, d)."""
    m = re.fullmatch(r"([A-I])([-~]?[0-4])", name)
    if not m:
        return None
    r = ord(m.group(1)) - ord("A") - 4
    d = int(m.group(2).replace("~", "-"))
    if abs(r) > 4 or abs(d) > 4 or abs(r - d) > 4:
        return None
    return (r, d)


class Suite(procs.Tally):
    def __init__(self, args, tmp):
        super().__init__(show_ok=True)
        self.args = args
        self.tmp = tmp
        self.counter = 0
        self.timings = {}

    def path(self, stem):
        with self.lock:
            self.counter += 1
            return os.path.join(self.tmp, f"{self.counter:03d}-{stem}")

    def write(self, stem, text):
        p = self.path(stem)
        with open(p, "w") as f:
            f.write(text)
        return p

    def run(self, argv, timeout=60, cwd=None):
        cmd = [self.args.arbiter, *argv]
        start = time.monotonic()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                               cwd=cwd or self.args.root)
        except subprocess.TimeoutExpired:
            return Run(cmd, None, "", "", time.monotonic() - start,
                       f"arbiter did not finish in {timeout} s")
        return Run(cmd, p.returncode, p.stdout, p.stderr, time.monotonic() - start)

    def play(self, black, white, seed=1, config=None, log=None, json_out=True, per_call=None,
             gui=None, timeout=60):
        argv = ["play", "abalone", "--black", black, "--white", white, "--seed", str(seed)]
        if "--pid-file" in black + white:
            argv += UNWALLED
        if config is not None:
            argv += ["--config", json.dumps(config)]
        if log:
            argv += ["--log", log]
        if json_out:
            argv.append("--json")
        if per_call:
            argv += ["--per-call", per_call]
        if gui:
            argv += ["--gui", gui]
        return self.run(argv, timeout=timeout)

    def replay_problem(self, log):
        p = self.run(["replay", log])
        if p.note:
            return p.note
        if p.rc != 0 or "identical" not in p.out:
            return f"replay exit {p.rc}: {(p.out + p.err).strip()[-300:]}"
        return None

    def python_team(self):
        return f"cmd:{self.args.python} bots/python/abalone_team.py"

    def zoo(self, mode, pid_file):
        return f"cmd:{self.args.python} {self.args.zoo} --mode {mode} --pid-file {pid_file}"


def survivors(pid_file):
    """The zoo PIDs recorded in pid_file, and those still running a second later."""
    return procs.survivors(pid_file, b"abalone_zoo")


def sane_result(r, names=("black", "white")):
    """Problems with a --json result of a played-out abalone match."""
    problems = []
    if r.get("names") != list(names):
        problems.append(f"names {r.get('names')}")
    scores = r.get("scores")
    if not (isinstance(scores, list) and len(scores) == 2 and
            all(isinstance(s, int) and 0 <= s <= 6 for s in scores)):
        problems.append(f"scores {scores}")
        return problems
    winners = r.get("winners")
    details = r.get("details") or {}
    winner = details.get("winner")
    expect = [] if winner is None else [["black", "white"].index(winner)]
    if winners != expect:
        problems.append(f"winners {winners} but details.winner {winner!r}")
    if details.get("reason") == "winning-score" and 6 not in scores:
        problems.append(f"won by winning-score with scores {scores}")
    pieces = details.get("pieces")
    if not (isinstance(pieces, list) and len(pieces) == 2 and all(0 <= p <= 14 for p in pieces)):
        problems.append(f"pieces {pieces}")
    if not isinstance(details.get("cycles"), int) or details["cycles"] < 0:
        problems.append(f"cycles {details.get('cycles')}")
    return problems


# ---------------------------------------------------------------------------------------------
# a. the acceptance command

def check_acceptance(suite):
    for black, white in [("bots/abalone/simple.lua", "bots/abalone/team.lua"),
                         ("simple", "team")]:
        name = f"a. arbiter play abalone --black {black} --white {white}"
        run = suite.play(black, white, json_out=False)
        problems = []
        if run.note or run.rc != 0:
            problems.append(run.note or f"exit {run.rc}: {run.err.strip()[-300:]}")
        else:
            for want in ("abalone match, seed 1, 2 players", "winners: ", "ended after "):
                if want not in run.out:
                    problems.append(f"no {want!r} in the output: {run.out[:300]!r}")
            if run.err.strip():
                problems.append(f"stderr: {run.err.strip()[:200]}")
        first = run.out.splitlines()[1] if len(run.out.splitlines()) > 1 else ""
        suite.report(name, problems, f"{first}, {run.seconds:.2f} s")


# ---------------------------------------------------------------------------------------------
# b. determinism, replay, tampering

def tampered(suite, lines, stem, change):
    """A copy of the log (lines: parsed) with change(lines) applied; returns its path."""
    copy = json.loads(json.dumps(lines))
    change(copy)
    return suite.write(stem, "".join(json.dumps(line, separators=(",", ":"), sort_keys=True)
                                     + "\n" for line in copy))


def first_of(lines, kind):
    return next(line for line in lines if line.get("type") == kind)


def check_determinism(suite):
    logs = {}
    for label, seed in [("first", 7), ("again", 7), ("other", 8)]:
        log = suite.path(f"det-{label}.jsonl")
        run = suite.play("simple", "team", seed=seed, config=PLAIN_CONFIG, log=log)
        logs[label] = (run, log)
    problems = [f"{k}: {r.problem()}" for k, (r, _) in logs.items() if r.problem()]
    if not problems:
        data = {k: open(log, "rb").read() for k, (_, log) in logs.items()}
        if data["first"] != data["again"]:
            problems.append("seed 7 twice: the logs differ")
        if data["first"] == data["other"]:
            problems.append("seeds 7 and 8: the logs are the same")
        if b"elapsed_us" in data["first"]:
            problems.append("a Lua-only log has timing fields")
        if logs["first"][0].out != logs["again"][0].out:
            problems.append("seed 7 twice: the results differ")
    suite.report("b. same seed, byte-identical log; other seed, other log", problems,
                 f"{len(open(logs['first'][1]).readlines())} lines" if not problems else "")

    for label in ("first", "other"):
        problems = ["no log"] if logs[label][0].problem() else []
        if not problems:
            why = suite.replay_problem(logs[label][1])
            if why:
                problems.append(why)
        suite.report(f"b. replay of the {label} log says identical", problems, "")

    lines = read_log(logs["first"][1])

    def flip_legal(ls):
        for line in ls:
            if line.get("type") == "resolution" and line.get("chains"):
                line["chains"][0]["legal"] = not line["chains"][0]["legal"]
                return

    def change_spawn(ls):
        spawn = first_of(ls, "spawn")
        spawn["hex"] = "E0" if spawn["hex"] != "E0" else "E1"

    def change_scores(ls):
        first_of(ls, "result")["scores"] = [5, 5]

    def change_seed(ls):
        ls[0]["seed"] += 1

    def change_source(ls):
        team = ls[0]["teams"][0]
        team["source"] = team["source"].replace("commit(empty[math.random(#empty)])", "commit(0)")

    def drop_line(ls):
        del ls[len(ls) // 2]

    cases = [("a resolution's chain made illegal", flip_legal),
             ("a spawn moved", change_spawn),
             ("the result's scores", change_scores),
             ("the seed", change_seed),
             ("black's Lua source", change_source),
             ("a line dropped", drop_line)]
    for what, change in cases:
        path = tampered(suite, lines, "tampered.jsonl", change)
        run = suite.run(["replay", path])
        problems = []
        if run.note:
            problems.append(run.note)
        elif run.rc == 0:
            problems.append(f"replay exit 0: {run.out.strip()[:200]}")
        elif not run.err.startswith("arbiter: ") or not run.err.strip():
            problems.append(f"exit {run.rc} without a message: {run.err!r}")
        suite.report(f"b. tampered log ({what}) fails replay", problems,
                     f"exit {run.rc}: {run.err.strip()[:110]}")
    # Not a log at all, and a header of another shape.
    for what, text, want_rc in [("truncated JSON", '{"type":"match","game":"abal', 2),
                                ("no seats", json.dumps({**lines[0], "seats": ["x"]}) + "\n", 2)]:
        path = suite.write("broken.jsonl", text)
        run = suite.run(["replay", path])
        problems = []
        if run.rc != want_rc or not run.err.startswith("arbiter: "):
            problems.append(f"exit {run.rc}, stderr {run.err.strip()[:200]!r}; expected exit "
                            f"{want_rc} and an arbiter: message")
        suite.report(f"b. replay of a broken log ({what})", problems,
                     f"exit {run.rc}: {run.err.strip()[:100]}")


# ---------------------------------------------------------------------------------------------
# c. the Python external team

def check_python_team(suite):
    wins = 0
    games = 0
    for seed in (1, 2):
        for py_seat in (0, 1):
            games += 1
            log = suite.path("py.jsonl")
            seats = ["simple", suite.python_team()]
            if py_seat == 0:
                seats.reverse()
            run = suite.play(seats[0], seats[1], seed=seed, config=PLAIN_CONFIG, log=log)
            name = f"c. python team as {['black', 'white'][py_seat]} vs simple, seed {seed}"
            problems = []
            why = run.problem()
            if why:
                suite.report(name, [why], "")
                continue
            r = run.result
            problems += sane_result(r)
            if r.get("ejections"):
                problems.append(f"ejections {r['ejections']}")
            if py_seat in r.get("winners", []):
                wins += 1
            calls = [line for line in read_log(log) if line.get("type") == "call"]
            kinds = [c.get("call") for c in calls]
            if any(c.get("seat") != py_seat for c in calls):
                problems.append("a call line for the Lua seat")
            if kinds[:1] != ["setup"] or kinds[-1:] != ["win"] or \
                    kinds.count("setup") != 1 or kinds.count("win") != 1:
                problems.append(f"calls {kinds[:3]}...{kinds[-2:]}: expected setup first, "
                                f"win last, once each")
            turns = kinds.count("take_turn")
            if turns < 1:
                problems.append("no take_turn call")
            bad = [c for c in calls if c.get("verdict") != "ok"]
            if bad:
                problems.append(f"verdicts {[c.get('verdict') for c in bad]}")
            setup = calls[0] if calls else {}
            if setup.get("reply") != 13:
                problems.append(f"setup reply {setup.get('reply')}, expected 13")
            view = (setup.get("args") or [{}])[0]
            if view.get("team") != ["black", "white"][py_seat] or "pieces" not in view:
                problems.append(f"setup view {json.dumps(view)[:200]}")
            win_call = calls[-1] if calls else {}
            if win_call.get("args") != [py_seat in r.get("winners", [])]:
                problems.append(f"win args {win_call.get('args')}, winners {r.get('winners')}")
            if not problems:
                why = suite.replay_problem(log)
                if why:
                    problems.append(why)
            suite.report(name, problems,
                         f"scores {r.get('scores')}, winners {r.get('winners')}, {turns} turns, "
                         f"{run.seconds:.2f} s")
    # The example should be better than random walking: it wins most of these games.
    suite.report("c. the python team beats simple in most games",
                 [] if wins * 4 >= games * 3 else [f"won {wins} of {games}"],
                 f"won {wins} of {games}")


# ---------------------------------------------------------------------------------------------
# d. misbehaving external teams

class Case:
    def __init__(self, mode, why=None, call=None, code=None):
        self.mode, self.why, self.call, self.code = mode, why, call, code


ZOO_CASES = [
    Case("garbage", "malformed", "take_turn"),
    Case("wrong-shape", "malformed", "take_turn"),
    Case("not-own-piece", "foul", "take_turn", "not-own-piece"),
    Case("repeated-piece", "foul", "take_turn", "repeated-piece"),
    Case("bad-dir", "malformed", "take_turn"),
    Case("too-many-spawns", "foul", "setup", "spawn-count"),
    Case("negative-spawns", "foul", "setup", "spawn-count"),
    Case("setup-string", "malformed", "setup"),
    Case("timeout-setup", "timeout", "setup"),
    Case("timeout-turn", "timeout", "take_turn"),
    Case("hang-up", "hang-up", "take_turn"),
    Case("huge-line", "malformed", "take_turn"),
    # The game is over when the zoo answers win badly: like any other bad answer (protocol.md,
    # and Battleship's win-wrong) it is a malformed ejection during win.
    Case("win-garbage", "malformed", "win"),
    Case("win-wrong", "malformed", "win"),
    Case("well-behaved"),
]


def check_zoo_case(suite, case, zoo_seat):
    house_seat = 1 - zoo_seat
    name = f"d. zoo {case.mode} as {['black', 'white'][zoo_seat]} vs simple"
    pid_file = suite.path("zoo.pids")
    log = suite.path(f"zoo-{case.mode}.jsonl")
    seats = ["simple", suite.zoo(case.mode, pid_file)]
    if zoo_seat == 0:
        seats.reverse()
    run = suite.play(seats[0], seats[1], seed=11, config=ZOO_CONFIG, log=log,
                     per_call=FAST if case.why == "timeout" else NORMAL, timeout=30)
    problems = []
    why = run.problem()
    if why:
        problems.append(why)
    else:
        r = run.result
        ejections = r.get("ejections")
        if case.why is None:
            if ejections:
                problems.append(f"unexpected ejections {ejections}")
        elif not isinstance(ejections, list) or len(ejections) != 1:
            problems.append(f"ejections {ejections}, expected one {case.why} during {case.call}")
        else:
            e = ejections[0]
            got = (e.get("seat"), e.get("why"), e.get("call"))
            want = (zoo_seat, case.why, case.call)
            if got != want:
                problems.append(f"ejected {got} ({e.get('detail')}), expected {want}")
            if case.code and not str(e.get("detail", "")).startswith(case.code + ": "):
                problems.append(f"detail {e.get('detail')!r} does not name foul {case.code}")
            if not e.get("detail"):
                problems.append("the ejection has no detail")
        # The zoo is passive when it behaves (it spawns nothing, never moves): the house team
        # wins every game, on pieces at the end or by the zoo's forfeit.
        if r.get("winners") != [house_seat]:
            problems.append(f"winners {r.get('winners')}, expected the house team "
                            f"(seat {house_seat})")
        if case.call == "setup" and r.get("scores") != [0, 0]:
            problems.append(f"scores {r.get('scores')} after an ejection at setup")
        if case.call in ("setup", "take_turn"):
            forfeits = [line for line in read_log(log) if line.get("type") == "forfeit"]
            if [(f.get("team"), f.get("verdict"), f.get("call")) for f in forfeits] != \
                    [(["black", "white"][zoo_seat], case.why, case.call)]:
                problems.append(f"forfeit events {forfeits}")
        if case.call == "win":
            win_calls = [line for line in read_log(log)
                         if line.get("type") == "call" and line.get("call") == "win"]
            if [c.get("verdict") for c in win_calls] != [case.why]:
                problems.append(f"the log's win call verdicts are "
                                f"{[c.get('verdict') for c in win_calls]}, expected "
                                f"[{case.why!r}]")
        if run.seconds > WALL:
            problems.append(f"took {run.seconds:.2f} s (limit {WALL} s)")
        if not problems:
            why = suite.replay_problem(log)
            if why:
                problems.append(why)
    pids, left = survivors(pid_file)
    if not pids and not (case.why == "timeout" and case.call == "setup"):
        problems.append("the zoo never started (no pid recorded)")
    if left:
        problems.append(f"zoo processes {left} outlived arbiter")
    detail = f"{run.seconds:.2f} s"
    if run.result:
        ej = run.result.get("ejections") or []
        detail = (f"{ej[0].get('why')} during {ej[0].get('call')} "
                  f"({str(ej[0].get('detail', ''))[:60]}), " if ej else "no ejection, ") + detail
    suite.report(name, problems, detail)


def check_zoo_wins_then_fails(suite):
    """The house team forfeits before the first cycle (its chunk returns no function), so the
    zoo wins; it then answers win(true) with garbage: no winner at all, and both teams out."""
    for zoo_seat in (0, 1):
        house_seat = 1 - zoo_seat
        pid_file = suite.path("zoo.pids")
        broken = suite.write("broken.lua", BROKEN_LUA)
        seats = [broken, suite.zoo("win-garbage", pid_file)]
        if zoo_seat == 0:
            seats.reverse()
        run = suite.play(seats[0], seats[1], seed=3, config=ZOO_CONFIG, per_call=NORMAL,
                         timeout=30)
        problems = []
        why = run.problem()
        if why:
            problems.append(why)
        else:
            r = run.result
            got = [(e.get("seat"), e.get("why"), e.get("call")) for e in r.get("ejections", [])]
            want = [(house_seat, "exception", "setup"), (zoo_seat, "malformed", "win")]
            if got != want:
                problems.append(f"ejections {got}, expected {want}")
            if r.get("winners") != []:
                problems.append(f"winners {r.get('winners')}: the zoo won but failed its win "
                                f"call, so there is no winner")
        pids, left = survivors(pid_file)
        if left:
            problems.append(f"zoo processes {left} outlived arbiter")
        suite.report(f"d. zoo win-garbage as {['black', 'white'][zoo_seat]}, winning against a "
                     f"team that does not load", problems,
                     f"ejections {run.result.get('ejections') if run.result else None}")


# ---------------------------------------------------------------------------------------------
# e. the GUI stream

class Viewer:
    """A §7 viewer on 127.0.0.1 (any free port) that reads one connection to its end, or hangs
    up after `keep` bytes."""

    def __init__(self, keep=None):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.sock.settimeout(30)
        self.port = self.sock.getsockname()[1]
        self.keep = keep
        self.data = b""
        self.error = None
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        try:
            conn, _ = self.sock.accept()
            conn.settimeout(30)
            with conn:
                while True:
                    chunk = conn.recv(1 << 16)
                    if not chunk:
                        break
                    self.data += chunk
                    if self.keep is not None and len(self.data) >= self.keep:
                        break
        except OSError as e:
            self.error = str(e)
        finally:
            self.sock.close()

    def finish(self, run=None):
        """The bytes read; when `run` failed, stops waiting for a connection that may never
        come."""
        if run is not None and run.rc != 0:
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.thread.join(35)
        return self.data


SET = re.compile(r"set ([A-I]~?[0-4]) (e|[bw][0-6])")
SCORE = re.compile(r"([bw])score (0|[1-9][0-9]*)")
TURNS = re.compile(r"turns ([1-9][0-9]*)")
SAY = re.compile(r"([bw])say (.*)", re.S)


def gui_problems(stream, log):
    """Checks a §7 stream against the game log of the same match."""
    problems = []
    if not stream.endswith(b"\n"):
        problems.append("the stream does not end with a newline")
    try:
        text = stream.decode("ascii")
    except UnicodeDecodeError:
        return ["the stream is not ASCII"]
    board = {}
    scores = {"b": None, "w": None}
    turns = []
    says = []
    bad = []
    for line in text.split("\n")[:-1]:
        if m := SET.fullmatch(line):
            rd = hex_rd(m.group(1))
            if rd is None or "-" in m.group(1):
                bad.append(line)
            elif m.group(2) == "e":
                board.pop(rd, None)
            else:
                board[rd] = m.group(2)
        elif m := SCORE.fullmatch(line):
            scores[m.group(1)] = int(m.group(2))
        elif m := TURNS.fullmatch(line):
            turns.append(int(m.group(1)))
        elif m := SAY.fullmatch(line):
            said = m.group(2)
            if len(said) > MAX_SAY or any(not (32 <= ord(c) < 127) for c in said):
                bad.append(line)
            says.append((m.group(1), said))
        else:
            bad.append(line)
    if bad:
        problems.append(f"{len(bad)} lines are not §7 commands, e.g. {bad[0][:100]!r}")
    if len(text.split("\n")) < 64:
        return problems + ["fewer lines than the 61 hexes and 2 scores of the first picture"]

    end = [line for line in log if line.get("type") == "end"]
    if len(end) != 1:
        return problems + [f"{len(end)} end events in the log"]
    end = end[0]
    world = {}
    for p in end["world"]["pieces"]:
        rd = (p["r"], p["d"])
        if hex_rd(p["hex"]) != rd:
            problems.append(f"the log's hex {p['hex']} is not ({p['r']}, {p['d']})")
        world[rd] = p["team"][0] + str(p["dir"])
    if board != world:
        diff = sorted(set(board.items()) ^ set(world.items()))
        problems.append(f"the GUI's final board differs from the log's final world in "
                        f"{len(diff)} hexes, e.g. {diff[:4]}")
    final = [end["scores"][0], end["scores"][1]]
    if [scores["b"], scores["w"]] != final:
        problems.append(f"the last bscore/wscore are {[scores['b'], scores['w']]}, the log's "
                        f"final scores {final}")
    resolutions = sum(1 for line in log if line.get("type") == "resolution")
    if turns != list(range(1, resolutions + 1)):
        problems.append(f"turns lines {turns[:3]}...{turns[-3:]} ({len(turns)} lines), expected "
                        f"1..{resolutions}, one per resolution")
    # Who said what: a piece's team from the start pieces (PID 1 black, 2 white) and spawns.
    team_of = {1: "b", 2: "w"}
    for line in log:
        if line.get("type") == "spawn":
            team_of[line["pid"]] = team_of.get(line["parent"], "?")
    talks = [(team_of.get(line["pid"], "?"), line["text"]) for line in log
             if line.get("type") == "talk"]
    if says != talks:
        first = next((i for i, (a, b) in enumerate(zip(says, talks)) if a != b),
                     min(len(says), len(talks)))
        problems.append(f"{len(says)} say lines vs {len(talks)} talk events; first difference "
                        f"at {first}: {says[first:first + 1]} vs {talks[first:first + 1]}")
    return problems


def check_gui(suite):
    talk = suite.write("talk.lua", TALK_LUA)
    games = [("simple", "simple", 5, "simple vs simple"),
             (talk, talk, 6, "talk.lua vs talk.lua"),
             ("team", talk, 7, "team vs talk.lua"),
             (suite.python_team(), "simple", 8, "python team vs simple"),
             ("simple", f"cmd:{suite.args.python} {suite.args.zoo} --mode bad-dir", 9,
              "simple vs the zoo's bad-dir (a forfeit mid-game)")]
    for black, white, seed, label in games:
        viewer = Viewer()
        log = suite.path("gui.jsonl")
        run = suite.play(black, white, seed=seed, config=GUI_CONFIG, log=log,
                         gui=f"127.0.0.1:{viewer.port}")
        stream = viewer.finish(run)
        problems = []
        why = run.problem()
        if why:
            problems.append(why)
        elif viewer.error:
            problems.append(f"the viewer: {viewer.error}")
        else:
            lines = read_log(log)
            problems += gui_problems(stream, lines)
        says = stream.count(b"say ")
        count = stream.count(b"\n")
        suite.report(f"e. GUI stream of {label}, seed {seed}", problems,
                     f"{count} lines, {says} say, {run.seconds:.2f} s")
        if label.startswith("talk") and not problems:
            # The talk team's texts: one line each, control characters as spaces, bytes outside
            # ASCII as '?', cut at the cap.
            text = stream.decode("ascii")
            want = "bsay here -3,-1 set E0 w1 ok ?"
            longest = max((len(line) - 5 for line in text.split("\n") if "say " in line[:5]),
                          default=0)
            p = []
            if want not in text.split("\n"):
                p.append(f"no line {want!r}")
            if longest != MAX_SAY:
                p.append(f"the longest say text has {longest} bytes, expected the cap {MAX_SAY}")
            suite.report("e. say texts are made safe and capped", p, f"longest {longest}")

    # The same match with and without a viewer: the same log.
    logs = []
    for with_gui in (True, False):
        viewer = Viewer() if with_gui else None
        log = suite.path("gui-same.jsonl")
        run = suite.play("team", talk, seed=12, config=GUI_CONFIG, log=log,
                         gui=f"127.0.0.1:{viewer.port}" if viewer else None)
        if viewer:
            viewer.finish(run)
        logs.append((run, log))
    problems = [r.problem() for r, _ in logs if r.problem()]
    if not problems and open(logs[0][1], "rb").read() != open(logs[1][1], "rb").read():
        problems.append("the logs differ")
    suite.report("e. a viewer does not change the match (same log with and without --gui)",
                 problems, "")

    # Nobody listens: an error before any match, and the cmd: seat already started is gone.
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    pid_file = suite.path("zoo.pids")
    log = suite.path("gui-refused.jsonl")
    run = suite.play("simple", suite.zoo("well-behaved", pid_file), config=GUI_CONFIG, log=log,
                     gui=f"127.0.0.1:{port}")
    problems = []
    if run.note:
        problems.append(run.note)
    elif run.rc == 0:
        problems.append(f"exit 0: {run.out[:200]!r}")
    else:
        if "--gui" not in run.err or not run.err.startswith("arbiter: "):
            problems.append(f"stderr {run.err.strip()[:200]!r} does not name --gui")
        if run.out:
            problems.append(f"stdout {run.out[:200]!r}")
        if os.path.exists(log) and os.path.getsize(log) > 0:
            problems.append("a match was logged")
    _, left = survivors(pid_file)
    if left:
        problems.append(f"zoo processes {left} outlived arbiter")
    suite.report("e. --gui where nobody listens fails before the match", problems,
                 f"exit {run.rc}: {run.err.strip()[:100]}")

    # A viewer that hangs up after its first bytes: dropped, and the match goes on.
    viewer = Viewer(keep=100)
    run = suite.play("simple", "team", seed=4, config=GUI_CONFIG, json_out=False,
                     gui=f"127.0.0.1:{viewer.port}")
    viewer.finish(run)
    problems = []
    if run.note or run.rc != 0:
        problems.append(run.note or f"exit {run.rc}: {run.err.strip()[-200:]}")
    else:
        if "winners: " not in run.out or "ended after " not in run.out:
            problems.append(f"no result: {run.out[:200]!r}")
        if "gui: the viewer was dropped" not in run.out:
            problems.append(f"no report of the dropped viewer: {run.out[-300:]!r}")
    dropped = next((line for line in run.out.splitlines() if line.startswith("gui:")), "")
    suite.report("e. a viewer that hangs up early is dropped, the match finishes", problems,
                 f"{dropped}, {run.seconds:.2f} s")


# ---------------------------------------------------------------------------------------------
# f. tournament workers reproduce arbiter play

def check_tournament(suite):
    store = "sqlite:" + suite.path("t.db")
    csv_path = suite.path("matches.csv")
    run = suite.run(["tournament", "run", "-g", "abalone", "-p", "s:simple", "-p", "t:team",
                     "-p", f"py:{suite.python_team()}", "--rounds", "1", "--workers", "2",
                     "--seed", "5", "--config", json.dumps(TOURNAMENT_CONFIG), "--store", store,
                     "--matches-csv", csv_path, "-q"], timeout=120)
    if run.note or run.rc != 0:
        suite.report("f. tournament run of abalone with 2 workers",
                     [run.note or f"exit {run.rc}: {run.err.strip()[-300:]}"], "")
        return
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    problems = []
    if len(rows) != 6:
        problems.append(f"{len(rows)} matches, expected 6 (3 entrants, both seatings)")
    errors = [r["error"] for r in rows if r["error"]]
    if errors:
        problems.append(f"errors {errors[:2]}")
    suite.report("f. tournament run of abalone with 2 workers", problems,
                 f"{len(rows)} matches, {run.seconds:.2f} s")
    tid = re.search(r"tournament (\d+)", run.out)
    tid = tid.group(1) if tid else "1"
    for row in rows:
        name = f"f. tournament match {row['index']} ({row['seats']}) equals arbiter play"
        problems = []
        stored = suite.path("stored.jsonl")
        got = suite.run(["tournament", "log", tid, row["index"], "--store", store])
        if got.rc != 0:
            suite.report(name, [f"tournament log exit {got.rc}: {got.err.strip()[:200]}"], "")
            continue
        with open(stored, "w") as f:
            f.write(got.out)
        argv = shlex.split(row["reproduce"])
        if argv[:3] != ["arbiter", "play", "abalone"] or "--seed" not in argv or \
                argv[argv.index("--seed") + 1] != row["seed"]:
            suite.report(name, [f"reproduce command {row['reproduce']!r}"], "")
            continue
        played = suite.path("played.jsonl")
        again = suite.run(argv[1:] + ["--log", played, "--json"])
        why = again.problem()
        if why:
            suite.report(name, [why], "")
            continue
        a, b = read_log(stored), read_log(played)
        external = any(t.get("external") for t in a[0].get("teams", []))
        if external:
            # Calls to a program carry its elapsed time: equal apart from that.
            for line in a + b:
                line.pop("elapsed_us", None)
            if a != b:
                problems.append("the logs differ apart from elapsed_us")
        elif got.out.encode() != open(played, "rb").read():
            problems.append("the logs are not byte-identical")
        winners = [again.result["names"][w] for w in again.result.get("winners", [])]
        if winners != row["winners"].split():
            problems.append(f"arbiter play's winners {winners}, the CSV's {row['winners']!r}")
        suite.report(name, problems, f"{len(a)} lines" + (", external" if external else ""))


# ---------------------------------------------------------------------------------------------
# g. command-line errors

def check_cli(suite):
    missing = os.path.join(suite.tmp, "no-such-team.lua")
    cases = [
        (["play", "abalone", "--black", "simple"], "--white"),
        (["play", "abalone", "--white", "simple"], "--black"),
        (["play", "abalone", "--black", "simple", "--white", "simple", "--player", "x:simple"],
         "--player"),
        (["play", "abalone", "--player", "a:simple", "--player", "b:simple", "--player",
          "c:simple"], "2 teams"),
        (["play", "abalone", "--player", "a:simple"], "2 teams"),
        (["play", "abalone", "--black", "nosuchbot", "--white", "simple"], "nosuchbot"),
        (["play", "abalone", "--black", "simple", "--white", missing], missing),
        (["play", "abalone", "--black", "lua:" + missing, "--white", "simple"], missing),
        (["play", "abalone", "--black", "simple", "--white", "simple", "--gui", "nohost"],
         "--gui"),
        (["play", "abalone", "--black", "simple", "--white", "simple", "--gui", "127.0.0.1:0"],
         "--gui"),
        (["play", "abalone", "--black", "simple", "--white", "simple", "--gui",
          "127.0.0.1:99999"], "--gui"),
        (["play", "abalone", "--black", "simple", "--white", "simple", "--gui", "127.0.0.1:x"],
         "--gui"),
        (["play", "abalone", "--black", "simple", "--white", "simple", "--gui", ":3126"],
         "--gui"),
        (["play", "abalone", "--black", "simple", "--white", "simple", "--config",
          '{"game_length": 0}'], "game_length"),
        (["play", "abalone", "--black", "simple", "--white", "simple", "--config",
          '{"step_budget": 0}'], "step_budget"),
        (["play", "abalone", "--black", "simple", "--white", "simple", "--config",
          '{"no_such_key": 1}'], "no_such_key"),
    ]
    for argv, names in cases:
        run = suite.run(argv, timeout=20)
        problems = []
        if run.note:
            problems.append(run.note)
        else:
            if run.rc != 2:
                problems.append(f"exit {run.rc}, expected 2")
            if run.out:
                problems.append(f"stdout {run.out[:200]!r}")
            lines = run.err.splitlines()
            if len(lines) != 1 or not lines[0].startswith("arbiter: "):
                problems.append(f"stderr is not one 'arbiter: ' line: {run.err[:300]!r}")
            elif names not in lines[0]:
                problems.append(f"the message does not name {names!r}: {lines[0]!r}")
            elif re.search(r"(\b[A-Z][\w ]*: )\1", lines[0]):
                problems.append(f"a repeated prefix in {lines[0]!r}")
        shown = " ".join(a if " " not in a else repr(a) for a in argv[2:])
        suite.report(f"g. {shown}", problems, run.err.strip()[:120])


# ---------------------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--root", required=True, help="the repository root (commands run there)")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--zoo", help="tests/misbehaving/abalone_zoo.py (default: under --root)")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--only", help="run only the parts whose letters are given, e.g. de")
    args = ap.parse_args()
    args.arbiter = os.path.abspath(args.arbiter)
    args.root = os.path.abspath(args.root)
    args.zoo = os.path.abspath(args.zoo or os.path.join(args.root, "tests", "misbehaving",
                                                        "abalone_zoo.py"))
    if " " in args.zoo or " " in args.python:
        print("the zoo and python paths must not contain spaces (cmd: splits at spaces)")
        return 2
    only = args.only or "abcdefg"
    listed = subprocess.run([args.python, args.zoo, "--list"], capture_output=True, text=True,
                            check=True).stdout.split("\n")
    zoo_modes = {line.split()[0]: (line.split()[1], line.split()[2]) for line in listed
                 if line.strip()}
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="abalone-e2e-") as tmp:
        suite = Suite(args, tmp)
        if "d" in only:
            # The zoo's own table and the cases here must agree.
            for case in ZOO_CASES:
                phase, why = zoo_modes.get(case.mode, (None, None))
                want = (case.call or "none", case.why or "none")
                if (phase, why) != want:
                    suite.report(f"d. zoo mode {case.mode} is listed", [
                        f"the zoo lists {(phase, why)}, the test expects {want}"], "")
            untested = set(zoo_modes) - {c.mode for c in ZOO_CASES}
            if untested:
                suite.report("d. every zoo mode is tested", [f"untested {sorted(untested)}"], "")

        def timed(letter, fn, *fn_args):
            t0 = time.monotonic()
            fn(suite, *fn_args)
            with suite.lock:
                suite.timings[letter] = suite.timings.get(letter, 0) + time.monotonic() - t0

        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            jobs = []
            parts = [("a", check_acceptance), ("b", check_determinism), ("c", check_python_team),
                     ("e", check_gui), ("f", check_tournament), ("g", check_cli)]
            if "d" in only:
                for case in ZOO_CASES:
                    for zoo_seat in (1, 0):
                        jobs.append(pool.submit(timed, "d", check_zoo_case, case, zoo_seat))
                jobs.append(pool.submit(timed, "d", check_zoo_wins_then_fails))
            for letter, fn in parts:
                if letter in only:
                    jobs.append(pool.submit(timed, letter, fn))
            for job in jobs:
                job.result()
        timings = ", ".join(f"{k} {v:.1f} s" for k, v in sorted(suite.timings.items()))
        print(f"{suite.passed} passed, {suite.failed} failed, {time.monotonic() - start:.1f} s "
              f"(thread time per part: {timings})", flush=True)
    return 1 if suite.failed else 0


if __name__ == "__main__":
    sys.exit(main())
