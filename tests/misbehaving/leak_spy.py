#!/usr/bin/env python3
"""A Battleship player that plays legally (as bots/python/battleship_bot.py, copied beside it)
and, before its first answer, tries every way an uploaded bot could learn what is hidden from it,
then reports what it found as one line on stderr, "SPY {json}", for tests/e2e/leaks_e2e.py to
judge from outside:

  proc       /proc/1/cmdline, /proc/1/environ, /proc/1/maps and the cmdline of every process it
             can see (the referee's argv holds the master seed and the store's URL);
             /proc/self/mountinfo and /proc/self/cgroup (host paths, the referee's pid)
  seed       its ARBITER_SEED, and a search for it over master seeds 0..999 and schedule places
             0..63 as arbiter derived program seeds before they were keyed (an unkeyed SHA-256
             of the match seed): a hit tells it the match seed, so the whole deal
  files      every file in the directories it is shown beside its own program: a SQLite store
             (its jobs' seeds), stderr files of other programs or of its own earlier matches

Usage: arbiter play battleship -p "spy:cmd:python3 DIR/leak_spy.py [--slow SECONDS]" -p b:hunt
(--slow: it waits that long before every shot, so that its matches can be watched as they run)
"""
import glob
import hashlib
import json
import os
import sqlite3
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MASK = (1 << 64) - 1


def read(path, limit=20000):
    try:
        with open(path, "rb") as f:
            return f.read(limit).replace(b"\0", b" ").decode(errors="replace")
    except OSError as e:
        return f"ERROR {e.strerror}"


def mix64(state):
    z = (state + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK


def derive(parent, tag, index=0):
    """core/rng.cpp's Rng::derive, as anyone can read it."""
    h = 0xCBF29CE484222325
    for c in tag.encode():
        h = ((h ^ c) * 0x100000001B3) & MASK
    x = parent ^ rotl(h, 17) ^ rotl((index * 0x9E3779B97F4A7C15) & MASK, 41)
    x = (x + 0x9E3779B97F4A7C15) & MASK  # the first splitmix64 step, its output unused
    return mix64(x)


def unkeyed_program_seed(match_seed, seat):
    digest = hashlib.sha256(b"arbiter program seed" + struct.pack("<QQ", match_seed, seat)).digest()
    return struct.unpack("<Q", digest[:8])[0]


def search_seed(mine):
    for master in range(1000):
        for index in range(64):
            match = derive(master, "match", index)
            for seat in (0, 1):
                if unkeyed_program_seed(match, seat) == mine:
                    return {"master": master, "index": index, "seat": seat, "match_seed": match}
    return None


def spy():
    found = {"pid": os.getpid()}
    found["proc"] = {p: read(p) for p in ("/proc/1/cmdline", "/proc/1/environ", "/proc/1/maps",
                                          "/proc/self/mountinfo", "/proc/self/cgroup")}
    found["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    found["cmdlines"] = {p: read(f"/proc/{p}/cmdline") for p in found["pids"]}
    mine = os.environ.get("ARBITER_SEED", "")
    found["arbiter_seed"] = mine
    found["search"] = search_seed(int(mine)) if mine.isdigit() else None
    seen = {}
    for path in sorted(glob.glob(os.path.join(HERE, "**"), recursive=True)):
        if not os.path.isfile(path) or path.endswith(".py"):
            continue
        if path.endswith(".db"):
            try:
                rows = sqlite3.connect(f"file:{path}?mode=ro", uri=True).execute(
                    "SELECT spec FROM jobs").fetchall()
                seen[path] = "jobs: " + " ".join(r[0] for r in rows)[:2000]
            except Exception as e:  # noqa: BLE001 - anything it can read counts
                seen[path] = f"ERROR {e}"
        else:
            seen[path] = read(path, 2000)
    found["files"] = seen
    sys.stderr.write("SPY " + json.dumps(found) + "\n")
    sys.stderr.flush()


if __name__ == "__main__":
    slow = 0.0
    if "--slow" in sys.argv:
        at = sys.argv.index("--slow")
        slow = float(sys.argv[at + 1])
        del sys.argv[at:at + 2]
    spy()
    sys.path.insert(0, HERE)
    import battleship_bot  # noqa: E402 - copied beside this file by the test
    if slow > 0:
        import time
        shoot = battleship_bot.choose_shots

        def slow_shots(*args, **kwargs):
            time.sleep(slow)
            return shoot(*args, **kwargs)
        battleship_bot.choose_shots = slow_shots
    battleship_bot.main()
