#!/usr/bin/env python3
"""The walls around program players (on by default), attacked from a real process and
checked from outside.

  a. `arbiter sandbox check` says every wall is up on this machine.
  b. The probe (tests/misbehaving/probe.py) plays a Q match behind the walls and tries: root,
     /etc/shadow, another entrant's file (read and write), writing to the host, the referee's
     environment, the host's 127.0.0.1, an outside address, other processes, mount, setuid,
     ptrace, a user namespace, keyrings, raw and packet sockets (the seccomp filter), filling its
     scratch directory, a grandchild that detaches to outlive the match.
     Its report must show every attempt failed, and from outside: the planted file is unchanged,
     nothing was written, no connection reached the host's port, nothing survives the match.
  c. The same probe with --unsafe-no-sandbox gets through (so (b) can fail).
  d. Players still play behind the walls: the example Python bot, q-bot, an Abalone team, the
     ejection notice.
  e. Bad sandbox options are one-line errors, exit 2.
  f. The hostile matrix: a fork bomb, a memory bomb, 100 MB on stderr and a spinning CPU get
     their named verdicts; an fd bomb, a detached grandchild, kill(-1) and kill of a host pid,
     and a full scratch disk change nothing outside; the match goes on and nothing survives it.
  g. The probe gets nowhere in a tournament (SQLite) or as an Abalone team either; a bot in a
     private (0700) directory still runs.
  h. A referee that cannot build the walls (run as nobody) refuses cmd players in one line and
     runs them with --unsafe-no-sandbox, warning.
  i. A program given a working directory (--workdir; a tournament entrant's dir) starts there
     and reads its files by relative paths, but cannot write there, nor read the organizer's
     0600 file there, also when an argument names a file in its parent directory; unwalled,
     it can write (so the check can fail).
  j. A program is never started where it would see the referee's private files: beside the
     game log of its own match (play --log), or beside the SQLite store of its tournament (run,
     create, and a store moved there for resume or a worker): one line, exit 2, nothing created
     or changed; started as usual once they are elsewhere.

  k. Links an entrant plants in its own directory get it nothing: a link named as an argument
     that leads out of its directory is refused in one line (a link within it is followed); a
     link where its stderr file will be is replaced, not written through; a program in a bin
     directory is not shown the directories beside it.

Usage: sandbox_e2e.py --arbiter PATH --root REPO --qbot PATH   (as root; Python: /usr/bin/python3)
"""
import argparse
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ARGS = None
PY = "/usr/bin/python3"  # Debian's, inside /usr; the walls show no pyenv shims
FAILED = []


def report(name, problems):
    if problems:
        FAILED.append(name)
        print(f"FAIL {name}: " + "; ".join(problems))
    else:
        print(f"ok   {name}")


def arbiter(*argv, env=None, timeout=120, cwd=None):
    return subprocess.run([ARGS.arbiter, *argv], capture_output=True, text=True, timeout=timeout,
                          env=env, cwd=cwd or ARGS.root)


def survivors(marker):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if marker in open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace"):
                found.append(pid)
        except OSError:
            pass
    return found


def run_probe(tmp, sandboxed, reads_only=False):
    """Plays the probe; returns (its report or None, problems seen from outside)."""
    other = tmp / "other"
    other.mkdir(exist_ok=True)
    planted = other / "planted.txt"
    planted.write_text("another entrant's secret strategy\n")
    write_dir = tmp / "host"
    write_dir.mkdir(exist_ok=True)
    logs = tmp / "logs"
    logs.mkdir(exist_ok=True)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    env = dict(os.environ, ARBITER_TEST_SECRET="hunter2", PGPASSWORD="secret")
    argv = ["play", "q", "-p", "a:dag", "-p",
            f"p:cmd:{PY} tests/misbehaving/probe.py @{planted} {port} @{write_dir}"
            + (" --reads-only" if reads_only else ""),
            "--stderr-dir", str(logs), "--per-call", "30"]
    if not sandboxed:
        argv.append("--unsafe-no-sandbox")
    r = arbiter(*argv, env=env)
    problems = []
    if r.returncode != 0:
        problems.append(f"play exit {r.returncode}: {r.stderr.strip()}")
    reached = False
    try:
        conn, _ = listener.accept()
        reached = True
        conn.close()
    except (socket.timeout, BlockingIOError):
        pass
    listener.close()
    outside = {"planted unchanged": planted.read_text() == "another entrant's secret strategy\n",
               "nothing written to the host": not any(write_dir.iterdir()),
               "no connection reached the host's port": not reached}
    time.sleep(0.3)
    outside["nothing survives the match"] = not survivors("probe-survivor")
    for pid in survivors("probe-survivor"):
        os.kill(int(pid), 9)
    stderr_file = logs / "p.stderr"
    probe = None
    if stderr_file.exists():
        for line in stderr_file.read_text().splitlines():
            if line.startswith("PROBE "):
                probe = json.loads(line[6:])
    return probe, outside, problems


def check_walls(tmp):
    probe, outside, problems = run_probe(tmp, sandboxed=True)
    if probe is None:
        report("b. the probe behind the walls", problems + ["no report from the probe"])
        return
    problems += probe_problems(probe)
    problems += [what for what, ok in outside.items() if not ok]
    report("b. the probe gets nowhere behind the walls", problems)


def probe_problems(probe):
    """What the probe managed that it must not have."""
    problems = []
    if probe["uid"] == 0 or probe["euid"] == 0:
        problems.append(f"runs as uid {probe['uid']}")
    for attack in ("shadow", "planted_read", "planted_write", "write_host_dir", "write_usr",
                   "host_port", "outside", "mount", "setuid0", "ptrace", "fill_scratch",
                   "unshare_user", "keyctl", "raw_socket", "packet_socket"):
        if not probe[attack].startswith("no:"):
            problems.append(f"{attack}: {probe[attack]}")
    if probe["env"] != ["ARBITER_SEED", "HOME", "LANG", "PATH"]:
        problems.append(f"environment {probe['env']}")
    if len(probe["pids"]) > 3:
        problems.append(f"sees processes {probe['pids']}")
    if "Errno 28" not in probe["fill_scratch"]:
        problems.append(f"scratch not capped: {probe['fill_scratch']}")
    return problems


def check_control(tmp):
    # Unwalled, only the attempts that change nothing: the others would hit this machine itself.
    (tmp / "control").mkdir()
    probe, outside, problems = run_probe(tmp / "control", sandboxed=False, reads_only=True)
    got_through = probe is not None and (probe["planted_read"].startswith("ok:") or
                                        probe["write_host_dir"].startswith("ok:") or
                                        "ARBITER_TEST_SECRET" in probe["env"])
    report("c. with --unsafe-no-sandbox the same probe gets through (the check can fail)",
           problems + ([] if got_through else [f"the probe got nowhere unwalled: {probe}"]))


def check_players(tmp):
    cases = [
        ("the example Python Q bot", ["play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} bots/python/q_bot.py",
                                      "--seed", "4"], "winners:"),
        ("q-bot", ["play", "q", "-p", "a:dag", "-p", f"b:cmd:{ARGS.qbot} --strategy ldasg"],
         "winners:"),
        ("an Abalone team from outside", ["play", "abalone", "--black", "simple", "--white",
                                          f"cmd:{PY} bots/python/abalone_team.py"], "winners:"),
        ("a Battleship bot", ["play", "battleship", "-p", "a:hunt", "-p",
                              f"b:cmd:{PY} bots/python/battleship_bot.py"], "winners:"),
    ]
    for name, argv, want in cases:
        r = arbiter(*argv)
        problems = []
        if r.returncode != 0 or want not in r.stdout:
            problems.append(f"exit {r.returncode}: {r.stdout[-300:]} {r.stderr.strip()}")
        if "ejected" in r.stdout:
            problems.append(f"ejected: {r.stdout}")
        report(f"d. {name} plays behind the walls", problems)
    logs = tmp / "told"
    logs.mkdir()
    r = arbiter("play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} tests/misbehaving/told_why.py",
                "--stderr-dir", str(logs))
    text = (logs / "b.stderr").read_text() if (logs / "b.stderr").exists() else ""
    report("d. the ejection notice reaches a walled program",
           [] if 'RECEIVED ["ejected"' in text else [f"stderr {text!r}, exit {r.returncode} {r.stderr}"])


HOSTILE = "tests/misbehaving/hostile.py"

# mode, extra options, the verdict expected for the hostile seat (None: it plays on).
MATRIX = [
    ("fork-bomb", ["--processes", "16"], "process-limit"),
    ("memory-bomb", ["--memory", "128M"], "memory-limit"),
    ("stderr-flood", ["--output", "4M"], "output-limit"),
    ("cpu-spin", ["--cpu-time", "1s"], "cpu-limit"),
    ("fd-bomb", ["--open-files", "64"], None),
    ("double-fork", [], None),
    ("kill-all", [], None),
    ("fill-scratch", [], None),
]


def check_matrix(tmp, cgroups):
    """f. Each hostile program, behind the walls: the verdict is named, the match goes on, the
    host is untouched and nothing of the program survives the match (checked from outside).
    Without cgroups the caps are rlimits, which cap as well but do not say so: a fork bomb is
    refused forks and plays on, a memory bomb dies of a MemoryError (a hang-up)."""
    for mode, extra, verdict in MATRIX:
        if not cgroups and verdict in ("process-limit", "memory-limit"):
            verdict = None if verdict == "process-limit" else "hang-up"
        logs = tmp / f"hostile-{mode}"
        logs.mkdir()
        host_file = pathlib.Path("/tmp/fill")
        existed = host_file.exists()
        start = time.monotonic()
        r = arbiter("play", "q", "-p", "a:dag", "-p", f"h:cmd:{PY} {HOSTILE} {mode} {os.getpid()}",
                    "-p", "b:ldasg", "--per-call", "30", "--json", "--stderr-dir", str(logs), *extra)
        seconds = time.monotonic() - start
        problems = []
        if r.returncode != 0:
            problems.append(f"play exit {r.returncode}: {r.stderr.strip()[:300]}")
        try:
            result = json.loads(r.stdout)
        except json.JSONDecodeError:
            result = {}
            problems.append(f"no JSON result: {r.stdout[:200]!r}")
        ejected = [e for e in result.get("ejections", []) if e.get("seat") == 1]
        got = ejected[0]["why"] if ejected else None
        if got != verdict:
            problems.append(f"verdict {got!r} ({ejected}), expected {verdict!r}")
        if not result.get("winners"):
            problems.append(f"the match did not go on to a winner: {result}")
        time.sleep(0.3)
        left = survivors(HOSTILE) + survivors("hostile-survivor")
        if left:
            problems.append(f"processes {left} outlived the match")
            for pid in left:
                try:
                    os.kill(int(pid), 9)
                except OSError:
                    pass
        if host_file.exists() and not existed:
            problems.append("the scratch file landed on the host's /tmp")
        said = (logs / "h.stderr").read_text(errors="replace") if (logs / "h.stderr").exists() else ""
        line = next((l for l in said.splitlines() if l.startswith("HOSTILE")), "(said nothing)")
        report(f"f. {mode} {' '.join(extra)} -> {verdict or 'plays on'} ({line[:90]}; {seconds:.1f} s)",
               problems)


def check_programs_elsewhere(tmp):
    """g. The probe gets nowhere in a tournament (SQLite) either, nor as an Abalone team; and a
    bot in a private directory (mode 0700) of the organizer still runs (its own files are its
    own behind the walls)."""
    other = tmp / "other"
    planted = other / "planted.txt"
    for name, argv, log in (
            ("in a tournament (SQLite)",
             ["tournament", "run", "-g", "q", "-p", "a:dag", "-p",
              f"p:cmd:{PY} tests/misbehaving/probe.py @{planted} 9 @{tmp / 'host'}",
              "--store", f"sqlite:{tmp / 'probe.db'}", "-q", "--stderr-dir", "{logs}"],
             "t1-m0-p.stderr"),
            ("as an Abalone team",
             ["play", "abalone", "--black", "simple", "--white",
              f"cmd:{PY} tests/misbehaving/probe.py @{planted} 9 @{tmp / 'host'}",
              "--stderr-dir", "{logs}"], "white.stderr")):
        logs = tmp / ("logs-" + name.split()[-1].strip("()"))
        logs.mkdir()
        r = arbiter(*[a.replace("{logs}", str(logs)) for a in argv])
        probe = None
        if (logs / log).exists():
            for line in (logs / log).read_text().splitlines():
                if line.startswith("PROBE "):
                    probe = json.loads(line[6:])
        problems = [] if r.returncode == 0 else [f"exit {r.returncode}: {r.stderr[:200]}"]
        if probe is None:
            problems.append("no report from the probe")
        else:
            problems += probe_problems(probe)
        if planted.read_text() != "another entrant's secret strategy\n":
            problems.append("the planted file changed")
        report(f"g. the probe gets nowhere {name}", problems)
    private = tmp / "private"
    private.mkdir(mode=0o700)
    (private / "bot.py").write_text((pathlib.Path(ARGS.root) / "bots/python/q_bot.py").read_text())
    os.chmod(private / "bot.py", 0o600)
    r = arbiter("play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} {private / 'bot.py'}", "--json")
    ok = r.returncode == 0 and '"ejections":[]' in r.stdout.replace(" ", "")
    report("g. a bot in a private directory (0700, the file 0600) runs behind the walls",
           [] if ok else [f"exit {r.returncode}: {r.stdout[:300]} {r.stderr[:300]}"])


WORKDIR_BOT = r"""
import os, sys
sys.path.insert(0, os.getcwd())
# An absolute path among its arguments is a file of its own elsewhere: read, then dropped.
notes = [a for a in sys.argv[1:] if os.path.isabs(a)]
sys.argv = [a for a in sys.argv if a not in notes]
for path in notes:
    try:
        open(path).read()
    except OSError as e:
        sys.stderr.write("NOTES unreadable: " + str(e) + "\n")
try:
    read = open("weights.txt").read().strip()
except OSError as e:
    read = "failed: " + str(e)
try:
    open("secret.txt").read()
    secret = "read"
except OSError:
    secret = "closed"
try:
    with open("dropped.txt", "w") as f:
        f.write("written from behind the walls")
    wrote = "wrote"
except OSError:
    wrote = "refused"
sys.stderr.write("WORKDIR " + os.getcwd() + " | " + read + " | " + wrote + " | " + secret + "\n")
sys.stderr.flush()
import battleship_bot
battleship_bot.main()
"""


def check_workdir(tmp):
    """i. --workdir: the program starts in its directory, reads its files relative to it, and
    cannot write there behind the walls; with --unsafe-no-sandbox it can. Also when an argument
    names a file in the directory's parent, which makes that parent the program's own: the
    working directory inside it is still shown as it is."""
    for sandboxed, parent_arg in ((True, False), (True, True), (False, False)):
        label = ("walled, an argument in its parent" if parent_arg
                 else "walled" if sandboxed else "open")
        parent = tmp / f"parent {label}"
        parent.mkdir()
        work = parent / "work dir"
        work.mkdir()
        notes = parent / "notes.txt"
        notes.write_text("the bot's notes\n")
        (work / "weights.txt").write_text("the weights\n")
        (work / "battleship_bot.py").write_text(
            (pathlib.Path(ARGS.root) / "bots/python/battleship_bot.py").read_text())
        (work / "bot.py").write_text(WORKDIR_BOT)
        # The organizer's own file in the same directory (a store, tokens): not the program's.
        (work / "secret.txt").write_text("the organizer's tokens\n")
        os.chmod(work / "secret.txt", 0o600)
        logs = tmp / f"logs-workdir-{label}"
        logs.mkdir()
        extra = [] if sandboxed else ["--unsafe-no-sandbox"]
        command = f"{PY} bot.py --seed 1" + (f" '{notes}'" if parent_arg else "")
        r = arbiter("play", "battleship", "-p", "a:hunt", "-p", f"me:cmd:{command}",
                    "--workdir", str(work), "--stderr-dir", str(logs), "--json", *extra)
        line = next((l for l in (logs / "me.stderr").read_text().splitlines()
                     if l.startswith("WORKDIR ")), "") if (logs / "me.stderr").exists() else ""
        parts = line[len("WORKDIR "):].split(" | ") if line else []
        problems = []
        if r.returncode != 0 or '"ejections":[]' not in r.stdout.replace(" ", ""):
            problems.append(f"exit {r.returncode}: {r.stdout[-300:]} {r.stderr[-300:]}")
        if len(parts) != 4:
            problems.append(f"no report from the program: {line!r}")
        else:
            if parts[0] != str(work):
                problems.append(f"it started in {parts[0]}, not {work}")
            if parts[1] != "the weights":
                problems.append(f"it could not read weights.txt: {parts[1]}")
            expected = "refused" if sandboxed else "wrote"
            if parts[2] != expected:
                problems.append(f"writing into its directory: {parts[2]}, expected {expected}")
            if sandboxed and parts[3] != "closed":
                problems.append("it read the organizer's 0600 file in its directory")
        if sandboxed and (work / "dropped.txt").exists():
            problems.append("a file appeared in its directory")
        if not sandboxed and not (work / "dropped.txt").exists():
            problems.append("unwalled, its file is missing: the walled check proves nothing")
        stderr = (logs / "me.stderr").read_text() if (logs / "me.stderr").exists() else ""
        if "NOTES unreadable" in stderr:
            problems.append("it could not read the file its argument names")
        what = ("unwalled: reads and writes" if not sandboxed
                else "behind the walls: reads, cannot write or read a 0600 file"
                + (", with an argument in its parent" if parent_arg else ""))
        report(f"i. --workdir, {what}", problems)


LINK_BOT = r"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
for path in sys.argv[1:] + [p for p in os.environ.get("PROBE_PATHS", "").split(":") if p]:
    try:
        sys.stderr.write("READ " + path + " " + open(path).read().strip() + "\n")
    except OSError as e:
        sys.stderr.write("CLOSED " + path + " " + type(e).__name__ + "\n")
sys.stderr.flush()
sys.argv = sys.argv[:1]
import battleship_bot
battleship_bot.main()
"""


def check_links(tmp):
    """k. Links an entrant plants in its own directory get it nothing: a link named as an
    argument that leads out of its directory is refused in one line (a link within its directory
    works); a link where its stderr file will be is replaced, not written through; a program in
    a bin directory is not shown that directory's parent (only the lib beside it)."""
    secret = tmp / "organizer"
    secret.mkdir(mode=0o700)
    (secret / "keys.txt").write_text("the organizer's keys\n")
    os.chmod(secret / "keys.txt", 0o600)
    evil = tmp / "entrants" / "evil"
    evil.mkdir(parents=True)
    (evil / "battleship_bot.py").write_text(
        (pathlib.Path(ARGS.root) / "bots/python/battleship_bot.py").read_text())
    (evil / "bot.py").write_text(LINK_BOT)
    (evil / "book.txt").symlink_to(secret / "keys.txt")
    (evil / "cache").symlink_to(secret)
    (evil / "weights-v2.txt").write_text("the weights\n")
    (evil / "weights.txt").symlink_to("weights-v2.txt")
    logs = tmp / "logs-links"
    logs.mkdir()
    for arg in ("book.txt", "cache", "cache/keys.txt"):
        r = arbiter("play", "battleship", "-p", "a:hunt", "-p", f"me:cmd:{PY} bot.py {arg}",
                    "--workdir", str(evil), "--stderr-dir", str(logs))
        problems = []
        if r.returncode != 2 or len(r.stderr.splitlines()) != 1 or "leads through a link" not in r.stderr:
            problems.append(f"exit {r.returncode}: {r.stderr[-300:]}")
        if "organizer's keys" in r.stdout + r.stderr or (logs / "me.stderr").exists():
            problems.append("the program ran or its output holds the secret")
        report(f"k. a planted link named as an argument ({arg}) is refused in one line", problems)
    r = arbiter("play", "battleship", "-p", "a:hunt", "-p", f"me:cmd:{PY} bot.py weights.txt",
                "--workdir", str(evil), "--stderr-dir", str(logs), "--json")
    err = (logs / "me.stderr").read_text() if (logs / "me.stderr").exists() else ""
    report("k. a link that stays in its directory is followed",
           [] if r.returncode == 0 and "READ " in err and "the weights" in err
           else [f"exit {r.returncode}: {r.stderr[-200:]} stderr {err[-300:]}"])
    # Links the organizer means still work. A virtualenv whose python links to an interpreter
    # outside the system (here a copy of Debian's): refused in one line, and played once the
    # interpreter is shown with --read-only.
    interp = tmp / "interpreter"
    (interp / "bin").mkdir(parents=True)
    real_python = pathlib.Path(os.path.realpath(PY))
    shutil.copy2(real_python, interp / "bin" / real_python.name)
    venv = evil / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(interp / "bin" / real_python.name)
    (venv / "pyvenv.cfg").write_text(f"home = {interp / 'bin'}\ninclude-system-site-packages = false\n")
    py = f"me:cmd:{venv / 'bin' / 'python'} {evil / 'bot.py'}"
    r = arbiter("play", "battleship", "-p", "a:hunt", "-p", py, "--json")
    report("k. a virtualenv's interpreter elsewhere is refused in one line, naming --read-only",
           [] if r.returncode == 2 and "--read-only" in r.stderr and len(r.stderr.splitlines()) == 1
           else [f"exit {r.returncode}: {r.stderr[-300:]}"])
    r = arbiter("play", "battleship", "-p", "a:hunt", "-p", py, "--read-only", str(interp), "--json")
    report("k. ... and plays with --read-only where the interpreter is",
           [] if r.returncode == 0 and '"ejections":[]' in r.stdout.replace(" ", "")
           else [f"exit {r.returncode}: {r.stdout[-200:]} {r.stderr[-300:]}"])
    # The organizer's link to a working directory; a file shown before its directory.
    (tmp / "evil-link").symlink_to(evil)
    r = arbiter("play", "battleship", "-p", "a:hunt", "-p", f"me:cmd:{PY} bot.py weights.txt",
                "--workdir", str(tmp / "evil-link"), "--read-only", str(evil / "weights-v2.txt"),
                "--read-only", str(evil), "--json")
    report("k. a working directory reached through the organizer's link, and a file shown before "
           "its directory",
           [] if r.returncode == 0 and '"ejections":[]' in r.stdout.replace(" ", "")
           else [f"exit {r.returncode}: {r.stdout[-200:]} {r.stderr[-300:]}"])
    # A link where the referee will write the program's stderr. (A stderr directory inside the
    # program's own is refused outright: leaks_e2e.py; this one is elsewhere, and the link was
    # planted by someone who can write there.)
    victim = secret / "crontab"
    victim.write_text("ORIGINAL\n")
    own_logs = tmp / "evil-logs"
    own_logs.mkdir()
    (own_logs / "me.stderr").symlink_to(victim)
    r = arbiter("play", "battleship", "-p", "a:hunt", "-p", f"me:cmd:{PY} {evil / 'bot.py'}",
                "--stderr-dir", str(own_logs), "--json")
    problems = [] if r.returncode == 0 else [f"exit {r.returncode}: {r.stderr[-300:]}"]
    if victim.read_text() != "ORIGINAL\n":
        problems.append("the file the link pointed at was written")
    log = own_logs / "me.stderr"
    if log.is_symlink() or not log.exists() or (log.stat().st_mode & 0o077):
        problems.append("the stderr file is not a new file private to the organizer")
    report("k. a link planted where the stderr file goes is replaced, not written through",
           problems)
    # A program in a bin directory: the directory beside it stays closed.
    box = tmp / "srv"
    (box / "bin").mkdir(parents=True)
    (box / "other").mkdir(mode=0o700)
    (box / "other" / "bot.py").write_text("another entrant's bot\n")
    os.chmod(box / "other" / "bot.py", 0o600)
    (box / "bin" / "battleship_bot.py").write_text(
        (pathlib.Path(ARGS.root) / "bots/python/battleship_bot.py").read_text())
    (box / "bin" / "evil").write_text(f"#!{PY}\n" + LINK_BOT)
    os.chmod(box / "bin" / "evil", 0o755)
    r = arbiter("play", "battleship", "-p", "a:hunt", "-p", f"me:cmd:{box / 'bin' / 'evil'}",
                "--stderr-dir", str(logs), "--env", f"PROBE_PATHS={box / 'other' / 'bot.py'}",
                "--json")
    err = (logs / "me.stderr").read_text() if (logs / "me.stderr").exists() else ""
    problems = [] if r.returncode == 0 else [f"exit {r.returncode}: {r.stderr[-300:]}"]
    if "another entrant's bot" in err or "CLOSED" not in err:
        problems.append(f"its report: {err[-300:]!r}")
    report("k. a program in a bin directory does not see the directories beside it", problems)


def check_private_files(tmp):
    """j. No program runs beside the log of its match or the store of its tournament: the run is
    refused in one line (exit 2) before anything is created or played."""
    spy = tmp / "spy dir"
    spy.mkdir()
    bot = spy / "bot.py"
    bot.write_text((pathlib.Path(ARGS.root) / "bots/python/battleship_bot.py").read_text())
    store = f"sqlite:{spy / 't.db'}"
    me = f"me:cmd:{PY} '{bot}'"
    cases = (
        ("play --log beside the bot",
         ["play", "battleship", "-p", "a:hunt", "-p", me, "--log", str(spy / "m.jsonl")]),
        ("tournament run with its SQLite store beside the bot",
         ["tournament", "run", "-g", "battleship", "-p", "a:hunt", "-p", me, "--store", store,
          "-q"]),
        ("tournament create with its SQLite store beside the bot",
         ["tournament", "create", "-g", "battleship", "-p", "a:hunt", "-p", me, "--store",
          store]),
    )
    for name, argv in cases:
        r = arbiter(*argv)
        problems = []
        if r.returncode != 2 or len(r.stderr.splitlines()) != 1 or \
                "No program may read it" not in r.stderr:
            problems.append(f"exit {r.returncode}, not a one-line refusal: {r.stderr[-300:]}")
        made = sorted(p.name for p in spy.iterdir() if p.name != "bot.py")
        if made:
            problems.append(f"created {made}")
        report(f"j. {name}: refused in one line, nothing created", problems)
    # A store made elsewhere and then moved beside the bot is not resumed there either.
    elsewhere = f"sqlite:{tmp / 'made elsewhere.db'}"
    r = arbiter("tournament", "create", "-g", "battleship", "-p", "a:hunt", "-p", me, "--store",
                elsewhere)
    problems = [] if r.returncode == 0 else [f"create: exit {r.returncode}: {r.stderr[-300:]}"]
    shutil.copy(tmp / "made elsewhere.db", spy / "t.db")
    before = (spy / "t.db").read_bytes()
    for verb in (["tournament", "resume", "1"], ["worker", "--tournament", "1"]):
        r = arbiter(*verb, "--store", store, "-q" if verb[0] == "tournament" else "--until-finished")
        if r.returncode != 2 or "cannot be played here" not in r.stderr or \
                "No program may read it" not in r.stderr:
            problems.append(f"{' '.join(verb)}: exit {r.returncode}: {r.stderr[-300:]}")
    if (spy / "t.db").read_bytes() != before:
        problems.append("the store beside the bot changed")
    report("j. a store moved beside the bot: resume and worker refuse it, the store unchanged",
           problems)
    (spy / "t.db").unlink()
    # Elsewhere, the same bot plays.
    r = arbiter("play", "battleship", "-p", "a:hunt", "-p", me, "--log",
                str(tmp / "elsewhere.jsonl"), "--json")
    report("j. the same bot with the log elsewhere plays",
           [] if r.returncode == 0 and '"ejections":[]' in r.stdout.replace(" ", "")
           else [f"exit {r.returncode}: {r.stdout[-300:]} {r.stderr[-300:]}"])


def check_unprivileged():
    """h. A referee that cannot build the walls (here: one running as nobody) says so in one line
    and refuses cmd players (exit 2); with --unsafe-no-sandbox it runs them, with a warning."""
    d = pathlib.Path(tempfile.mkdtemp(prefix="arbiter-nobody-"))
    try:
        os.chmod(d, 0o755)
        exe = d / "arbiter"
        shutil.copy(ARGS.arbiter, exe)
        shutil.copy(pathlib.Path(ARGS.root) / "bots/python/q_bot.py", d / "q_bot.py")
        for f in (exe, d / "q_bot.py"):
            os.chmod(f, 0o755)
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", str(exe)]
        play = ["play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} {d / 'q_bot.py'}", "--seed", "2"]
        run = lambda *extra: subprocess.run([*nobody, *extra], capture_output=True, text=True,
                                            timeout=120, cwd=d)
        check = run("sandbox", "check")
        refused = run(*play)
        unsafe = run(*play, "--unsafe-no-sandbox")
        problems = []
        if check.returncode != 1 or "no " not in check.stdout:
            problems.append(f"sandbox check as nobody: exit {check.returncode} {check.stdout!r}")
        lines = refused.stderr.splitlines()
        if refused.returncode != 2 or len(lines) != 1 or \
                "the sandbox for program players does not work here" not in lines[0] or \
                "--unsafe-no-sandbox" not in lines[0] or refused.stdout:
            problems.append(f"refusal: exit {refused.returncode} {refused.stderr!r} {refused.stdout!r}")
        if unsafe.returncode != 0 or "WITHOUT the sandbox" not in unsafe.stderr or \
                "winners:" not in unsafe.stdout or "ejected" in unsafe.stdout:
            problems.append(f"unsafe: exit {unsafe.returncode} {unsafe.stderr!r} {unsafe.stdout!r}")
        report("h. without the walls (as nobody): one-line refusal; --unsafe-no-sandbox runs, "
               "warned", problems)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def check_bad_options():
    bot = ["-p", f"b:cmd:{PY} bots/python/q_bot.py"]
    cases = [
        ([*bot, "--read-only", "/no/such/path"], "--read-only /no/such/path"),
        ([*bot, "--env", "BAD NAME"], '--env: "BAD NAME": expected NAME or NAME=VALUE'),
        ([*bot, "--unsafe-no-sandbox", "--env", "HOME"], "walls of the sandbox"),
        ([*bot, "--unsafe-no-sandbox", "--allow-network"], "walls of the sandbox"),
        ([*bot, "--memory", "5X"], '--memory: "5X" is not a size'),
        ([*bot, "--memory", "12 parsecs"], "units K, M, G"),
        ([*bot, "--memory", "900G"], "--memory 900 GiB: more than this machine has"),
        ([*bot, "--memory", "1K"], "--memory: 1 KiB is too small (at least 16M)"),
        ([*bot, "--output", "lots"], '--output: "lots" is not a size'),
        ([*bot, "--cpu-time", "1.5s"], "--cpu-time: 1.5 s: CPU time is counted in whole seconds"),
        ([*bot, "--cpu-time", "10 fortnights"], "is not a duration"),
        ([*bot, "--processes", "0"], "--processes: expected a whole number from 1 to 65536"),
        ([*bot, "--clock", "60x+1s"], '--clock "60x+1s"'),
        (["-p", f"b:cmd:{PY} no/such/dir/bot.py"], 'argument "no/such/dir/bot.py": no directory'),
        (["-p", "b:tcp", "--tokens", "/no/such/dir/tokens.json"], "--tokens /no/such/dir/tokens.json"),
        (["-p", "b:ldasg", "--tokens", "/tmp/tokens.json"], "no tcp seat"),
        # An argument in / or /tmp would show the program everything there as its own.
        (["-p", f"b:cmd:{PY} bots/python/q_bot.py /"], "everything there as its own"),
        (["-p", f"b:cmd:{PY} bots/python/q_bot.py /tmp"], "everything there as its own"),
    ]
    for extra, words in cases:
        r = arbiter("play", "q", "-p", "a:dag", *extra)
        lines = r.stderr.splitlines()
        ok = r.returncode == 2 and len(lines) == 1 and words in lines[0] and not r.stdout
        report(f"e. {' '.join(extra)}: one line, exit 2",
               [] if ok else [f"exit {r.returncode}, stderr {r.stderr!r}, stdout {r.stdout[:100]!r}"])


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--qbot", required=True)
    ARGS = ap.parse_args()
    ARGS.arbiter = str(pathlib.Path(ARGS.arbiter).resolve())
    ARGS.qbot = str(pathlib.Path(ARGS.qbot).resolve())
    r = arbiter("sandbox", "check")
    report("a. sandbox check: every wall is up", [] if r.returncode == 0 and "the sandbox works here" in r.stdout
           else [f"exit {r.returncode}: {r.stdout} {r.stderr}"])
    cgroups = "yes  cgroups" in r.stdout
    print(f"     (cgroups {'writable' if cgroups else 'not writable'} here)")
    with tempfile.TemporaryDirectory(prefix="arbiter-sandbox-") as d:
        tmp = pathlib.Path(d)
        check_walls(tmp)
        check_control(tmp)
        check_players(tmp)
        check_matrix(tmp, cgroups)
        check_programs_elsewhere(tmp)
        check_workdir(tmp)
        check_private_files(tmp)
        check_links(tmp)
    check_bad_options()
    check_unprivileged()
    print(f"{'all passed' if not FAILED else f'{len(FAILED)} failed'}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
