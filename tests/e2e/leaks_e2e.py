#!/usr/bin/env python3
"""Hidden information stays hidden: each way a red-team pass found for a program or a spectator to
learn what is hidden, attacked from real processes and judged from outside.

The attacker is tests/misbehaving/leak_spy.py, a Battleship program that plays legally and first
reads whatever it can reach, then reports it on stderr (kept by the referee outside its reach).

  a. /proc: process 1 of its PID namespace is no copy of the referee: its cmdline holds no
     master seed, tournament name or store path, and /proc shows only the program's own
     processes; mountinfo and cgroup show no host path or referee pid.
  b. Spectators: while a tournament is played (served live), no API answer, live stream header
     or stored match row carries the master seed, nor a match's seed, reproduce command or whole
     log while a match dealt from the same seed is still to be played; once it is over they are.
  c. A program's seed: with the default (drawn) master seed and with --seed 1, the spy's search
     over small master seeds and schedule places finds nothing.
  d. A store given as an SQLite URI (file:, relative, with parameters, through a link) beside a
     program: refused in one line before anything is created; URIs naming no file refused.
  e. A stderr directory (the run's, an entrant's own, another entrant's), or the tournament
     file (it holds the master seed), inside a program's directory: refused in one line before
     anything starts.
  f. Log amplification: a reply of a 1 MB number makes no log line longer than a few KB.
  g. A match seed shown to spectators gives no master seed: inverting the old unkeyed derivation
     (splitmix64, a bijection) from every match seed of a finished tournament finds nothing, and
     match seeds are the documented HMAC-SHA-256 keyed by the master seed.
  h. A private file reached by another path: the game log through a bind mount of its directory
     at the program's own, and through a link (not yet pointing at anything) into the program's
     directory: refused in one line before anything is created.
  i. A real-time player sending a look-alike of the referee's record of a long malformed
     message (1 MB "why") makes no long log line.

Usage: leaks_e2e.py --arbiter PATH --root REPO   (as root; the walls need it)
"""
import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from procs import Tally, free_port  # noqa: E402

ARGS = None
TALLY = Tally()
PY = "/usr/bin/python3"


def arbiter(*args, timeout=180, cwd=None):
    return subprocess.run([ARGS.arbiter, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd)


def spy_dir(tmp, name="spy"):
    """A directory of the spy's own: the spy and the example bot it plays with."""
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(ARGS.root, "tests", "misbehaving", "leak_spy.py"), d)
    shutil.copy(os.path.join(ARGS.root, "bots", "python", "battleship_bot.py"), d)
    return d


def spy_reports(err_dir):
    """Every SPY report in the stderr files of `err_dir`."""
    reports = []
    for name in sorted(os.listdir(err_dir)) if os.path.isdir(err_dir) else []:
        with open(os.path.join(err_dir, name), errors="replace") as f:
            for line in f:
                if line.startswith("SPY "):
                    reports.append(json.loads(line[4:]))
    return reports


def one_line_refusal(r, *words):
    lines = r.stderr.strip().splitlines()
    if r.returncode != 2 or len(lines) != 1:
        return [f"exit {r.returncode}, {len(lines)} stderr lines: {r.stderr.strip()[-300:]}"]
    return [f"the refusal does not say {w!r}: {lines[0]}" for w in words if w not in lines[0]]


def check_proc(tmp):
    bot = spy_dir(tmp, "proc-spy")
    err = os.path.join(tmp, "proc-err")
    os.makedirs(err)
    seed = str(random.randrange(10**18, 10**19))
    secret_name = f"secret-league-{random.randrange(10**9)}"
    store = os.path.join(tmp, "proc-store", "t.db")
    os.makedirs(os.path.dirname(store))
    runs = [
        ("play", arbiter("play", "battleship", "-p", f"spy:cmd:{PY} {bot}/leak_spy.py",
                         "-p", "b:hunt", "--seed", seed, "--stderr-dir", err,
                         "--log", os.path.join(tmp, "proc-play.jsonl"))),
        ("tournament", arbiter("tournament", "run", "-g", "battleship", "--name", secret_name,
                               "--seed", seed, "-p", f"spy:cmd:{PY} {bot}/leak_spy.py",
                               "-p", "b:hunt", "--store", f"sqlite:{store}", "--stderr-dir", err,
                               "-q")),
    ]
    problems = [f"{what}: exit {r.returncode}: {r.stderr[-300:]}" for what, r in runs
                if r.returncode != 0]
    reports = spy_reports(err)
    if len(reports) < 3:
        problems.append(f"{len(reports)} spy reports, expected 3 (a play, two tournament matches)")
    for rep in reports:
        text = json.dumps(rep)
        for secret, what in ((seed, "the master seed"), (secret_name, "the tournament's name"),
                             (store, "the store's path"), ("--seed", "the referee's argv")):
            if secret in text:
                problems.append(f"the program read {what} ({secret}) in "
                                f"{[k for k, v in rep['proc'].items() if secret in v] or 'cmdlines'}")
        if rep["pids"] != [1, 2]:
            problems.append(f"it sees the processes {rep['pids'][:10]}, not only its own (1, 2)")
        for line in rep["proc"]["/proc/self/cgroup"].splitlines():
            if not line.endswith(":/"):
                problems.append(f"its cgroup shows a host path: {line}")
        for line in rep["proc"]["/proc/self/mountinfo"].splitlines():
            fields = line.split()
            if len(fields) > 4 and fields[3] not in ("/", fields[4]) and \
                    not fields[4].startswith("/dev/"):
                problems.append(f"its mountinfo shows a host path: {line}")
            if re.search(r"arbiter-\d+-\d+", line):
                problems.append(f"its mountinfo names the referee's groups: {line}")
    TALLY.report("a. /proc shows a program nothing of the referee's", problems,
                 f"{len(reports)} reports; process 1 is {reports[0]['proc']['/proc/1/cmdline']!r}"
                 if reports else "")


class Watcher(threading.Thread):
    """A spectator polling the live viewer of a running tournament: records every answer with the
    state the tournament was in when it was read."""

    def __init__(self, base, store=None):
        super().__init__(daemon=True)
        self.base = base
        self.store = store
        self.stop = False
        self.seen = []  # (what, text, finished indices at the time)
        self.errors = []

    def get(self, path, timeout=5, limit=None):
        try:
            with urllib.request.urlopen(self.base + path, timeout=timeout) as r:
                return r.status, r.read(limit) if limit else r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return None, b""

    def stream_head(self, path):
        """The first event of a live stream (the match line), or nothing."""
        try:
            with urllib.request.urlopen(self.base + path, timeout=3) as r:
                for raw in r:
                    line = raw.decode(errors="replace").strip()
                    if line.startswith("data:"):
                        return line[5:].strip()
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            pass
        return None

    def finished(self):
        """The matches with a result now, read from the store itself (the organizer's file; the
        API's answers may be up to a second old), and the API's list of them."""
        status, body = self.get("/api/tournaments/1/matches?limit=500")
        done = set()
        try:
            db = sqlite3.connect(f"file:{self.store}?mode=ro", uri=True, timeout=5)
            done = {row[0] for row in db.execute(
                "SELECT j.idx FROM jobs j JOIN results r ON r.job = j.id")}
            db.close()
        except sqlite3.Error as e:
            self.errors.append(str(e))
        return done, body.decode() if status == 200 else None

    def run(self):
        # Everything read in one pass is judged against the matches finished after it: what was
        # shown before a match ended is then never taken for what was shown after.
        finished = set()
        while not self.stop:
            batch = []
            for path in ("/api/tournaments/1", "/api/tournaments/1/live", "/api/live"):
                status, body = self.get(path)
                if status == 200:
                    batch.append((path, body.decode()))
            status, body = self.get("/api/live")
            for m in json.loads(body)["matches"] if status == 200 else []:
                if m["finished"]:
                    status, log = self.get(f"/api/live/{m['id']}/log")
                    if status == 200:
                        batch.append(("live log", log.decode()))
                else:
                    head = self.stream_head(f"/api/live/{m['id']}/stream")
                    if head:
                        batch.append(("live stream", head))
            status, body = self.get("/api/tournaments/1/live")
            for m in json.loads(body)["matches"] if status == 200 else []:
                head = self.stream_head(m["stream"])
                if head:
                    batch.append(("store stream", head))
            for i in sorted(finished):
                status, body = self.get(f"/api/tournaments/1/matches/{i}")
                if status == 200:
                    batch.append((f"match {i}", body.decode()))
                status, body = self.get(f"/api/tournaments/1/matches/{i}/log", limit=4096)
                if status == 200:
                    batch.append((f"log {i}", body.decode(errors="replace")))
            finished, rows = self.finished()
            if rows is not None:
                batch.append(("matches", rows))
            self.seen += [(what, text, finished) for what, text in batch]
            time.sleep(0.05)


def check_spectators(tmp):
    bot = spy_dir(tmp, "watched")
    store = os.path.join(tmp, "watched-store", "t.db")
    os.makedirs(os.path.dirname(store))
    port = free_port()
    master = str(random.randrange(10**18, 10**19))
    proc = subprocess.Popen(
        [ARGS.arbiter, "tournament", "run", "-g", "battleship", "--seed", master,
         "-p", f"a:cmd:{PY} {bot}/leak_spy.py --slow 0.01", "-p", "b:hunt", "-p", "c:density",
         "--store", f"sqlite:{store}", "--serve", f"127.0.0.1:{port}", "--workers", "1", "-q"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watcher = Watcher(f"http://127.0.0.1:{port}", store)
    time.sleep(0.3)
    watcher.start()
    out, err = proc.communicate(timeout=300)
    watcher.stop = True
    watcher.join(timeout=30)
    problems = [] if proc.returncode == 0 else [f"exit {proc.returncode}: {err[-300:]}"]
    # Every match's seed, and which matches share it, from the organizer's own listing.
    csv_path = os.path.join(tmp, "watched.csv")
    r = arbiter("tournament", "results", "1", "--store", f"sqlite:{store}", "--matches-csv",
                csv_path)
    seeds = {}
    if r.returncode == 0:
        import csv
        with open(csv_path) as f:
            for row in csv.DictReader(f):
                seeds[int(row["index"])] = row["seed"]
    else:
        problems.append(f"results --matches-csv: {r.stderr[-200:]}")
    planned = len(seeds)
    for what, text, finished in watcher.seen:
        over = len(finished) == planned
        if master in text and not over:
            problems.append(f"{what} carried the master seed while matches were played")
        for index, seed in seeds.items():
            siblings = {i for i, s in seeds.items() if s == seed}
            if seed in text and not siblings <= finished:
                problems.append(f"{what} carried the seed of match {index} while its pair "
                                f"{sorted(siblings - finished)} was still to be played")
        if what in ("live stream", "store stream") and '"seed"' in text:
            problems.append(f"a {what}'s first line has a seed: {text[:200]}")
    kinds = sorted({w.split()[0] for w, _, _ in watcher.seen})
    if not any(w in ("live stream", "store stream") for w, _, _ in watcher.seen):
        problems.append(f"the watcher never caught a match being played (saw {kinds})")
    # To the organizer, always.
    r = arbiter("tournament", "results", "1", "--store", f"sqlite:{store}")
    if master not in r.stdout:
        problems.append("the organizer's results do not show the master seed")
    TALLY.report("b. spectators see no seed, reproduce command or sibling's log while its pair "
                 "is played", problems[:8],
                 f"{len(watcher.seen)} answers read while {planned} matches were played ({kinds})")
    # The same store served afterwards: everything shown.
    port = free_port()
    server = subprocess.Popen([ARGS.arbiter, "serve", "--store", f"sqlite:{store}",
                               "--listen", f"127.0.0.1:{port}"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    problems = []
    try:
        w = Watcher(f"http://127.0.0.1:{port}")
        for _ in range(50):
            status, body = w.get("/api/tournaments/1")
            if status == 200:
                break
            time.sleep(0.1)
        if status != 200 or json.loads(body).get("seed") != master:
            problems.append(f"the master seed is not shown once it is over: {status} {body[:200]}")
        status, body = w.get("/api/tournaments/1/matches/0")
        m = json.loads(body) if status == 200 else {}
        if m.get("seed") != seeds.get(0) or "--seed" not in m.get("reproduce", ""):
            problems.append(f"match 0's seed and reproduce command are not shown: {body[:300]}")
        if "--program-key" not in m.get("reproduce", ""):
            problems.append("the reproduce command has no --program-key once it is over")
        status, _ = w.get("/api/tournaments/1/matches/0/log")
        if status != 200:
            problems.append(f"match 0's log is not served once it is over ({status})")
    finally:
        server.kill()
        server.wait()
    TALLY.report("b. once the tournament is over, its seeds, commands and logs are shown", problems,
                 "served by arbiter serve")


def check_seed_search(tmp):
    bot = spy_dir(tmp, "searcher")
    problems = []
    found = 0
    for label, seed_args in (("the default seed", []), ("--seed 1", ["--seed", "1"])):
        err = os.path.join(tmp, f"search-err-{len(seed_args)}")
        os.makedirs(err)
        store = os.path.join(tmp, f"search-store-{len(seed_args)}", "t.db")
        os.makedirs(os.path.dirname(store))
        r = arbiter("tournament", "run", "-g", "battleship", *seed_args,
                    "-p", f"spy:cmd:{PY} {bot}/leak_spy.py", "-p", "b:hunt", "-p", "c:random",
                    "--store", f"sqlite:{store}", "--stderr-dir", err, "-q")
        if r.returncode != 0:
            problems.append(f"{label}: exit {r.returncode}: {r.stderr[-300:]}")
        reports = spy_reports(err)
        found += len(reports)
        for rep in reports:
            if not rep["arbiter_seed"].isdigit():
                problems.append(f"{label}: the program got no ARBITER_SEED")
            if rep["search"]:
                problems.append(f"{label}: the program found its match from its seed: "
                                f"{rep['search']}")
        if len(reports) < 4:
            problems.append(f"{label}: {len(reports)} spy reports, expected 4")
        if not seed_args and "seed 1," in r.stderr:
            problems.append("a tournament without --seed ran with seed 1")
    TALLY.report("c. a program's seed tells it nothing of its match, whatever the master seed",
                 problems, f"{found} searches over 1000 master seeds x 64 places found nothing")


def check_uri_store(tmp):
    bot = spy_dir(tmp, "beside")
    err = os.path.join(tmp, "uri-err")
    os.makedirs(err)
    link = os.path.join(tmp, "link-to-beside")
    os.symlink(bot, link)
    problems = []
    forms = [f"sqlite:file:{bot}/t.db", f"sqlite:file:{bot}/t.db?mode=rwc&cache=shared",
             f"sqlite:file://{bot}/t%2Edb", "sqlite:file:beside/t.db", f"sqlite:{link}/t.db",
             f"sqlite:file:{link}/./t.db"]
    for url in forms:
        r = arbiter("tournament", "run", "-g", "battleship", "-p", f"spy:cmd:{PY} {bot}/leak_spy.py",
                    "-p", "b:hunt", "--store", url, "--stderr-dir", err, "-q", cwd=tmp)
        problems += [f"{url}: {p}" for p in one_line_refusal(r, "the store", "No program may read it")]
    if os.path.exists(os.path.join(bot, "t.db")):
        problems.append("a store was created beside the program")
    if spy_reports(err):
        problems.append("the program ran (and read what it found)")
    for url, why in (("sqlite:file:x.db?vfs=unix-none", "vfs"), ("sqlite:file://host/x.db", "host"),
                     ("sqlite:file:x.db?mode=memory", "in-memory")):
        r = arbiter("tournament", "run", "-g", "battleship", "-p", "a:hunt", "-p", "b:hunt",
                    "--store", url, "-q", cwd=tmp)
        problems += [f"{url}: {p}" for p in one_line_refusal(r, why)]
    # Elsewhere, a URI store plays.
    r = arbiter("tournament", "run", "-g", "battleship", "-p", f"spy:cmd:{PY} {bot}/leak_spy.py",
                "-p", "b:hunt", "--store", f"sqlite:file:{tmp}/elsewhere.db?cache=shared",
                "--stderr-dir", err, "-q")
    if r.returncode != 0 or not os.path.exists(os.path.join(tmp, "elsewhere.db")):
        problems.append(f"a file: store elsewhere does not play: {r.stderr[-300:]}")
    for rep in spy_reports(err):
        if any(not v.startswith("ERROR") and ".db" in k for k, v in rep["files"].items()):
            problems.append("the program read a store")
    TALLY.report("d. a store beside a program is refused in every form SQLite opens", problems,
                 f"{len(forms)} forms refused, 3 unresolvable URIs refused")


def check_stderr_dirs(tmp):
    bot = spy_dir(tmp, "noter")
    other = spy_dir(tmp, "other")
    problems = []
    cases = [
        ("play --stderr-dir in its directory",
         ["play", "battleship", "-p", f"spy:cmd:{PY} {bot}/leak_spy.py", "-p", "b:hunt",
          "--stderr-dir", os.path.join(bot, "err")], "the stderr directory"),
        ("play, its own stderr directory in its directory",
         ["play", "battleship", "-p", f"spy:cmd:{PY} {bot}/leak_spy.py", "-p", "b:hunt",
          "--entrant", f"spy:stderr={bot}"], "spy's stderr directory"),
        ("play, the opponent's stderr directory in its directory",
         ["play", "battleship", "-p", f"spy:cmd:{PY} {bot}/leak_spy.py",
          "-p", f"o:cmd:{PY} {other}/leak_spy.py", "--entrant", f"o:stderr={bot}/notes"],
         "o's stderr directory"),
        ("tournament --stderr-dir in its directory",
         ["tournament", "run", "-g", "battleship", "-p", f"spy:cmd:{PY} {bot}/leak_spy.py",
          "-p", "b:hunt", "--store", f"sqlite:{tmp}/stderr-t.db", "--stderr-dir", bot, "-q"],
         "the stderr directory"),
        ("tournament, another entrant's stderr directory in its directory",
         ["tournament", "run", "-g", "battleship", "-p", f"spy:cmd:{PY} {bot}/leak_spy.py",
          "-p", f"o:cmd:{PY} {other}/leak_spy.py", "-p", "c:hunt", "--entrant",
          f"o:stderr={bot}", "--store", f"sqlite:{tmp}/stderr-t2.db", "-q"],
         "o's stderr directory"),
    ]
    with open(os.path.join(bot, "league.toml"), "w") as f:
        f.write(f'game = "battleship"\nseed = 7\n[[player]]\nname = "spy"\n'
                f'bot = "cmd:{PY} {bot}/leak_spy.py"\n[[player]]\nname = "h"\nbot = "hunt"\n')
    cases.append(("a tournament file (its seed) beside the bot",
                  ["tournament", "run", "-f", os.path.join(bot, "league.toml"), "--store",
                   f"sqlite:{tmp}/stderr-t3.db", "-q"], "the tournament file"))
    for name, args, what in cases:
        os.makedirs(os.path.join(bot, "err"), exist_ok=True)
        os.makedirs(os.path.join(bot, "notes"), exist_ok=True)
        r = arbiter(*args)
        problems += [f"{name}: {p}" for p in one_line_refusal(r, what, "No program may read it")]
    written = [f for f in os.listdir(bot) if f.endswith(".stderr")] + \
        os.listdir(os.path.join(bot, "err")) + os.listdir(os.path.join(bot, "notes"))
    if written:
        problems.append(f"stderr files were written in the program's directory: {written}")
    for db in ("stderr-t.db", "stderr-t2.db", "stderr-t3.db"):
        if os.path.exists(os.path.join(tmp, db)):
            problems.append(f"{db} was created")
    TALLY.report("e. a stderr directory or the tournament file in a program's reach is refused",
                 problems,
                 f"{len(cases)} cases refused in one line")


def check_amplification(tmp):
    d = os.path.join(tmp, "big")
    os.makedirs(d)
    with open(os.path.join(d, "big.py"), "w") as f:
        f.write("import sys\nfor line in sys.stdin:\n"
                "    sys.stdout.write('1' * 1000000 + '\\n'); sys.stdout.flush()\n")
    problems = []
    longest = 0
    for game, other in (("battleship", "b:hunt"), ("q", "b:dag")):
        log = os.path.join(tmp, f"big-{game}.jsonl")
        r = arbiter("play", game, "-p", f"a:cmd:{PY} {d}/big.py", "-p", other, "--log", log,
                    "--json")
        if r.returncode != 0:
            problems.append(f"{game}: exit {r.returncode}: {r.stderr[-200:]}")
            continue
        with open(log) as f:
            longest = max([longest] + [len(line) for line in f])
        result = json.loads(r.stdout)
        for e in result["ejections"]:
            if len(e["detail"]) > 300:
                problems.append(f"{game}: an ejection detail of {len(e['detail'])} bytes")
        if len(r.stdout) > 8192:
            problems.append(f"{game}: the result is {len(r.stdout)} bytes")
    if longest > 8192:
        problems.append(f"a log line of {longest} bytes")
    TALLY.report("f. a 1 MB reply makes no long log line", problems, f"longest log line {longest} bytes")

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def old_master_from(match_seed, index):
    """The master seed the old derivation (Rng::derive: splitmix64 finalizer of a mix) would have
    given `match_seed` at `index`: its finalizer is a bijection, so it runs backwards."""
    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & M64

    def unshift(y, s):
        x = y
        for _ in range(64 // s + 1):
            x = y ^ (x >> s)
        return x & M64

    def fnv(tag):
        v = 0xCBF29CE484222325
        for c in tag.encode():
            v = ((v ^ c) * 0x100000001B3) & M64
        return v

    z = unshift(match_seed, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & M64
    z = unshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & M64
    x = (unshift(z, 30) - 2 * GOLDEN) & M64
    return x ^ rotl(fnv("match"), 17) ^ rotl((index * GOLDEN) & M64, 41)


def documented_match_seed(master, index):
    import hashlib
    import hmac
    digest = hmac.new(master.to_bytes(8, "little"), b"arbiter match seed" + index.to_bytes(8, "little"),
                      hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "little")


def check_master_from_match_seed(tmp):
    master = random.getrandbits(64)
    store = f"sqlite:{tmp}/inverse.db"
    r = arbiter("tournament", "run", "-g", "battleship", "-p", "a:hunt", "-p", "b:random",
                "-p", "c:tracker", "--seed", str(master), "--store", store, "-q")
    problems = [] if r.returncode == 0 else [f"the run: {r.stderr[-300:]}"]
    rows = arbiter("tournament", "results", "1", "--matches", "--store", store).stdout.splitlines()
    header = rows[0].split(",") if rows else []
    seeds = []
    for line in rows[1:]:
        cells = line.split(",")
        seeds.append((int(cells[header.index("index")]), int(cells[header.index("seed")]),
                      cells[header.index("pair")]))
    first_of_pair = {}
    for index, seed, pair in seeds:
        first_of_pair.setdefault(pair, index)
    for index, seed, pair in seeds:
        group = first_of_pair[pair]
        if old_master_from(seed, group) == master:
            problems.append(f"match {index}'s seed gives the master seed back")
        if documented_match_seed(master, group) != seed:
            problems.append(f"match {index}'s seed is not HMAC-SHA-256(master, match {group})")
    if not seeds:
        problems.append("no match rows")
    TALLY.report("g. a shown match seed gives no master seed", problems,
                 f"{len(seeds)} match seeds checked")


def check_private_aliases(tmp):
    problems = []
    real = os.path.join(tmp, "alias-real")
    view = os.path.join(tmp, "alias-view")
    os.makedirs(real)
    os.makedirs(view)
    shutil.copy(os.path.join(ARGS.root, "tests", "misbehaving", "leak_spy.py"), real)
    mounted = subprocess.run(["mount", "--bind", real, view], capture_output=True).returncode == 0
    if not mounted:
        problems.append("mount --bind failed (the check needs root)")
    else:
        try:
            r = arbiter("play", "battleship", "-p", f"spy:cmd:{PY} {view}/leak_spy.py",
                        "-p", "b:hunt", "--log", f"{real}/game.jsonl")
            problems += [f"bind alias: {p}" for p in one_line_refusal(r, "the game log")]
            if os.path.exists(os.path.join(real, "game.jsonl")):
                problems.append("bind alias: the log was created")
        finally:
            subprocess.run(["umount", view], capture_output=True)
    bot = spy_dir(tmp, "dangling")
    org = os.path.join(tmp, "org")
    os.makedirs(org)
    os.symlink(os.path.join(bot, "game.jsonl"), os.path.join(org, "game.jsonl"))
    r = arbiter("play", "battleship", "-p", f"spy:cmd:{PY} {bot}/leak_spy.py", "-p", "b:hunt",
                "--log", os.path.join(org, "game.jsonl"))
    problems += [f"dangling link: {p}" for p in one_line_refusal(r, "the game log")]
    if os.path.exists(os.path.join(bot, "game.jsonl")):
        problems.append("dangling link: the log was created in the program's directory")
    TALLY.report("h. a private file through a bind mount or a dangling link is refused", problems,
                 "both refused before anything was created")


def check_record_lookalike(tmp):
    bot = os.path.join(tmp, "lookalike")
    os.makedirs(bot)
    with open(os.path.join(bot, "fake.py"), "w") as f:
        f.write("import json, sys\n"
                "sys.stdin.readline()\n"
                "sys.stdout.write(json.dumps({'malformed_excerpt': 'x', 'bytes': 1,"
                " 'why': 'W' * 1000000}) + '\\n')\n"
                "sys.stdout.flush()\n"
                "for line in sys.stdin:\n"
                "    pass\n")
    log = os.path.join(tmp, "lookalike.jsonl")
    r = arbiter("play", "dominosa", "-p", f"fake:cmd:{PY} {bot}/fake.py", "-p", "b:slow=3",
                "--log", log, "--seed", "7")
    problems = [] if os.path.exists(log) else [f"no log: {r.stderr[-300:]}"]
    longest = 0
    if os.path.exists(log):
        with open(log, "rb") as f:
            longest = max((len(line) for line in f), default=0)
        if longest > 8192:
            problems.append(f"a log line of {longest} bytes")
        rep = arbiter("replay", log)
        if rep.returncode != 0:
            problems.append(f"replay: {rep.stdout[-200:]} {rep.stderr[-200:]}")
    TALLY.report("i. a look-alike of the malformed-message record makes no long log line",
                 problems, f"longest log line {longest} bytes")


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arbiter", required=True)
    parser.add_argument("--root", required=True)
    ARGS = parser.parse_args()
    ARGS.arbiter = os.path.abspath(ARGS.arbiter)
    if os.geteuid() != 0:
        print("leaks_e2e needs root (the walls are built by root)")
        return 1
    random.seed()
    with tempfile.TemporaryDirectory(prefix="arbiter-leaks-") as tmp:
        os.chmod(tmp, 0o755)
        for check in (check_proc, check_seed_search, check_uri_store, check_stderr_dirs,
                      check_amplification, check_spectators, check_master_from_match_seed,
                      check_private_aliases, check_record_lookalike):
            try:
                check(tmp)
            except Exception as e:  # noqa: BLE001 - one broken check must not hide the others
                TALLY.report(check.__name__, [f"{type(e).__name__}: {e}"], "")
    print(f"{TALLY.passed} passed, {TALLY.failed} failed")
    return 1 if TALLY.failed else 0


if __name__ == "__main__":
    sys.exit(main())
