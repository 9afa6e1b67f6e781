"""Process checks shared by the end-to-end suites (standard library only)."""

import json
import os
import socket
import threading
import time

_ports_lock = threading.Lock()
_ports_given = set()


def free_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago and that this process has not handed out
    before: threads starting servers at once never get the same one (the kernel may offer a port
    again as soon as the probe closes it). Another process may still take it first, so a caller
    retries when its server cannot listen."""
    with _ports_lock:
        while True:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            if port not in _ports_given:
                _ports_given.add(port)
                return port


def running(pid, marker: bytes) -> bool:
    """Whether `pid` is a live (not zombie) process whose command line contains `marker`: a
    misbehaving player the referee should have killed, and not a recycled pid."""
    try:
        with open(f"/proc/{pid}/status") as f:
            state = next((line for line in f if line.startswith("State:")), "")
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read()
    except OSError:
        return False
    return "Z" not in state and marker in cmdline


class Tally:
    """Counts checks run from several threads and prints one line each ("ok" lines only when
    `show_ok`)."""

    def __init__(self, show_ok=True):
        import threading
        self.lock = threading.Lock()
        self.passed = 0
        self.failed = 0
        self.show_ok = show_ok

    def report(self, name, problems, detail):
        with self.lock:
            if problems:
                self.failed += 1
                print(f"FAIL {name}: {'; '.join(problems)}", flush=True)
            else:
                self.passed += 1
                if self.show_ok:
                    print(f"ok   {name}: {detail}", flush=True)


    def run_all(self, checks, tmp=None):
        """Runs each check (a function of no arguments); one that raises is a failed check, with
        its traceback. Removes `tmp` (a directory) at the end, prints "N passed, M failed" and
        returns the exit code: 1 if any check failed."""
        import shutil
        import traceback
        try:
            for check in checks:
                try:
                    check()
                except Exception as e:  # a check that could not finish is a failed check
                    self.report("a check raised", [f"{type(e).__name__}: {e}"], "")
                    traceback.print_exc()
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


class Run:
    """One `arbiter ... --json` run: its command, exit code, output and wall time (and a note
    when it could not finish), with the JSON result parsed when stdout holds one."""

    def __init__(self, cmd, rc, out, err, seconds, note=""):
        self.cmd, self.rc, self.out, self.err, self.seconds, self.note = \
            cmd, rc, out, err, seconds, note
        self.result = None
        try:
            self.result = json.loads(out)
        except ValueError:
            pass

    def problem(self):
        """Why this run did not end with exit 0 and a JSON result, or None."""
        if self.note:
            return self.note
        if self.rc != 0:
            return f"exit {self.rc}: {self.err.strip()[-300:]}"
        if not isinstance(self.result, dict) or self.result.get("type") != "result":
            return f"stdout is not a JSON result: {self.out[:200]!r}"
        return None


def survivors(pid_file, marker: bytes):
    """The PIDs a fixture recorded in pid_file (one a line), and those still running (with
    `marker` in their command line) a second later; those are killed before returning."""
    pids = []
    if os.path.exists(pid_file):
        with open(pid_file) as f:
            pids = [int(line) for line in f if line.strip()]
    until = time.monotonic() + 1
    left = pids
    while left and time.monotonic() < until:
        time.sleep(0.05)
        left = [p for p in left if running(p, marker)]
    for pid in left:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    return pids, left


def check_refusals(tally, run, cases, store_path, label):
    """Bad input given to a command: for each (args, text) in `cases`, `run(*args)` (a
    CompletedProcess) must exit 2 with one stderr line that contains `text`; and nothing may have
    created `store_path`. One tally line per case, labelled `label: ARGS`."""
    for args, text in cases:
        r = run(*args)
        problems = []
        if r.returncode != 2:
            problems.append(f"exit {r.returncode}, expected 2")
        if text not in r.stderr or len(r.stderr.strip().splitlines()) != 1:
            problems.append(f"stderr {r.stderr.strip()!r} is not one line with {text!r}")
        tally.report(f"{label}: {' '.join(args)}", problems, r.stderr.strip()[:100])
    if os.path.exists(store_path):
        tally.report(f"{label} create no store", ["the store was created"], "")
