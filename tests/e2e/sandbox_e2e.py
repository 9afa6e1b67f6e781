#!/usr/bin/env python3
"""The walls around program players (arbiter play --sandbox), attacked from a real process and
checked from outside.

  a. `arbiter sandbox check` says every wall is up on this machine.
  b. The probe (tests/misbehaving/probe.py) plays a Q match behind the walls and tries: root,
     /etc/shadow, another entrant's file (read and write), writing to the host, the referee's
     environment, the host's 127.0.0.1, an outside address, other processes, mount, setuid,
     ptrace, a user namespace, keyrings, raw and packet sockets (the seccomp filter), filling its
     scratch directory, a grandchild that detaches to outlive the match.
     Its report must show every attempt failed, and from outside: the planted file is unchanged,
     nothing was written, no connection reached the host's port, nothing survives the match.
  c. The same probe without --sandbox gets through (so (b) can fail).
  d. Players still play behind the walls: the example Python bot, q-bot, an Abalone team, the
     ejection notice.
  e. Bad sandbox options are one-line errors, exit 2.

Usage: sandbox_e2e.py --arbiter PATH --root REPO --qbot PATH   (as root; Python: /usr/bin/python3)
"""
import argparse
import json
import os
import pathlib
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
    if sandboxed:
        argv.append("--sandbox")
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
    if probe["uid"] == 0 or probe["euid"] == 0:
        problems.append(f"runs as uid {probe['uid']}")
    for attack in ("shadow", "planted_read", "planted_write", "write_host_dir", "write_usr",
                   "host_port", "outside", "mount", "setuid0", "ptrace", "fill_scratch",
                   "unshare_user", "keyctl", "raw_socket", "packet_socket"):
        if not probe[attack].startswith("no:"):
            problems.append(f"{attack}: {probe[attack]}")
    if probe["env"] != ["HOME", "LANG", "PATH"]:
        problems.append(f"environment {probe['env']}")
    if len(probe["pids"]) > 3:
        problems.append(f"sees processes {probe['pids']}")
    if "Errno 28" not in probe["fill_scratch"]:
        problems.append(f"scratch not capped: {probe['fill_scratch']}")
    problems += [what for what, ok in outside.items() if not ok]
    report("b. the probe gets nowhere behind the walls", problems)


def check_control(tmp):
    # Unwalled, only the attempts that change nothing: the others would hit this machine itself.
    (tmp / "control").mkdir()
    probe, outside, problems = run_probe(tmp / "control", sandboxed=False, reads_only=True)
    got_through = probe is not None and (probe["planted_read"].startswith("ok:") or
                                        probe["write_host_dir"].startswith("ok:") or
                                        "ARBITER_TEST_SECRET" in probe["env"])
    report("c. without --sandbox the same probe gets through (the check can fail)",
           problems + ([] if got_through else [f"the probe got nowhere unwalled: {probe}"]))


def check_players(tmp):
    cases = [
        ("the example Python Q bot", ["play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} bots/python/q_bot.py",
                                      "--sandbox", "--seed", "4"], "winners:"),
        ("q-bot", ["play", "q", "-p", "a:dag", "-p", f"b:cmd:{ARGS.qbot} --strategy ldasg", "--sandbox"],
         "winners:"),
        ("an Abalone team from outside", ["play", "abalone", "--black", "simple", "--white",
                                          f"cmd:{PY} bots/python/abalone_team.py", "--sandbox"], "winners:"),
        ("a Battleship bot", ["play", "battleship", "-p", "a:hunt", "-p",
                              f"b:cmd:{PY} bots/python/battleship_bot.py", "--sandbox"], "winners:"),
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
    r = arbiter("play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} tests/misbehaving/told_why.py", "--sandbox",
                "--stderr-dir", str(logs))
    text = (logs / "b.stderr").read_text() if (logs / "b.stderr").exists() else ""
    report("d. the ejection notice reaches a walled program",
           [] if 'RECEIVED ["ejected"' in text else [f"stderr {text!r}, exit {r.returncode} {r.stderr}"])


def check_bad_options():
    cases = [
        (["--sandbox", "--read-only", "/no/such/path"], "--read-only /no/such/path"),
        (["--sandbox", "--env", "BAD NAME"], '--env "BAD NAME"'),
        (["--env", "HOME"], "are for --sandbox"),
        (["--allow-network"], "are for --sandbox"),
    ]
    for extra, words in cases:
        r = arbiter("play", "q", "-p", "a:dag", "-p", f"b:cmd:{PY} bots/python/q_bot.py", *extra)
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
    with tempfile.TemporaryDirectory(prefix="arbiter-sandbox-") as d:
        tmp = pathlib.Path(d)
        check_walls(tmp)
        check_control(tmp)
        check_players(tmp)
    check_bad_options()
    print(f"{'all passed' if not FAILED else f'{len(FAILED)} failed'}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
