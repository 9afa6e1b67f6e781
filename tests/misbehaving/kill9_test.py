#!/usr/bin/env python3
"""kill -9 of arbiter leaves no player process behind. Each scenario starts `arbiter play q` with
zoo-bot seats (--per-call 30, so the first misbehaving seat holds the match), waits until every
bot process, the grandchildren that bots fork, and the first seat's misbehaviour exist (from the
bots' --pid-file records and by walking /proc/*/status PPid down from arbiter), sends SIGKILL to
arbiter, waits 1 second and checks that none of those processes is alive (a zombie counts as dead).
Prints one line per failing scenario and "N passed, M failed" last."""
import argparse
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time

# Unsandboxed on purpose (--unsafe-no-sandbox): the zoo records its pids in a file of the host
# for the survivor checks, which the walls forbid; the walled programs are attacked by
# the hostile matrix of tests/e2e/sandbox_e2e.py.
UNWALLED = ["--unsafe-no-sandbox"]

# (name, seats as (seat, mode), the seat whose misbehaviour holds the match at the kill, how many
#  processes the bots have by then)
SCENARIOS = [
    ("silent first, a forked sleeper, ignore-sigterm, loop",
     [("a", "silent"), ("b", "fork-hold"), ("c", "ignore-sigterm"), ("d", "loop")], "a", 5),
    ("fork-exit hung up, then a silent bot holding a forked sleeper",
     [("a", "fork-exit"), ("b", "fork-hold"), ("c", "silent")], "b", 3),
    ("ignore-sigterm first", [("a", "ignore-sigterm"), ("b", "loop"), ("c", "fork-hold")], "a", 4),
    ("loop spinning", [("a", "loop"), ("b", "silent"), ("c", "ignore-sigterm")], "a", 3),
]


def status_of(pid):
    """{field: value} of /proc/PID/status, or None if there is no such process."""
    try:
        text = pathlib.Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def start_time(pid):
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]  # field 22, after the command in parentheses


def alive(pid, started):
    s = status_of(pid)
    return s is not None and not s.get("State", "").startswith("Z") and start_time(pid) == started


def descendants(root):
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        s = status_of(entry)
        if s is not None and not s.get("State", "").startswith("Z"):
            children.setdefault(int(s.get("PPid", "0")), []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def records(directory):
    """[(seat, event, pid)] from the bots' pid files."""
    out = []
    for f in sorted(pathlib.Path(directory).glob("*.pids")):
        for line in f.read_text().splitlines():
            event, _, pid = line.partition(" ")
            if pid.isdigit():
                out.append((f.stem, event, int(pid)))
    return out


def describe(pid):
    try:
        cmd = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        cmd = "?"
    return f"{pid} ({cmd.strip()})"


def run_scenario(arbiter, zoo, seats, holder, expected_processes):
    with tempfile.TemporaryDirectory(prefix="zoo-kill9-") as tmp:
        cmd = [arbiter, "play", "q", "--per-call", "30", "--seed", "5", *UNWALLED]
        for seat, mode in seats:
            cmd += ["--player", f"{seat}:cmd:{zoo} {mode} --pid-file {tmp}/{seat}.pids"]
        ref = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        watched = {}  # pid -> start time
        deadline = time.monotonic() + 10
        ready = False
        while time.monotonic() < deadline and ref.poll() is None:
            recs = records(tmp)
            tree = descendants(ref.pid)
            misbehaving = any(s == holder and e == "misbehave" for s, e, _ in recs)
            if misbehaving and len(tree) >= expected_processes:
                # Every process recorded alive or found in the tree, with its start time so that
                # a recycled pid is not mistaken for a survivor.
                for pid in tree + [p for _, _, p in recs]:
                    started = start_time(pid)
                    if started is not None and pid not in watched:
                        watched[pid] = started
                ready = True
                break
            time.sleep(0.05)
        if not ready:
            ref.kill()
            ref.wait()
            return [f"the bots did not get ready (arbiter exit {ref.poll()}, "
                    f"records {records(tmp)})"], 0
        ref.send_signal(signal.SIGKILL)
        ref.wait()
        time.sleep(1)
        survivors = [pid for pid, started in watched.items() if alive(pid, started)]
        problems = []
        if survivors:
            problems.append("alive 1 s after kill -9 of arbiter: " +
                            ", ".join(describe(p) for p in survivors))
            for pid in survivors:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        return problems, len(watched)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--zoo", required=True)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    zoo = os.path.abspath(args.zoo)
    passed = failed = 0
    for name, seats, holder, expected in SCENARIOS:
        start = time.monotonic()
        problems, watched = run_scenario(args.arbiter, zoo, seats, holder, expected)
        if problems:
            failed += 1
            print(f"FAIL {name}: {'; '.join(problems)}", flush=True)
        else:
            passed += 1
            if args.verbose:
                print(f"ok   {name}: {watched} processes gone, {time.monotonic() - start:.1f} s",
                      flush=True)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
