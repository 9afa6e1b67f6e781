#!/usr/bin/env python3
"""The viewer under a slowloris: 150 connections from one address, each trickling one header
line a second and never finishing its request (reconnecting whenever it is dropped), while a
live match is watched (arbiter play --serve). A real client from the same address must be served
within 1 s all along, and the match must take at most 10 % longer than it does unattacked.

The match: two Battleship programs that sleep 50 ms before each shot, seeded, so that it is the
same match, of a known length, both times. Runs alone (RUN_SERIAL): it measures time. Prints its
figures for docs/benchmarks.md.

Usage: slowloris_e2e.py --arbiter PATH --root REPO   (as root; the walls need it)
"""
import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from procs import Tally, free_port  # noqa: E402

ARGS = None
TALLY = Tally()
PY = "/usr/bin/python3"
KEY = "0123456789abcdef0123456789abcdef"
LINGER = 1  # seconds the viewer stays after the match, for the client to see it end


class Slowloris(threading.Thread):
    def __init__(self, port, connections=150):
        super().__init__(daemon=True)
        self.port, self.n = port, connections
        self.stop = False
        self.opened = 0
        self.dropped = 0

    def connect(self):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", self.port))
            s.sendall(b"GET /api/live HTTP/1.1\r\nHost: x\r\n")
            s.setblocking(False)
            self.opened += 1
            return s
        except OSError:
            s.close()
            return None

    def run(self):
        socks = [self.connect() for _ in range(self.n)]
        while not self.stop:
            time.sleep(1)
            for i, s in enumerate(socks):
                if s is not None:
                    try:
                        s.send(b"X-Slow: 1\r\n")
                        continue
                    except OSError:
                        s.close()
                        self.dropped += 1
                socks[i] = self.connect()
        for s in socks:
            if s is not None:
                s.close()


def watch_match(tmp, name, attack):
    """Plays the match served live; a client asks the viewer every 0.25 s. Returns the match's
    wall time (the process's, less the viewer's linger), the client's latencies (s) and what the
    attacker did."""
    port = free_port()
    bots = os.path.join(tmp, "bots")
    start = time.monotonic()
    proc = subprocess.Popen(
        [ARGS.arbiter, "play", "battleship", "--seed", "3", "--program-key", KEY,
         "-p", f"a:cmd:{PY} {bots}/cpu_bots.py slow 0.05",
         "-p", f"b:cmd:{PY} {bots}/cpu_bots.py slow 0.05",
         "--serve", f"127.0.0.1:{port}", "--linger", str(LINGER),
         "--log", os.path.join(tmp, f"{name}.jsonl")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The viewer is up once it says where to watch.
    line = proc.stderr.readline()
    if "watch the match" not in line:
        raise RuntimeError(f"the viewer did not start: {line}")
    loris = Slowloris(port) if attack else None
    if loris:
        loris.start()
        time.sleep(1.5)  # all its connections open before the client asks
    latencies, failures = [], []
    finished = False
    # Until the viewer says the match is over (it stops with the match).
    while not finished and proc.poll() is None:
        for path in ("/api/live", "/match.html"):
            t0 = time.monotonic()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
                    body = r.read()
                latencies.append(time.monotonic() - t0)
                if path == "/api/live" and b'"finished":true' in body:
                    finished = True
            except Exception as e:  # noqa: BLE001
                failures.append(f"{path}: {e}")
        time.sleep(0.25)
    proc.wait(timeout=60)
    elapsed = time.monotonic() - start - LINGER
    if loris:
        loris.stop = True
        loris.join(5)
    out, err = proc.communicate(timeout=30)
    if proc.returncode != 0:
        raise RuntimeError(f"{name}: exit {proc.returncode}: {err[-300:]}")
    return elapsed, latencies, failures, loris


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arbiter", required=True)
    parser.add_argument("--root", required=True)
    ARGS = parser.parse_args()
    if os.geteuid() != 0:
        print("slowloris_e2e needs root (the walls are built by root)")
        return 1
    with tempfile.TemporaryDirectory(prefix="arbiter-loris-") as tmp:
        os.chmod(tmp, 0o755)
        bots = os.path.join(tmp, "bots")
        os.makedirs(bots)
        shutil.copy(os.path.join(ARGS.root, "tests", "misbehaving", "cpu_bots.py"), bots)
        shutil.copy(os.path.join(ARGS.root, "bots", "python", "battleship_bot.py"), bots)
        calm, calm_lat, calm_fail, _ = watch_match(tmp, "calm", attack=False)
        hit, hit_lat, hit_fail, loris = watch_match(tmp, "attacked", attack=True)
        problems = calm_fail + hit_fail
        if not hit_lat:
            problems.append("the client was never served during the attack")
        elif max(hit_lat) > 1.0:
            problems.append(f"the client waited {max(hit_lat):.2f} s")
        if hit > calm * 1.10:
            problems.append(f"the match took {hit:.2f} s attacked, {calm:.2f} s not ({hit / calm:.2f}x)")
        if loris and loris.opened < 150:
            problems.append(f"the attacker opened only {loris.opened} connections")
        with open(os.path.join(tmp, "calm.jsonl")) as a, open(os.path.join(tmp, "attacked.jsonl")) as b:
            same = [re.sub(r'"(elapsed|clock|cpu)_us":\d+,?', "", l) for l in a] == \
                   [re.sub(r'"(elapsed|clock|cpu)_us":\d+,?', "", l) for l in b]
        if not same:
            problems.append("the two matches were not the same match")
        TALLY.report(
            "a slowloris of 150 connections neither keeps a client out nor slows the match",
            problems,
            f"match {calm:.2f} s calm, {hit:.2f} s attacked ({hit / calm:.3f}x); client requests "
            f"median {statistics.median(hit_lat) * 1000:.1f} ms, max {max(hit_lat) * 1000:.1f} ms "
            f"over {len(hit_lat)} (calm: max {max(calm_lat or [0]) * 1000:.1f} ms); the attacker "
            f"opened {loris.opened} connections, {loris.dropped} of them dropped to make room"
            if hit_lat and loris else "")
    print(f"{TALLY.passed} passed, {TALLY.failed} failed")
    return 1 if TALLY.failed else 0


if __name__ == "__main__":
    sys.exit(main())
