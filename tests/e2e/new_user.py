#!/usr/bin/env python3
"""What a new user trips over first, tried from outside as a new user would.

Each case runs `arbiter ARGV` (as a real process, in a scratch directory of its own) and checks:
  * the exit code (0 ok, 1 failure at run time, 2 bad usage or input);
  * stderr: for an error, exactly one line "arbiter: ..." containing the expected words (which
    name the bad item); for success, what the case says;
  * that nothing was created or changed where nothing should be: the scratch directory (and any
    file the case names) is the same before and after, byte for byte, unless the case expects an
    output;
  * that the process was not killed by a signal and ended within its timeout.
Cases are grouped by the items of the issue that asked for them (1-10) and a sweep of every
command's flags and file arguments.

Usage: new_user.py --arbiter PATH --root REPO [--qbot PATH] [--python PYTHON] [-k WORDS] [-v]
Prints one line per failing case and "N passed, M failed"; exits 0 only if all passed.
Standard library only. Read-only directories and a full file system are made with
`unshare -m` (private mounts of this test only) when running as root, where permissions alone
would not stop a write.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import pathlib
import shutil
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

ARGS = None
TIMEOUT = 60.0


# ---------------------------------------------------------------------------------------------
# Running and checking


def snapshot(root: pathlib.Path):
    """Every path under `root` with its kind and content digest."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), root)] = "dir"
        for f in filenames:
            p = os.path.join(dirpath, f)
            try:
                if os.path.islink(p) or not os.path.isfile(p):
                    out[os.path.relpath(p, root)] = "special"
                    continue
                with open(p, "rb") as fh:
                    out[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
            except OSError:
                out[os.path.relpath(p, root)] = "unreadable"
    return out


def diff(before, after):
    changes = []
    for k in sorted(set(before) | set(after)):
        if k not in before:
            changes.append(f"created {k}")
        elif k not in after:
            changes.append(f"removed {k}")
        elif before[k] != after[k]:
            changes.append(f"changed {k}")
    return changes


class Case:
    """One run of arbiter.

    argv       the arguments (strings; "{dir}" is replaced by the scratch directory)
    code       the expected exit code
    words      for an error: substrings (or regexes with re=True) the one stderr line must hold;
               for success: substrings stdout must hold
    setup      fn(dir) run before (prepare files); its changes are the baseline
    check      fn(dir, stdout, stderr) -> list of problems, run after
    changes    True when the run may create or change files in the scratch directory
    stdin      bytes
    wrap       fn(dir, argv) -> argv: run through a wrapper (read-only mounts and the like)
    stdout_to  a path (with "{dir}") that stdout is redirected to instead of a pipe
    path_first a directory (with "{dir}") put first on PATH, as a user's version manager does
    """

    def __init__(self, item, name, argv, code=2, words=(), setup=None, check=None, changes=None,
                 stdin=b"", wrap=None, timeout=TIMEOUT, stdout_to=None, stderr_lines=1,
                 path_first=None):
        self.item, self.name, self.argv, self.code = item, name, argv, code
        self.words = [words] if isinstance(words, str) else list(words)
        self.setup, self.check, self.stdin, self.wrap = setup, check, stdin, wrap
        self.changes = (code == 0) if changes is None else changes
        self.timeout, self.stdout_to, self.stderr_lines = timeout, stdout_to, stderr_lines
        self.path_first = path_first


def run_case(case):
    with tempfile.TemporaryDirectory(prefix="arbiter-new-user-") as d:
        d = pathlib.Path(d)
        # Programs' files are copies: the walls refuse a program or argument reached through a
        # link out of its directory. The rest of tests/ (golden logs, course data) is linked.
        root = pathlib.Path(ARGS.root)
        for name in ("bots", "examples"):
            shutil.copytree(root / name, d / name, ignore=shutil.ignore_patterns("__pycache__"))
        (d / "tests").mkdir()
        for child in (root / "tests").iterdir():
            if child.name == "misbehaving":
                shutil.copytree(child, d / "tests" / child.name,
                                ignore=shutil.ignore_patterns("__pycache__"))
            else:
                (d / "tests" / child.name).symlink_to(child)
        if case.setup:
            try:
                case.setup(d)
            except Exception as e:  # a setup that needs what the arbiter under test lacks
                return [f"setup failed: {type(e).__name__}: {e}"]
        argv = [a.replace("{dir}", str(d)) for a in case.argv]
        cmd = [ARGS.arbiter, *argv]
        if case.wrap:
            cmd = case.wrap(d, cmd)
        before = snapshot(d)
        start = time.monotonic()
        out_file = None
        if case.stdout_to:
            out_file = open(case.stdout_to.replace("{dir}", str(d)), "wb")
        env = dict(os.environ, PATH=f"{pathlib.Path(ARGS.arbiter).parent}:{os.environ['PATH']}")
        if case.path_first:
            env["PATH"] = case.path_first.replace("{dir}", str(d)) + ":" + env["PATH"]
        proc = subprocess.Popen(cmd, cwd=d, stdin=subprocess.PIPE,
                                stdout=out_file or subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, env=env)
        try:
            stdout, stderr = proc.communicate(case.stdin, timeout=case.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return [f"hung: no exit within {case.timeout:.0f} s"]
        finally:
            if out_file:
                out_file.close()
        stdout = stdout or b""
        elapsed = time.monotonic() - start
        problems = []
        rc = proc.returncode
        if rc < 0:
            problems.append(f"killed by signal {-rc}")
        elif rc != case.code:
            problems.append(f"exit code {rc}, expected {case.code}")
        text = stderr.decode("utf-8", "replace")
        if case.code != 0 and case.stderr_lines is not None:
            lines = text.splitlines()
            errors = [l for l in lines if l.startswith("arbiter: ")]
            if case.code == 2 and (len(lines) != case.stderr_lines or not lines or
                                   not lines[-1].startswith("arbiter: ")):
                problems.append(f"stderr is not {case.stderr_lines} line(s) ending in 'arbiter: ...'")
            if not errors:
                problems.append("no 'arbiter: ' error line on stderr")
            for w in case.words:
                if not any(w in l for l in errors):
                    problems.append(f"no error line says {w!r}")
            if case.code == 2 and stdout:
                problems.append(f"stdout not empty: {stdout[:120]!r}")
        elif case.code == 0:
            out_text = stdout.decode("utf-8", "replace")
            for w in case.words:
                if w not in out_text:
                    problems.append(f"stdout lacks {w!r}")
        if b"Sanitizer" in stderr or b"terminate called" in stderr:
            problems.append("a crash report on stderr")
        if case.check:
            try:
                problems += case.check(d, stdout, stderr)
            except Exception as e:  # output the check could not even read is a failure too
                problems.append(f"check failed: {type(e).__name__}: {e}")
        if not case.changes:
            changes = diff(before, snapshot(d))
            if changes:
                problems.append("it changed files: " + ", ".join(changes[:5]))
        if problems:
            problems.append(f"[stderr: {text.strip()[:400]!r}] ({elapsed:.1f} s)")
        return problems


# ---------------------------------------------------------------------------------------------
# Helpers for the cases


def write(rel, data):
    def setup(d):
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return setup


def setups(*fns):
    def setup(d):
        for f in fns:
            f(d)
    return setup


def mkdir(rel):
    return lambda d: (d / rel).mkdir(parents=True, exist_ok=True)


def fifo_with(rel, data):
    """A FIFO at `rel` and a writer that puts `data` into it once arbiter opens it."""
    def setup(d):
        p = d / rel
        os.mkfifo(p)

        def feed():
            try:
                with open(p, "wb") as f:  # blocks until the reader opens it
                    f.write(data)
            except OSError:
                pass
        threading.Thread(target=feed, daemon=True).start()
    return setup


def read_only(rel):
    """Runs the command with `rel` (made first) mounted read-only: a real read-only directory,
    even for root."""
    def wrap(d, cmd):
        target = str(d / rel)
        os.makedirs(target, exist_ok=True)
        if os.geteuid() != 0:
            os.chmod(target, 0o555)
            return cmd
        return ["unshare", "-m", "sh", "-c",
                'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"',
                "sh", target, *cmd]
    return wrap


def tiny_fs(rel, size="4k"):
    """Runs the command with a file system of `size` bytes mounted at `rel`: writes past it fail
    with ENOSPC (needs root, as the CI and this machine have)."""
    def wrap(d, cmd):
        target = str(d / rel)
        os.makedirs(target, exist_ok=True)
        return ["unshare", "-m", "sh", "-c",
                f'mount -t tmpfs -o size={size} tmpfs "$1" && shift && exec "$@"',
                "sh", target, *cmd]
    return wrap


def exists(rel, want=True):
    def check(d, out, err):
        there = (d / rel).exists()
        return [] if there == want else [f"{rel} {'missing' if want else 'exists'}"]
    return check


def checks(*fns):
    def check(d, out, err):
        problems = []
        for f in fns:
            problems += f(d, out, err)
        return problems
    return check


def file_holds(rel, *words):
    def check(d, out, err):
        p = d / rel
        if not p.exists():
            return [f"{rel} missing"]
        text = p.read_text(errors="replace")
        return [f"{rel} lacks {w!r}" for w in words if w not in text]
    return check


def stdout_holds(*words):
    def check(d, out, err):
        text = out.decode(errors="replace")
        return [f"stdout lacks {w!r}" for w in words if w not in text]
    return check


def stderr_holds(*words):
    def check(d, out, err):
        text = err.decode(errors="replace")
        return [f"stderr lacks {w!r}" for w in words if w not in text]
    return check


def arbiter(*argv, cwd=None):
    return subprocess.run([ARGS.arbiter, *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT)


Q2 = ["-g", "q", "-p", "a:dag", "-p", "b:ldasg"]
PLAY_Q = ["play", "q", "-p", "a:dag", "-p", "b:ldasg", "--seed", "3"]
PY = sys.executable
TOLD = "tests/misbehaving/told_why.py"
NOTEXEC = "#!/bin/sh\necho hi\n"


def made_store(d, *extra):
    """A store in d/t.db with one finished tournament of two house bots."""
    r = arbiter("tournament", "run", *Q2, "--store", f"sqlite:{d}/t.db", "-q", *extra, cwd=d)
    assert r.returncode == 0, r.stderr


# ---------------------------------------------------------------------------------------------
# Item 1: validate everything before anything is created; exit 2; no store.


def item1():
    c = []
    for cmd in (["tournament", "run"], ["tournament", "create"]):
        w = " ".join(cmd)
        c += [
            Case(1, f"{w}: an unknown house bot", [*cmd, "-g", "q", "-p", "a:dag", "-p", "b:nosuch"],
                 words=['player b: bot "nosuch": unknown strategy']),
            Case(1, f"{w}: a config the game refuses",
                 [*cmd, "-g", "battleship", "-p", "a:density", "-p", "b:hunt", "--config", '{"rows":3}'],
                 words=["rows must be 5 to 26, got 3"]),
            Case(1, f"{w}: a config key the game does not know",
                 [*cmd, *Q2, "--config", '{"colour":"red"}'], words=["colour"]),
            Case(1, f"{w}: an unknown store scheme", [*cmd, *Q2, "--store", "nosuch:thing"],
                 words=['unknown scheme "nosuch"']),
            Case(1, f"{w}: a store in a missing directory", [*cmd, *Q2, "--store", "sqlite:no/x.db"],
                 words=["no/x.db"]),
            Case(1, f"{w}: a store that is a directory", [*cmd, *Q2, "--store", "sqlite:sub"],
                 setup=mkdir("sub"), words=["sub is a directory"]),
            Case(1, f"{w}: PostgreSQL that is not there",
                 [*cmd, *Q2, "--store", "postgresql://nobody@127.0.0.1:1/none"],
                 words=["postgresql", "127.0.0.1"]),
            Case(1, f"{w}: a program that does not exist",
                 [*cmd, "-g", "q", "-p", "a:dag", "-p", "b:cmd:./no-such-bot"],
                 words=['player b: cannot run "./no-such-bot": No such file or directory']),
            Case(1, f"{w}: a program that is not executable",
                 [*cmd, "-g", "q", "-p", "a:dag", "-p", "b:cmd:./bot.sh"], setup=write("bot.sh", NOTEXEC),
                 words=['player b: cannot run "./bot.sh": Permission denied']),
            Case(1, f"{w}: a program that is a directory",
                 [*cmd, "-g", "q", "-p", "a:dag", "-p", "b:cmd:./sub"], setup=mkdir("sub"),
                 words=['cannot run "./sub"']),
            Case(1, f"{w}: cmd: without a program", [*cmd, "-g", "q", "-p", "a:dag", "-p", "b:cmd:"],
                 words=["player b: cmd: needs a program"]),
            Case(1, f"{w}: a tcp entrant without an address for it",
                 [*cmd, "-g", "q", "-p", "a:dag", "-p", "b:tcp"],
                 words=["--listen HOST:PORT" if cmd[1] == "run" else "arbiter worker cannot be"]),
            Case(1, f"{w}: an unknown TOML key", [*cmd, "-f", "t.toml"],
                 setup=write("t.toml", 'game = "q"\nrounds = 1\nround = 3\n'),
                 words=['t.toml:3: unknown key "round"']),
            Case(1, f"{w}: an unknown key in a TOML [[player]]", [*cmd, "-f", "t.toml"],
                 setup=write("t.toml", 'game = "q"\n[[player]]\nname = "a"\nbot = "dag"\nbrain = 1\n'
                             '[[player]]\nname = "b"\nbot = "dag"\n'),
                 words=['t.toml:5: unknown key "brain" in a [[player]]']),
            Case(1, f"{w}: an unknown key in a TOML [config]", [*cmd, "-f", "t.toml"],
                 setup=write("t.toml", 'game = "q"\n[config]\ncolour = 1\n[[player]]\nname = "a"\n'
                             'bot = "dag"\n[[player]]\nname = "b"\nbot = "dag"\n'),
                 words=["colour"]),
            Case(1, f"{w}: a Lua team file that does not exist",
                 [*cmd, "-g", "abalone", "-p", "a:simple", "-p", "b:missing.lua"],
                 words=["player b: the team file missing.lua: No such file or directory"]),
            Case(1, f"{w}: a Speed Scrabble dictionary that does not exist",
                 [*cmd, "-g", "speed_scrabble", "-p", "a:solver", "-p", "b:solver", "--config",
                  '{"dictionary": "words.txt"}'], words=["words.txt: No such file or directory"]),
        ]
    def made_with_a_bot_then_gone(d):
        # The bot in a folder of its own: beside the store it would be refused at once.
        (d / "mine").mkdir()
        (d / "mine/bot.py").write_text("import sys\n")
        (d / "mine/bot.py").chmod(0o755)
        made = subprocess.run([ARGS.arbiter, "tournament", "create", "-g", "q", "-p", "a:dag", "-p",
                               f"b:cmd:{d}/mine/bot.py", "--store", "t.db"], cwd=d,
                              capture_output=True, text=True)
        assert made.returncode == 0, made.stderr
        (d / "mine/bot.py").unlink()

    c += [
        Case(1, "tournament run: --csv into a missing directory (before anything is played)",
             ["tournament", "run", *Q2, "--csv", "no/s.csv"], words=["--csv no/s.csv: cannot be created"]),
        Case(1, "tournament run: --json that is a directory", ["tournament", "run", *Q2, "--json", "sub"],
             setup=mkdir("sub"), words=["--json sub: is a directory"]),
        Case(1, "tournament run: --matches-csv in a read-only directory",
             ["tournament", "run", *Q2, "--matches-csv", "ro/m.csv"], wrap=read_only("ro"),
             words=["--matches-csv ro/m.csv: cannot be created"]),
        Case(1, "tournament run: a valid run (control)", ["tournament", "run", *Q2, "-q"], code=0,
             words=["2 matches"], check=exists("arbiter.db")),
        Case(1, "tournament create: a valid tournament (control)", ["tournament", "create", *Q2], code=0,
             words=["1"], check=exists("arbiter.db")),
        Case(1, "worker: a store that does not exist is not created", ["worker", "--store", "w.db"],
             words=["there is no store w.db"]),
        Case(1, "worker: an unknown store scheme", ["worker", "--store", "nosuch:thing"],
             words=['unknown scheme "nosuch"']),
        Case(1, "worker: a tournament that is not in the store",
             ["worker", "--store", "t.db", "--tournament", "7", "--until-finished"], setup=made_store,
             words=["no tournament 7"]),
        Case(1, "worker: a tournament whose program is missing here",
             ["worker", "--store", "t.db", "--tournament", "1", "--until-finished"],
             setup=made_with_a_bot_then_gone,
             words=["tournament 1 cannot be played here", "bot.py"]),
        Case(1, "worker: --stderr-dir that is missing", ["worker", "--store", "t.db", "--stderr-dir", "nope"],
             setup=made_store, words=["--stderr-dir nope: No such file or directory"]),
        Case(1, "resume: a tournament whose program is missing here",
             ["tournament", "resume", "1", "--store", "t.db"],
             setup=made_with_a_bot_then_gone,
             words=["tournament 1 cannot be played here"]),
        Case(1, "play: an unknown house bot creates no log",
             ["play", "q", "-p", "a:nosuch", "-p", "b:dag", "--log", "g.jsonl"],
             words=['player a: bot "nosuch": unknown strategy']),
        Case(1, "play: a refused config starts no program and creates no log",
             ["play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} {TOLD}", "--config", '{"players": 3}',
              "--log", "g.jsonl"], words=["--config: the config seats 3 players but 2 were given"]),
        Case(1, "play: a missing program is an error, not an ejection",
             ["play", "q", "-p", "a:dag", "-p", "b:cmd:./no-such-bot", "--log", "g.jsonl"],
             words=['player b: cannot run "./no-such-bot"']),
        Case(1, "play: --entrant for a seat that is not there",
             ["play", "q", "-p", "a:dag", "-p", "b:dag", "--entrant", "c:per_call=1", "--log",
              "g.jsonl"], words=['--entrant "c:per_call=1": no entrant is named c']),
        Case(1, "play: --entrant with a per-call limit out of range",
             ["play", "speed_scrabble", "-p", "a:solver", "-p", "b:solver", "--entrant",
              "b:per_call=900"], words=["--entrant b:per_call: expected seconds between 0.001 and 600"]),
        Case(1, "play: --entrant clock for a game without turns",
             ["play", "abalone", "--black", "simple", "--white", "simple", "--entrant",
              "white:clock=10s+1s"], words=["player white: clock: abalone has no turns"]),
        Case(1, "play: one player too few", ["play", "q", "-p", "a:dag"],
             words=["q is for 2 to 4 players, 1 given"]),
        Case(1, "play: --gui for a game without a viewer stream",
             [*PLAY_Q, "--gui", "127.0.0.1:9"], words=["--gui: q has no viewer stream"]),
        Case(1, "play: a --listen port that is not a number",
             ["play", "q", "-p", "a:dag", "-p", "b:tcp", "--listen", "127.0.0.1:12ab"],
             words=['--listen "127.0.0.1:12ab": the port must be a number']),
    ]
    return c


# ---------------------------------------------------------------------------------------------
# Item 2: one name rule, stated when it refuses.

RULE = "a name is 1 to 20 ASCII letters or digits"


def item2():
    c = []
    for name in ["my_bot", "my-bot", "a b", "a" * 21, "b\u00f6b"]:
        c.append(Case(2, f"tournament run refuses the name {name!r}",
                      ["tournament", "run", "-g", "battleship", "-p", f"{name}:density", "-p", "b:hunt"],
                      words=[RULE]))
        c.append(Case(2, f"play refuses the name {name!r}", ["play", "q", "-p", f"{name}:dag", "-p", "b:dag"],
                      words=[RULE]))
    c.append(Case(2, "the course harness refuses the name my_bot", ["q", "xgames"],
                  stdin=(json.dumps({"map": [[0, [0, {"color": "red", "shape": "star"}]]],
                                     "players": [{"score": 0, "tile*": []}, {"score": 0, "tile*": []}],
                                     "tile*": []}) + "\n" +
                         json.dumps([["alice", "dag"], ["my_bot", "dag"]]) + "\n").encode(),
                  words=[RULE]))
    c.append(Case(2, "tournament run with names of 20 letters and digits (control)",
                  ["tournament", "run", "-g", "battleship", "-p", f"{'a' * 19}1:density", "-p", "B2:hunt", "-q"],
                  code=0))
    return c


def tcp_sign_up_case():
    """TCP seats are claimed by token: a client that sends a name, a wrong token or garbage is
    told why and takes no seat; the client with the seat's token plays it."""
    problems = []
    proc = subprocess.Popen([ARGS.arbiter, "play", "q", "-p", "a:dag", "-p", "b:tcp", "--listen",
                             "127.0.0.1:0", "--accept-timeout", "20", "--seed", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        token, port = None, None
        while port is None:
            line = proc.stderr.readline().decode()
            if not line:
                return ["arbiter ended before it listened"]
            if m := re.search(r"seat b is claimed with the token (\S+)", line):
                token = m.group(1)
            if m := re.search(r"on port (\d+)", line):
                port = int(m.group(1))
        if not token or not re.fullmatch(r"b-[0-9a-f]{32}", token):
            return [f"no token for seat b printed: {token!r}"]
        for hello, words in ((b'"b"\n', b"no tcp seat has this token"),
                             (b'"b-00000000000000000000000000000000"\n', b"no tcp seat has this token"),
                             (b'{"token": 1}\n', b"sign up by sending your seat's token"),
                             (b"\x00garbage\n", b"sign up by sending your seat's token")):
            bad = socket.create_connection(("127.0.0.1", port), timeout=5)
            bad.sendall(hello)
            bad.settimeout(5)
            try:
                reply = bad.recv(300)
            except (socket.timeout, ConnectionResetError) as e:
                reply = repr(e).encode()
            if not reply.startswith(b'["refused",') or words not in reply:
                problems.append(f"{hello!r} was not refused with {words!r}: {reply!r}")
            bad.close()
        if ARGS.qbot:
            wrong = subprocess.run([ARGS.qbot, "--tcp", f"127.0.0.1:{port}", "--token", "nope"],
                                   capture_output=True, timeout=30)
            if wrong.returncode == 0 or b"refused the sign-up" not in wrong.stderr:
                problems.append(f"q-bot with a wrong token: exit {wrong.returncode} {wrong.stderr!r}")
            good = subprocess.run([ARGS.qbot, "--tcp", f"127.0.0.1:{port}", "--token", token],
                                  capture_output=True, timeout=30)
            if good.returncode != 0:
                problems.append(f"q-bot with the token: exit {good.returncode} {good.stderr!r}")
        out, err = proc.communicate(timeout=30)
        if token.encode() in out:
            problems.append("the token is in the result")
        if ARGS.qbot and b"ejected: b" in out:
            problems.append(f"the good client was ejected: {out!r}")
    except subprocess.TimeoutExpired:
        problems.append("play did not end")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    return problems


# ---------------------------------------------------------------------------------------------
# Item 3: every write checked: /dev/full and read-only directories.


def item3():
    return [
        Case(3, "play --log /dev/full: exit 1 with the path and the reason", [*PLAY_Q, "--log", "/dev/full"],
             code=1, words=["--log: /dev/full: No space left on device"], changes=True),
        Case(3, "play --log in a read-only directory", [*PLAY_Q, "--log", "ro/g.jsonl"], wrap=read_only("ro"),
             words=["--log ro/g.jsonl: "]),
        Case(3, "play --log in a directory that does not exist", [*PLAY_Q, "--log", "no/g.jsonl"],
             words=["--log no/g.jsonl: No such file or directory"]),
        Case(3, "play with stdout on /dev/full: exit 1", [*PLAY_Q], code=1, stdout_to="/dev/full",
             words=["standard output: No space left on device"]),
        Case(3, "play --json with stdout on /dev/full: exit 1", [*PLAY_Q, "--json"], code=1,
             stdout_to="/dev/full", words=["standard output: No space left on device"]),
        Case(3, "games with stdout on /dev/full: exit 1", ["games"], code=1, stdout_to="/dev/full",
             words=["standard output: No space left on device"]),
        Case(3, "--help with stdout on /dev/full: exit 1", ["--help"], code=1, stdout_to="/dev/full",
             words=["standard output: No space left on device"]),
        Case(3, "tournament run --csv /dev/full: exit 1", ["tournament", "run", *Q2, "-q", "--csv", "/dev/full"],
             code=1, words=["--csv /dev/full: No space left on device"], changes=True),
        Case(3, "tournament results --json /dev/full: exit 1",
             ["tournament", "results", "1", "--store", "t.db", "--json", "/dev/full"], setup=made_store,
             code=1, words=["--json /dev/full: No space left on device"], changes=True),
        Case(3, "tournament results --matches-csv /dev/full: exit 1",
             ["tournament", "results", "1", "--store", "t.db", "--matches-csv", "/dev/full"],
             setup=made_store, code=1, words=["--matches-csv /dev/full: No space left on device"],
             changes=True),
        Case(3, "tournament log with stdout on /dev/full: exit 1",
             ["tournament", "log", "1", "0", "--store", "t.db"], setup=made_store, code=1,
             stdout_to="/dev/full", words=["standard output: No space left on device"], changes=True),
        Case(3, "dominosa generate with stdout on /dev/full: exit 1", ["dominosa", "generate", "--n", "6"],
             code=1, stdout_to="/dev/full", words=["standard output: No space left on device"],
             stderr_lines=None),
        Case(3, "q xmap with stdout on /dev/full: exit 1", ["q", "xmap"], code=1, stdout_to="/dev/full",
             stdin=b'[[0,[0,{"color":"red","shape":"star"}]]] {"color":"red","shape":"circle"}\n',
             words=["standard output: No space left on device"]),
        Case(3, "a stderr log that fills the disk: exit 1 with the path",
             ["play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} {TOLD} turn-based --noise 20000",
              "--stderr-dir", "full"], wrap=tiny_fs("full"), code=1, changes=True,
             words=["--stderr-dir: ", "full/b.stderr: No space left on device"]),
        Case(3, "a tournament into a read-only store", ["tournament", "run", *Q2, "--store", "ro/t.db", "-q"],
             setup=lambda d: made_store(d) or (d / "ro").mkdir() or os.replace(d / "t.db", d / "ro" / "t.db"),
             wrap=read_only("ro"), code=2, words=["ro/t.db"]),
    ]


# ---------------------------------------------------------------------------------------------
# Item 4: no input crashes: every command that reads a file, with bad files.

GARBAGE = bytes(range(256)) * 8


def bad_files(item, what, argv_of, words_of=None):
    """The same command with a directory, a missing file, an empty file, binary garbage and a
    FIFO fed garbage in place of its file."""
    out = []
    kinds = [
        ("a directory", mkdir("sub"), "sub", "sub: is a directory"),
        ("a missing file", None, "missing.txt", "missing.txt: No such file or directory"),
        ("an empty file", write("empty.txt", b""), "empty.txt", None),
        ("binary garbage", write("garbage.bin", GARBAGE), "garbage.bin", None),
        ("a FIFO fed garbage", fifo_with("pipe", GARBAGE), "pipe", None),
        ("a file larger than any input", None, "/dev/zero", "larger than"),
    ]
    for label, setup, path, words in kinds:
        out.append(Case(item, f"{what} reading {label}", argv_of(path), setup=setup,
                        words=[words] if words else []))
    return out


def item4():
    c = []
    c += bad_files(4, "dominosa solve", lambda p: ["dominosa", "solve", p])
    c += bad_files(4, "dominosa grade (puzzle)", lambda p: ["dominosa", "grade", p])
    c += bad_files(4, "replay", lambda p: ["replay", p])
    c += bad_files(4, "tournament run -f", lambda p: ["tournament", "run", "-f", p])
    c += bad_files(4, "play speed_scrabble with a dictionary",
                   lambda p: ["play", "speed_scrabble", "-p", "a:solver", "-p", "b:solver", "--config",
                              json.dumps({"dictionary": p})])
    # A team file that reads but is no Lua program is the team's fault: it forfeits, with why.
    for x in bad_files(4, "play abalone with a team file",
                       lambda p: ["play", "abalone", "--black", f"lua:{p}", "--white", "simple"]):
        if any(k in x.name for k in ("empty", "garbage", "FIFO")):
            x.code, x.words, x.changes = 0, ["ejected: black during setup", "does not load"], True
        c.append(x)
    c += [
        Case(4, "dominosa solve with empty stdin", ["dominosa", "solve"], words=["standard input"]),
        Case(4, "q xmap with binary garbage on stdin", ["q", "xmap"], stdin=GARBAGE),
        Case(4, "replay of a valid log (control)", ["replay", "g.jsonl"], code=0, words=["identical"],
             setup=lambda d: arbiter(*PLAY_Q, "--log", str(d / "g.jsonl"))),
        Case(4, "dominosa solve of a FIFO with a puzzle (control)", ["dominosa", "solve", "pipe"], code=0,
             setup=fifo_with("pipe", b"3:00031312310223131022\n"), changes=True),
    ]
    return c


# ---------------------------------------------------------------------------------------------
# Item 5: organizer mistakes are errors before the match, not ejections.


def item5():
    c = []
    for label, setup, path, words in [
        ("missing", None, "nope", "--stderr-dir nope: No such file or directory"),
        ("a file", write("afile", "x"), "afile", "--stderr-dir afile: not a directory"),
    ]:
        c += [
            Case(5, f"play --stderr-dir {label}",
                 ["play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} bots/python/q_bot.py", "--stderr-dir", path,
                  "--log", "g.jsonl"], setup=setup, words=[words]),
            Case(5, f"tournament run --stderr-dir {label}",
                 ["tournament", "run", "-g", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} bots/python/q_bot.py",
                  "--stderr-dir", path], setup=setup, words=[words]),
        ]
    c.append(Case(5, "play --stderr-dir read-only",
                  ["play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} bots/python/q_bot.py", "--stderr-dir", "ro"],
                  wrap=read_only("ro"), words=["--stderr-dir ro: "]))
    return c


# ---------------------------------------------------------------------------------------------
# Item 6: an ejected program is told why, in the log's words, before it is killed.


def notice_check(stderr_file, log_file=None):
    def check(d, out, err):
        p = d / stderr_file
        if not p.exists():
            return [f"no {stderr_file}"]
        got = [json.loads(l[len("RECEIVED "):]) for l in p.read_text().splitlines() if l.startswith("RECEIVED ")]
        notices = [m for m in got if m and m[0] == "ejected"]
        if not notices:
            return [f"the program never received the notice; it got {got!r}"]
        n = notices[0][1][0]
        if set(n) != {"verdict", "call", "detail"}:
            return [f"notice fields {sorted(n)}"]
        if log_file:
            lines = [json.loads(l) for l in (d / log_file).read_text().splitlines()]
            ejections = [e for l in lines if l.get("type") == "result" for e in l.get("ejections", [])]
            ejections += [l for l in lines if l.get("type") == "ejection"]
            if not any(e.get("why") == n["verdict"] and e.get("detail") == n["detail"] and
                       e.get("call") == n["call"] for e in ejections):
                return [f"the notice {n} does not match the log's ejections {ejections}"]
        return []
    return check


def item6():
    return [
        Case(6, "q: the notice reaches the ejected program",
             ["play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} {TOLD}", "--stderr-dir", ".", "--log", "g.jsonl"],
             code=0, check=notice_check("b.stderr", "g.jsonl")),
        Case(6, "battleship: the notice reaches a program ejected at setup (the match ends at once)",
             ["play", "battleship", "-p", "a:hunt", "-p", f"b:cmd:{PY} {TOLD}", "--stderr-dir", ".",
              "--log", "g.jsonl"], code=0, check=notice_check("b.stderr", "g.jsonl")),
        Case(6, "abalone: the notice reaches an external team",
             ["play", "abalone", "--black", "simple", "--white", f"cmd:{PY} {TOLD}", "--stderr-dir", ".",
              "--log", "g.jsonl"], code=0, check=notice_check("white.stderr")),
        Case(6, "speed_scrabble: the notice reaches a real-time player",
             ["play", "speed_scrabble", "-p", "a:slow=2", "-p", f"b:cmd:{PY} {TOLD} realtime", "--stderr-dir",
              ".", "--log", "g.jsonl"], code=0, check=notice_check("b.stderr", "g.jsonl")),
        Case(6, "tournament: the notice is in the stored stderr tail",
             ["tournament", "run", "-g", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} {TOLD}", "--store", "t.db", "-q"],
             code=0, check=lambda d, o, e: [] if "RECEIVED [\"ejected\"" in arbiter(
                 "tournament", "log", "1", "0", "--stderr", "--store", "t.db", cwd=d).stdout
             else ["no notice in tournament log --stderr"]),
        # Seeded: on some deals dag places its whole hand at once and the game ends before b's turn.
        Case(6, "the example Python bot logs the notice",
             ["play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} examples/q_misbehave.py --mode foul --turn 1", "--read-only", "bots/python",
              "--stderr-dir", ".", "--seed", "1"], code=0, check=file_holds("b.stderr", "ejected: foul during take_turn")),
        Case(6, "a program that cannot start says why in its ejection",
             ["play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} no-such-script.py"], code=0,
             words=["ejected: b during setup", "no-such-script.py"]),
    ]


# ---------------------------------------------------------------------------------------------
# Item 7: program stderr in tournaments: a bounded tail per match in the store.

NOISY = "import sys\nsys.stderr.write('line one\\n' + 'z' * 20000 + '\\nTHE LAST LINE\\n')\nsys.stderr.flush()\n" \
        "exec(open(sys.argv[1]).read())\n"


def item7():
    def run_noisy(d, *extra):
        # In a folder of its own: no program is started beside the store (docs/security.md).
        (d / "bot").mkdir(exist_ok=True)
        (d / "bot" / "noisy.py").write_text(NOISY)
        return arbiter("tournament", "run", "-g", "q", "-p", "a:dag", "-p",
                       f"b:cmd:{PY} bot/noisy.py {ARGS.root}/bots/python/q_bot.py", "--store", "t.db",
                       "-q", *extra, cwd=d)

    def tail_check(d, out, err):
        text = out.decode()
        problems = []
        if "THE LAST LINE" not in text:
            problems.append("the tail lacks the last line")
        if "line one" in text:
            problems.append("the tail is not bounded (it has the first line of 20 KB)")
        if not re.search(r"== b: 200\d\d bytes on stderr, the last 8192 follow", text):
            problems.append("no header with the byte count")
        return problems

    def csv_check(d, out, err):
        text = out.decode()
        return [] if re.search(r",b:200\d\d,", text) else ["no stderr bytes in the matches CSV"]

    def old_store(d):
        run_noisy(d)
        db = sqlite3.connect(d / "t.db")
        db.execute("ALTER TABLE results DROP COLUMN stderr")
        db.commit()
        db.close()
        for f in ("t.db-wal", "t.db-shm"):
            if (d / f).exists():
                (d / f).unlink()

    return [
        Case(7, "tournament log --stderr prints the bounded tail", ["tournament", "log", "1", "0", "--stderr",
                                                                   "--store", "t.db"],
             setup=lambda d: run_noisy(d), code=0, check=tail_check, changes=True),
        Case(7, "the matches CSV says how much each program wrote",
             ["tournament", "results", "1", "--matches", "--store", "t.db"], setup=lambda d: run_noisy(d),
             code=0, check=csv_check, changes=True),
        Case(7, "tournament run --stderr-dir keeps each match's file",
             ["tournament", "run", "-g", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} bots/python/q_bot.py --transcript",
              "--store", "t.db", "-q", "--stderr-dir", "logs"], setup=mkdir("logs"), code=0,
             check=checks(file_holds("logs/t1-m0-b.stderr", "<- [\"setup\""),
                          file_holds("logs/t1-m1-b.stderr", "<- [\"setup\""))),
        Case(7, "a store made before the stderr column gets it",
             ["tournament", "run", "-g", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} {TOLD}", "--store", "t.db", "-q"],
             setup=old_store, code=0,
             check=lambda d, o, e: [] if "RECEIVED" in arbiter("tournament", "log", "2", "0", "--stderr",
                                                                "--store", "t.db", cwd=d).stdout
             else ["no tail stored after the upgrade"]),
        Case(7, "tournament log --stderr of a match without programs",
             ["tournament", "log", "1", "0", "--stderr", "--store", "t.db"], setup=made_store, code=0,
             words=["(this match ran no program)"], changes=True),
    ]


# ---------------------------------------------------------------------------------------------
# Item 8: --version, documented exit codes that every command keeps.


def item8():
    return [
        Case(8, "--version", ["--version"], code=0,
             check=lambda d, o, e: [] if re.fullmatch(rb"arbiter \d+\.\d+\.\d+ \(git [0-9a-f]{7,}(-dirty)?\)\n", o)
             or re.fullmatch(rb"arbiter \d+\.\d+\.\d+ \(git unknown[^\n]*\)\n", o) else [f"version {o!r}"]),
        Case(8, "--help documents the exit codes", ["--help"], code=0,
             words=["Exit codes", "0  success", "1  failure at run time", "2  bad usage or input"]),
        Case(8, "a replay that differs is exit 1", ["replay", "g.jsonl"], code=1, words=["does not replay identically"],
             setup=lambda d: (arbiter(*PLAY_Q, "--log", str(d / "g.jsonl")),
                              (d / "g.jsonl").write_text((d / "g.jsonl").read_text().replace('"seed":3', '"seed":4', 1)))),
        Case(8, "an unknown command is exit 2", ["frobnicate"], words=['unknown command "frobnicate"']),
        Case(8, "an unknown flag is exit 2", ["play", "q", "--frobnicate"], words=["--frobnicate"]),
        Case(8, "README documents the exit codes", ["--version"], code=0,
             check=lambda d, o, e: [] if all(w in (pathlib.Path(ARGS.root) / "README.md").read_text()
                                             for w in ("Exit codes", "failure at run time",
                                                       "bad usage or input"))
             else ["README lacks the exit codes"]),
    ]


# ---------------------------------------------------------------------------------------------
# Item 9: the repository stands alone.


def item9():
    def no_outside_pointers(d, o, e):
        root = pathlib.Path(ARGS.root)
        bad = []
        for base in ("README.md", "docs", "examples"):
            paths = [root / base] if (root / base).is_file() else sorted((root / base).rglob("*"))
            for p in paths:
                if p.is_file() and re.search(r"shared/", p.read_text(errors="replace")):
                    bad.append(str(p.relative_to(root)))
        return [f"points outside the repository: {', '.join(bad)}"] if bad else []

    def data_inside(d, o, e):
        root = pathlib.Path(ARGS.root)
        problems = []
        if not (root / "tests/data/qtests/README.md").exists():
            problems.append("no tests/data/qtests/README.md")
        if "tests/data/qtests" not in (root / "CMakeLists.txt").read_text():
            problems.append("the build does not point at tests/data/qtests")
        if not (root / "docs/writing-a-bot.md").exists():
            problems.append("no docs/writing-a-bot.md")
        for g in ("q", "battleship", "speed_scrabble", "dominosa", "abalone"):
            if not (root / f"examples/{g}.toml").exists():
                problems.append(f"no examples/{g}.toml")
        return problems

    return [
        Case(9, "README, docs and examples point at nothing outside the repository", ["--version"], code=0,
             check=no_outside_pointers),
        Case(9, "the test data, the bot guide and the examples are in the repository", ["--version"], code=0,
             check=data_inside),
    ]


# ---------------------------------------------------------------------------------------------
# Item 10: a JRow naming a column twice keeps the later cell in the course harnesses.


def item10():
    tile = lambda c, s: {"color": c, "shape": s}
    dup = [[0, [0, tile("red", "square")], [0, tile("green", "star")]]]
    return [
        Case(10, "q xmap reads a repeated column as the later cell", ["q", "xmap"], code=0,
             stdin=(json.dumps(dup) + "\n" + json.dumps(tile("red", "circle")) + "\n").encode(),
             check=lambda d, o, e: [] if json.loads(o) == [] else [f"candidates {o!r}: the earlier cell was kept"]),
        Case(10, "q xscore reads a repeated column as the later cell", ["q", "xscore"], code=0,
             stdin=(json.dumps(dup) + "\n" + json.dumps([{"coordinate": {"row": 0, "column": 0},
                                                          "1tile": tile("green", "star")}]) + "\n").encode(),
             words=["1"]),
    ]


# ---------------------------------------------------------------------------------------------
# Issue 33, items 9-13: what a newcomer trips over on a fresh machine and in a bot author's
# first hour.

NODE_CRASH = "// A bot that dies at its first message, as a new bot often does.\n" \
    "process.stdin.once('data', () => { throw new Error('no move for this view'); });\n"
SHIM = "#!/bin/sh\n# a version manager's shim: runs an interpreter the walls do not show\n" \
    "exec /opt/no-such-manager/libexec/python3 \"$@\"\n"


def copy_bot(rel):
    def setup(d):
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(pathlib.Path(ARGS.root) / "bots/python/battleship_bot.py", d / rel)
    return setup


def default_server_config():
    config = json.loads((pathlib.Path(ARGS.root) / "tests/data/qtests/mfelleisen__Qwirkle/10/Run/"
                         "default-server-config.json").read_text())
    config["server-wait"], config["server-tries"] = 1, 1  # nobody comes: over in a second
    return (json.dumps(config) + "\n").encode()


def columns_line_up(d, out, err):
    lines = out.decode().splitlines()
    starts = {len(l) - len(l.split(None, 1)[1]) for l in lines[0:-1:2]}
    bots = {len(l) - len(l.lstrip()) for l in lines[1:-1:2]}
    return [] if len(starts) == 1 and bots == starts else [f"columns at {starts} and {bots}"]


def item33():
    port = free_tcp_port()
    return [
        Case(33.10, "arbiter games lists every house bot", ["games"], code=0,
             words=["posterior", "+hardest", "lookahead", "speed_scrabble"], check=columns_line_up),
        Case(33.11, "a clean sweep's Elo is a finite bound, said as one; each Elo says what it is",
             ["tournament", "run", "-g", "battleship", "-p", "a:density", "-p", "b:random",
              "--rounds", "3", "--seed", "2", "--store", "sqlite:{dir}/t.db", "-q"], code=0,
             words=["Elo of a over b: at least +", "every game won", "elo±95% (mean 0)"],
             check=lambda d, o, e: ["an infinite Elo is printed"] if b"inf" in o else []),
        Case(33.12, "a bot beside the game log: refused, saying what and how to fix it",
             ["play", "battleship", "-p", "a:hunt", "-p", "me:cmd:python3 bot.py", "--log",
              "g.jsonl"], setup=copy_bot("bot.py"),
             words=["the game log", "put the program in a folder of its own",
                    "keep the game log elsewhere"]),
        Case(33.12, "in a folder of its own, with the log beside it, the bot plays",
             ["play", "battleship", "-p", "a:hunt", "-p", "me:cmd:python3 mybot/bot.py", "--log",
              "g.jsonl", "--stderr-dir", "."], code=0, setup=copy_bot("mybot/bot.py"),
             check=checks(exists("g.jsonl"), exists("me.stderr"),
                          lambda d, o, e: ["the bot was ejected"] if b"ejected:" in o else [])),
        Case(33.12, "a crashed Node bot's last words are its error, and where the rest is",
             ["play", "battleship", "-p", "a:hunt", "-p", "me:cmd:node mybot/bot.js"], code=0,
             setup=write("mybot/bot.js", NODE_CRASH),
             words=["Error: no move for this view", "--stderr-dir"],
             check=lambda d, o, e: ["the Node.js banner is given as its last words"]
             if b'"Node.js v' in o else []),
        Case(33.12, "cmd:python3 runs the system's python3 even with a shim first on PATH",
             ["play", "battleship", "-p", "a:hunt", "-p", "me:cmd:python3 mybot/bot.py"], code=0,
             setup=setups(copy_bot("mybot/bot.py"), write("shims/python3", SHIM),
                          lambda d: os.chmod(d / "shims/python3", 0o755)),
             path_first="{dir}/shims",
             check=lambda d, o, e: ["the bot was ejected"] if b"ejected:" in o else []),
        Case(33.12, "an interpreter the walls cannot find: one line naming where it looked",
             ["play", "battleship", "-p", "a:hunt", "-p", "me:cmd:python9 mybot/bot.py"],
             setup=setups(copy_bot("mybot/bot.py"), write("shims/python9", SHIM),
                          lambda d: os.chmod(d / "shims/python9", 0o755)),
             path_first="{dir}/shims", words=["/usr/local/bin:/usr/bin:/bin", "absolute path"]),
        Case(33.12, "serve --help names the pages and the API", ["serve", "--help"], code=0,
             words=["tournament.html?id=", "match.html?t=", "/api/tournaments"]),
        Case(33.12, "serve's start line names the pages and the API",
             ["serve", "--store", "sqlite:{dir}/t.db", "--listen", "127.0.0.1:0"], code=0,
             setup=made_store, changes=True,
             wrap=lambda d, cmd: ["timeout", "--preserve-status", "-s", "INT", "2", *cmd],
             words=["is at http://127.0.0.1:", "tournament.html?id=", "match.html?t=",
                    "api/tournaments"]),
        Case(33.13, "the course's default server config (no players in state0) runs",
             ["q", "xserver", str(port)], code=0, stdin=default_server_config(),
             words=["[[],[]]"]),
        Case(33.13, "dominosa generate of a huge n gives up at --timeout, in one line",
             ["dominosa", "generate", "--n", "400", "--timeout", "2"], code=4,
             words=["--timeout 2"], stderr_lines=None),
        Case(33.13, "a race takes a player's own per_call",
             ["play", "speed_scrabble", "-p", "a:solver", "-p", "b:solver", "--entrant",
              "a:per_call=0.5", "--seed", "1"], code=0, words=["--entrant a:per_call=0.5"]),
        Case(33.13, "a tcp match's reproduce line keeps its --listen",
             ["play", "q", "-p", "a:dag", "-p", "b:tcp", "--listen", f"127.0.0.1:{port + 1}",
              "--accept-timeout", "1", "--seed", "1"], code=0,
             words=[f"--listen 127.0.0.1:{port + 1}"]),
    ]


def free_tcp_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_progress_case():
    """scripts/build.sh as a newcomer sees it, in a real terminal: what it does, then the build's
    share done, rewritten in place; and when the build fails, the end of its log and where the
    rest is. A stand-in cmake prints ninja's lines, so nothing is built."""
    import pty
    problems = []
    with tempfile.TemporaryDirectory(prefix="arbiter-build-") as d:
        d = pathlib.Path(d)
        (d / "scripts").mkdir()
        shutil.copy(pathlib.Path(ARGS.root) / "scripts/build.sh", d / "scripts")
        (d / "bin").mkdir()
        (d / "bin/cmake").write_text(
            "#!/bin/sh\n[ \"$1\" = --build ] || exit 0\n"
            "for i in 1 2 3 4 5 6 7 8 9 10; do echo \"[$i/10] Building CXX object x$i.o\"; done\n"
            "[ -n \"$FAIL\" ] && { echo \"x7.cpp:1: error: expected ';'\"; exit 1; }\nexit 0\n")
        os.chmod(d / "bin/cmake", 0o755)
        for fail in ("", "1"):
            env = dict(os.environ, PATH=f"{d}/bin:{os.environ['PATH']}", FAIL=fail)
            out = bytearray()
            pid, fd = pty.fork()
            if pid == 0:
                os.execve("/bin/bash", ["bash", str(d / "scripts/build.sh"), "dev"], env)
            while True:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            _, status = os.waitpid(pid, 0)
            text = out.decode(errors="replace")
            code = os.waitstatus_to_exitcode(status)
            if not fail:
                if code != 0 or "build: compiling arbiter (dev) for the first time" not in text \
                        or "\rbuild: 100% (10 of 10 steps)" not in text or "build: done" not in text:
                    problems.append(f"a build that works: exit {code}, {text[-300:]!r}")
                if "Building CXX" in text:
                    problems.append("the compiler's lines were shown")
            elif code != 1 or "error: expected ';'" not in text or "build/dev.log" not in text:
                problems.append(f"a build that fails: exit {code}, {text[-300:]!r}")
    demo = (pathlib.Path(ARGS.root) / "scripts/demo.sh").read_text()
    if "scripts/build.sh" not in demo or ">/dev/null" in demo.split("build.sh")[0].split("setup.sh")[-1]:
        problems.append("demo.sh does not build through scripts/build.sh")
    return problems


# ---------------------------------------------------------------------------------------------
# The sweep: every flag's bad values.


def sweep():
    c = []
    numeric = [
        (["play", "q", "-p", "a:dag", "-p", "b:dag"], ["--seed", "--per-call", "--accept-timeout", "--memory-mb",
                                                       "--cpu-seconds", "--max-open-files", "--max-processes"]),
        (["tournament", "run", *Q2], ["--seed", "--per-call", "--rounds", "--seats", "--workers", "--batch", "--lease"]),
        (["worker", "--store", "t.db"], ["--workers", "--batch", "--lease", "--tournament"]),
        (["battleship", "eval", "--bot", "hunt"], ["--games", "--seed"]),
        (["dominosa", "generate"], ["--n", "--seed", "--threads"]),
        (["q", "xgames"], ["--per-call"]),
    ]
    for prefix, flags in numeric:
        for flag in flags:
            for bad in ["abc", "-1", "nan", "", "1e999", "99999999999999999999999"]:
                if flag == "--tournament" and bad in ("-1",):
                    continue
                c.append(Case("sweep", f"{' '.join(prefix[:2])} {flag} {bad!r}", [*prefix, flag, bad],
                              words=[flag] if bad != "" else []))
    for prefix in (["tournament", "status"], ["tournament", "results", "1"], ["tournament", "log", "1", "0"],
                   ["tournament", "resume", "1"]):
        c.append(Case("sweep", f"{' '.join(prefix)}: no store", [*prefix, "--store", "none.db"],
                      words=["there is no store none.db"]))
        c.append(Case("sweep", f"{' '.join(prefix)}: a store that is not a database", [*prefix, "--store", "junk.db"],
                      setup=write("junk.db", GARBAGE), words=["junk.db"]))
    c += [
        Case("sweep", "tournament log: a match that is not there", ["tournament", "log", "1", "99", "--store", "t.db"],
             setup=made_store, words=["no result for match 99"]),
        Case("sweep", "tournament results: a tournament that is not there",
             ["tournament", "results", "9", "--store", "t.db"], setup=made_store, words=["no tournament 9"]),
        Case("sweep", "tournament status: a tournament that is not there",
             ["tournament", "status", "9", "--store", "t.db"], setup=made_store, words=["no tournament 9"]),
        Case("sweep", "play: --player without a colon", ["play", "q", "-p", "adag", "-p", "b:dag"],
             words=["expected NAME:BOT"]),
        Case("sweep", "play: the same name twice", ["play", "q", "-p", "a:dag", "-p", "a:dag"], words=["twice"]),
        Case("sweep", "play: --black without --white", ["play", "abalone", "--black", "simple"], words=["--white"]),
        Case("sweep", "play: an unknown game", ["play", "chess", "-p", "a:x"], words=['unknown game "chess"']),
        Case("sweep", "tournament run: no players", ["tournament", "run", "-g", "q"], words=["no players"]),
        Case("sweep", "tournament run: no game", ["tournament", "run", "-p", "a:dag"], words=["no game"]),
        Case("sweep", "tournament run: an unknown schedule", ["tournament", "run", *Q2, "--schedule", "league"],
             words=['"league"']),
        Case("sweep", "tournament run: a hero outside the gauntlet", ["tournament", "run", *Q2, "--hero", "a"],
             words=["gauntlet"]),
        Case("sweep", "tournament run: a tournament name with a space", ["tournament", "run", *Q2, "--name", "a b"],
             words=["tournament name"]),
        Case("sweep", "tournament run: an empty store URL", ["tournament", "run", *Q2, "--store", ""],
             words=["store"]),
        Case("sweep", "tournament run: sqlite: without a file", ["tournament", "run", *Q2, "--store", "sqlite:"],
             words=["sqlite: needs a file"]),
        Case("sweep", "play abalone: --gui that is not HOST:PORT",
             ["play", "abalone", "--black", "simple", "--white", "simple", "--gui", "viewer"],
             words=['--gui "viewer": expected HOST:PORT']),
        Case("sweep", "q xserver: a port that is not a number", ["q", "xserver", "http"], stdin=b"{}\n"),
        Case("sweep", "dominosa generate: an unknown level", ["dominosa", "generate", "--level", "insane"],
             words=['"insane"']),
        Case("sweep", "battleship eval: an unknown bot", ["battleship", "eval", "--bot", "psychic"],
             words=['"psychic"']),
        Case("sweep", "battleship eval: an unknown placement", ["battleship", "eval", "--fleets", "sneaky"],
             words=['"sneaky"', "hardest"]),
        Case("sweep", "battleship eval: a config with no room for the fleet",
             ["battleship", "eval", "--bot", "random", "--games", "2", "--config",
              '{"rows": 9, "cols": 9, "no_touch": true, "ships": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}'],
             words=["no legal fleet"]),
        Case("sweep", "battleship eval: --fleets with --against",
             ["battleship", "eval", "--fleets", "hardest", "--against", "hunt"], words=["density+hardest"]),
        Case("sweep", "an error line with control bytes stays one printable line",
             ["play", "q", "-p", "a\x1b[31m:dag", "-p", "b:dag"], words=["player name"],
             check=lambda d, o, e: ["a raw control byte on stderr"] if re.search(rb"[\x00-\x09\x0b-\x1f]", e)
             else []),
    ]
    return c


# ---------------------------------------------------------------------------------------------


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--root", required=True, help="the repository root")
    ap.add_argument("--qbot", help="the q-bot binary (for the TCP sign-up case)")
    ap.add_argument("-k", help="only cases whose name contains this")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--jobs", type=int, default=4)
    ARGS = ap.parse_args()
    ARGS.arbiter = str(pathlib.Path(ARGS.arbiter).resolve())
    ARGS.root = str(pathlib.Path(ARGS.root).resolve())
    cases = item1() + item2() + item3() + item4() + item5() + item6() + item7() + item8() + item9() \
        + item10() + item33() + sweep()
    if ARGS.k:
        cases = [c for c in cases if ARGS.k in c.name]
    failed = passed = 0
    with concurrent.futures.ThreadPoolExecutor(ARGS.jobs) as pool:
        results = list(pool.map(lambda c: (c, run_case(c)), cases))
    if not ARGS.k or "tcp" in ARGS.k:
        results.append((Case(2, "TCP seats are claimed by token only", []), tcp_sign_up_case()))
    if not ARGS.k or "build" in ARGS.k:
        results.append((Case(33.9, "the build says what it does and how far it is", []),
                        build_progress_case()))
    for case, problems in results:
        if problems:
            failed += 1
            print(f"FAIL [{case.item}] {case.name}: " + "; ".join(problems))
        else:
            passed += 1
            if ARGS.verbose:
                print(f"ok   [{case.item}] {case.name}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
