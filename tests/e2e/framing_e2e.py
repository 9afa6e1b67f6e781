#!/usr/bin/env python3
"""Strict framing tied to calls, from real processes, on stdio and on a TCP seat.

For each transport (a cmd: program over stdio; a client on a TCP seat signing up with its token)
and each q_wire_zoo mode, `arbiter play q` against a house bot must eject the zoo with the
expected verdict at the expected call (an early answer: foul "unsolicited" at take_turn; a NUL
byte or a second value on a line: malformed), let the house bot win, and replay identically.
The good mode is the control: no ejection.

Prints one line per check and "N passed, M failed" last; exits 1 on any failure.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from procs import Tally  # noqa: E402

ARGS = None
TALLY = Tally(show_ok=True)
# (mode, expected verdict, expected call, words in the detail); None: no ejection
CASES = [("early", "foul", "take_turn", "unsolicited: "),
         ("nul", "malformed", "take_turn", "NUL byte"),
         ("trailing", "malformed", "take_turn", "malformed JSON"),
         ("good", None, None, None)]


def zoo_cmd(mode):
    return [ARGS.python, ARGS.zoo, "--mode", mode]


def check_result(out, log, mode, why, call, words):
    problems = []
    try:
        r = json.loads(out)
    except ValueError:
        return [f"stdout is not a JSON result: {out[:200]!r}"]
    ej = r.get("ejections") or []
    if why is None:
        if ej:
            problems.append(f"ejected: {ej}")
    elif len(ej) != 1 or ej[0].get("seat") != 1 or ej[0].get("why") != why \
            or ej[0].get("call") != call or words not in ej[0].get("detail", ""):
        problems.append(f"ejections {ej}, expected seat 1 {why} during {call} ({words!r})")
    elif r.get("winners") != [0]:
        problems.append(f"winners {r.get('winners')}, expected the house bot")
    p = subprocess.run([ARGS.arbiter, "replay", log], capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or "identical" not in p.stdout:
        problems.append(f"replay: exit {p.returncode} {(p.stdout + p.stderr).strip()[-200:]}")
    return problems, (f"{ej[0]['why']} during {ej[0]['call']} ({ej[0]['detail'][:60]})"
                      if ej else "no ejection")


def run_stdio(tmp, mode, why, call, words):
    log = os.path.join(tmp, f"stdio-{mode}.jsonl")
    cmd = [ARGS.arbiter, "play", "q", "--seed", "3", "--json", "--log", log, "-p", "h:dag",
           "-p", "z:cmd:" + " ".join(zoo_cmd(mode)), "--unsafe-no-sandbox"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        return [f"exit {p.returncode}: {p.stderr.strip()[-300:]}"], ""
    return check_result(p.stdout, log, mode, why, call, words)


def run_tcp(tmp, mode, why, call, words):
    log = os.path.join(tmp, f"tcp-{mode}.jsonl")
    proc = subprocess.Popen([ARGS.arbiter, "play", "q", "--seed", "3", "--json", "--log", log,
                             "-p", "h:dag", "-p", "z:tcp", "--listen", "127.0.0.1:0",
                             "--accept-timeout", "20"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    token = port = None
    try:
        while port is None:
            line = proc.stderr.readline()
            if not line:
                return ["arbiter ended before it listened"], ""
            if m := re.search(r"seat z is claimed with the token (\S+)", line):
                token = m.group(1)
            if m := re.search(r"on port (\d+)", line):
                port = int(m.group(1))
        client = subprocess.run([*zoo_cmd(mode), "--tcp", f"127.0.0.1:{port}", "--token", token],
                                capture_output=True, text=True, timeout=60)
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return ["timed out"], ""
    if proc.returncode != 0:
        return [f"exit {proc.returncode}: {err.strip()[-300:]}"], ""
    problems, detail = check_result(out, log, mode, why, call, words)
    if why and "ejected" not in client.stderr:
        problems.append(f"the client was not told why: {client.stderr.strip()[-200:]!r}")
    return problems, detail


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--zoo", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "misbehaving", "q_wire_zoo.py"))
    ARGS = ap.parse_args()
    ARGS.zoo = os.path.abspath(ARGS.zoo)
    with tempfile.TemporaryDirectory(prefix="framing-e2e-") as tmp:
        for transport, run in (("stdio", run_stdio), ("tcp", run_tcp)):
            for mode, why, call, words in CASES:
                problems, detail = run(tmp, mode, why, call, words)
                TALLY.report(f"{transport} {mode}", problems, detail)
    print(f"{TALLY.passed} passed, {TALLY.failed} failed")
    return 1 if TALLY.failed else 0


if __name__ == "__main__":
    sys.exit(main())
