#!/usr/bin/env python3
"""Tournament entrants that are not house bots: a tcp client that plays its matches of a round
robin, one connection per match, with its token; a tcp entrant whose client never comes, which
forfeits each match after --accept-timeout with a named reason instead of hanging the run; the
tokens file (mode 0600, reused by resume); a program entrant with a quoted argument that contains
a space; entrants with limits of their own (a TOML file), kept in the logs and replayed by
verify; programs that seed themselves from ARBITER_SEED and so replay from the match's seed;
and the bad flags of each (one line, exit 2, no store)."""
import argparse
import csv
import io
import json
import os
import random
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bots", "python"))
from procs import Tally, check_refusals, free_port  # noqa: E402
import battleship_bot  # noqa: E402

ARGS = None
TALLY = Tally()


def arbiter(*args, timeout=120):
    return subprocess.run([ARGS.arbiter, *args], capture_output=True, text=True, timeout=timeout)


class Client(threading.Thread):
    """A battleship player over tcp: connects (retrying while no match listens), sends its token,
    plays one match per connection, and stops after `matches` matches or when nothing has
    listened for `idle` seconds."""

    def __init__(self, port, token, matches, idle=20.0):
        super().__init__(daemon=True)
        self.port, self.token, self.matches, self.idle = port, token, matches, idle
        self.played, self.refused, self.errors = 0, [], []
        self.rng = random.Random(5)

    def run(self):
        last = time.time()
        while self.played < self.matches and time.time() - last < self.idle:
            try:
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
            except OSError:
                time.sleep(0.05)
                continue
            last = time.time()
            try:
                self.play(sock)
            except (OSError, ValueError) as e:
                self.errors.append(str(e))
            finally:
                sock.close()
            last = time.time()

    def play(self, sock):
        f = sock.makefile("rw", encoding="utf-8", newline="\n")
        f.write(json.dumps(self.token) + "\n")
        f.flush()
        for line in f:
            method, args = json.loads(line)
            if method == "refused":
                self.refused.append(args)
                time.sleep(0.05)
                return
            if method == "ejected":
                self.errors.append(f"ejected: {args}")
                return
            if method == "setup":
                reply = battleship_bot.place_fleet(args[0], self.rng)
            elif method == "take-turn":
                reply = battleship_bot.choose_shots(args[0], self.rng)
            else:
                reply = "void"
            f.write(json.dumps(reply) + "\n")
            f.flush()
            if method == "win":
                self.played += 1
                return


def standings(store, tid=1):
    r = arbiter("tournament", "results", str(tid), "--store", store, "--print-json")
    return json.loads(r.stdout) if r.returncode in (0, 1) and r.stdout.strip() else None


def test_tcp_entrant_plays_a_round_robin(tmp):
    port = free_port()
    tokens = f"{tmp}/tokens.json"
    token = "t" * 8 + "0123456789abcdef"
    with open(tokens, "w") as f:
        json.dump({"remote": token}, f)
    client = Client(port, token, matches=4)
    client.start()
    store = f"sqlite:{tmp}/rr.db"
    r = arbiter("tournament", "run", "-g", "battleship", "-p", "a:density", "-p", "b:hunt",
                "-p", "remote:tcp", "--listen", f"127.0.0.1:{port}", "--tokens", tokens,
                "--store", store, "-q", "--workers", "2")
    client.join(timeout=30)
    problems = []
    if r.returncode != 0:
        problems.append(f"exit {r.returncode}: {r.stderr.strip()}")
    j = standings(store)
    if not j or j["matches"] != 6 or j["errors"] != 0:
        problems.append(f"standings: {j and (j['matches'], j['errors'])}")
    else:
        row = next(s for s in j["standings"] if s["name"] == "remote")
        if row["matches"] != 4 or row["ejections"] != 0:
            problems.append(f"remote: {row['matches']} matches, {row['ejections']} ejections")
    if client.played != 4 or client.errors:
        problems.append(f"the client played {client.played}, errors {client.errors}")
    TALLY.report("a tcp entrant plays its 4 matches of a 6-match round robin", problems,
                 f"client played {client.played}, refused {len(client.refused)} time(s)")


def test_missing_client_forfeits(tmp):
    port = free_port()
    store = f"sqlite:{tmp}/missing.db"
    tokens = f"{tmp}/made.json"
    start = time.time()
    r = arbiter("tournament", "run", "-g", "battleship", "-p", "a:density", "-p", "ghost:tcp",
                "--listen", f"127.0.0.1:{port}", "--accept-timeout", "1", "--tokens", tokens,
                "--store", store, "-q")
    seconds = time.time() - start
    problems = []
    if r.returncode != 0:
        problems.append(f"exit {r.returncode}: {r.stderr.strip()}")
    if seconds > 20:
        problems.append(f"took {seconds:.1f} s")
    if "ejections of ghost: 2 hang-up" not in r.stdout:
        problems.append(f"no forfeit by name in {r.stdout!r}")
    rows = list(csv.DictReader(io.StringIO(arbiter("tournament", "results", "1", "--store", store,
                                                   "--matches").stdout)))
    if len(rows) != 2 or any("no tcp client signed up" not in row["ejections"] and
                             "ghost:hang-up" not in row["ejections"] for row in rows):
        problems.append(f"matches: {[row['ejections'] for row in rows]}")
    # The tokens it made are private, and a resume reads them back.
    mode = stat.S_IMODE(os.stat(tokens).st_mode) if os.path.exists(tokens) else None
    if mode != 0o600:
        problems.append(f"tokens file mode {mode and oct(mode)}")
    else:
        made = json.load(open(tokens))
        if set(made) != {"ghost"} or len(made["ghost"]) < 16:
            problems.append(f"tokens {made}")
        again = arbiter("tournament", "resume", "1", "--store", store, "--listen",
                        f"127.0.0.1:{port}", "--tokens", tokens, "-q")
        if again.returncode != 0 or json.load(open(tokens)) != made:
            problems.append(f"resume: exit {again.returncode}: {again.stderr.strip()}")
    TALLY.report("a tcp entrant whose client never comes forfeits, named", problems,
                 f"2 matches in {seconds:.1f} s")


def test_quoted_program_argument(tmp):
    folder = os.path.join(tmp, "my bots")
    os.makedirs(folder)
    bot = os.path.join(folder, "battle bot.py")
    with open(os.path.join(HERE, "..", "..", "bots", "python", "battleship_bot.py")) as src, \
            open(bot, "w") as dst:
        dst.write(src.read())
    store = f"sqlite:{tmp}/quoted.db"
    r = arbiter("tournament", "run", "-g", "battleship", "-p", "a:hunt",
                "-p", f"me:cmd:{ARGS.python} \"{bot}\" --seed 3", "--rounds", "2", "--store",
                store, "-q")
    j = standings(store)
    problems = [] if r.returncode == 0 else [f"exit {r.returncode}: {r.stderr.strip()}"]
    if not j or j["matches"] != 4 or any(s["ejections"] for s in j["standings"]):
        problems.append(f"standings {j and [(s['name'], s['ejections']) for s in j['standings']]}")
    TALLY.report("a program entrant with a quoted argument containing a space", problems,
                 "4 matches, no ejections")


def test_entrant_limits(tmp):
    """One program entrant gets 1 ms a call (its interpreter cannot even start in that time), the
    other the tournament's 6 s and a clock of its own: only the first is ejected, for timeout, in
    every match; the logs say which limits each seat had, and verify replays them all. The second
    keeps its stderr in a directory of its own."""
    bot = os.path.join(HERE, "..", "..", "bots", "python", "battleship_bot.py")
    toml = f"{tmp}/limits.toml"
    with open(toml, "w") as f:
        f.write('game = "battleship"\nrounds = 1\n'
                f'[[player]]\nname = "hasty"\ncommand = ["{ARGS.python}", "{bot}", "--seed", "1"]\n'
                'per_call = 0.001\n'
                f'[[player]]\nname = "calm"\ncommand = ["{ARGS.python}", "{bot}", "--seed", "2"]\n'
                f'clock = "60s+1s"\nstderr = "{tmp}/calm logs"\n')
    os.makedirs(f"{tmp}/calm logs")
    store = f"sqlite:{tmp}/limits.db"
    r = arbiter("tournament", "run", "-f", toml, "--store", store, "-q")
    problems = [] if r.returncode == 0 else [f"exit {r.returncode}: {r.stderr.strip()}"]
    j = standings(store)
    rows = {s["name"]: s for s in j["standings"]} if j else {}
    if rows.get("hasty", {}).get("ejected_for") != {"timeout": 2} or rows.get("calm", {}).get(
            "ejections") != 0:
        problems.append(f"ejections: {[(n, s['ejected_for']) for n, s in rows.items()]}")
    log = arbiter("tournament", "log", "1", "0", "--store", store)
    header = json.loads(log.stdout.splitlines()[0]) if log.returncode == 0 and log.stdout else {}
    limits = header.get("seat_limits")
    if not limits or sorted(x["per_call_ms"] for x in limits) != [1, 6000] or \
            sorted("clock" in x for x in limits) != [False, True]:
        problems.append(f"the log's seat_limits: {limits}")
    kept = sorted(os.listdir(f"{tmp}/calm logs"))
    if kept != ["t1-m0-calm.stderr", "t1-m1-calm.stderr"]:
        problems.append(f"calm's own stderr directory holds {kept}")
    v = arbiter("tournament", "verify", "1", "--store", store)
    if v.returncode != 0 or "2 replayed identically" not in v.stdout:
        problems.append(f"verify: exit {v.returncode}: {v.stdout.strip()} {v.stderr.strip()}")
    # The same settings as flags.
    flags = f"sqlite:{tmp}/limits-flags.db"
    r = arbiter("tournament", "run", "-g", "battleship",
                "-p", f"hasty:cmd:{ARGS.python} {bot} --seed 1",
                "-p", f"calm:cmd:{ARGS.python} {bot} --seed 2",
                "--entrant", "hasty:per_call=0.001", "--entrant", "calm:clock=60s+1s",
                "--entrant", "calm:memory=512M", "--entrant", "calm:env=CALM=1",
                "--store", flags, "-q")
    j2 = standings(flags)
    rows2 = {s["name"]: s["ejected_for"] for s in j2["standings"]} if j2 else {}
    if r.returncode != 0 or rows2 != {"hasty": {"timeout": 2}, "calm": {}}:
        problems.append(f"with --entrant flags: exit {r.returncode}, {rows2}, {r.stderr.strip()}")
    # The reproduce command gives each seat its own limits and program terms (play --entrant):
    # the same header limits and terms, and the same result, as the stored match.
    line = next((l for l in r.stdout.splitlines() if l.startswith("reproduce a match")), "")
    command = line.split(": ", 1)[1] if ": " in line else ""
    if not command.startswith("arbiter play ") or "--entrant hasty:per_call=0.001" not in command:
        problems.append(f"the reproduce command: {line!r}")
    else:
        again = subprocess.run(["bash", "-c", ARGS.arbiter + command[len("arbiter"):] +
                                f" --log '{tmp}/again.jsonl' --json"],
                               capture_output=True, text=True, timeout=120)
        stored = arbiter("tournament", "log", "1", str(line.split("#")[1].split(":")[0]),
                         "--store", flags).stdout.splitlines()
        played = open(f"{tmp}/again.jsonl").read().splitlines() if os.path.exists(
            f"{tmp}/again.jsonl") else []
        if again.returncode != 0 or not stored or not played:
            problems.append(f"reproduce: exit {again.returncode}: {again.stderr.strip()[:300]}")
        elif any(json.loads(played[0]).get(k) != json.loads(stored[0]).get(k)
                 for k in ("seat_limits", "hosting")) or played[-1] != stored[-1]:
            problems.append(f"reproduced: {played[0][:300]} ... {played[-1]} against the stored "
                            f"{stored[0][:300]} ... {stored[-1]}")
    TALLY.report("entrants with limits of their own", problems,
                 f"hasty: {rows.get('hasty', {}).get('ejected_for')}; seat_limits {limits}")


def test_program_seed(tmp):
    """Every program gets ARBITER_SEED, one per seat, from its match's seed under the run's
    program key: the example bot seeds itself from it, so its match played again with the same
    --seed and --program-key (as a reproduce command gives them) makes the same moves, walled or
    not; another seed makes others, and so does another key (a drawn one, when none is given)."""
    bot = os.path.join(HERE, "..", "..", "bots", "python", "battleship_bot.py")
    key = "00112233445566778899aabbccddeeff"

    def moves(seed, *extra):
        log = f"{tmp}/seeded-{seed}-{len(extra)}-{random.random()}.jsonl"
        r = arbiter("play", "battleship", "-p", f"a:cmd:{ARGS.python} {bot}",
                    "-p", f"b:cmd:{ARGS.python} {bot}", "--seed", str(seed), "--log", log, *extra)
        if r.returncode != 0:
            return f"exit {r.returncode}: {r.stderr.strip()[:300]}"
        # Everything but the time each call took.
        return [{k: v for k, v in json.loads(line).items() if k not in ("elapsed_us", "clock_us", "cpu_us")}
                for line in open(log).read().splitlines()[1:]]
    first, again, unwalled, other, drawn = (
        moves(5, "--program-key", key), moves(5, "--program-key", key),
        moves(5, "--program-key", key, "--unsafe-no-sandbox"), moves(6, "--program-key", key),
        moves(5))
    problems = [x for x in (first, again, unwalled, other, drawn) if isinstance(x, str)]
    if not problems:
        if again != first:
            problems.append("the same seed and key played other moves")
        if unwalled != first:
            problems.append("unwalled, the same seed and key played other moves")
        if other == first:
            problems.append("another seed played the same moves")
        if drawn == first:
            problems.append("a drawn key played the moves of the given one")
    TALLY.report("programs seed themselves from ARBITER_SEED: a match replays from its seed",
                 problems, f"{len(first) if isinstance(first, list) else first} calls")


def test_bad_flags(tmp):
    store = f"{tmp}/never.db"
    port = str(free_port())
    with open(f"{tmp}/partial.json", "w") as f:
        json.dump({"someone": "x" * 20}, f)
    cases = [
        (["-p", "r:tcp"], "--listen HOST:PORT"),
        (["-p", "r:tcp", "--listen", "127.0.0.1:0"], "--listen"),
        (["-p", "r:tcp", "--listen", f"127.0.0.1:{port}", "--tokens", f"{tmp}/partial.json"],
         "no token"),
        (["-p", "b:hunt", "--listen", f"127.0.0.1:{port}"], "tcp entrants"),
        (["-p", "q:cmd:python3 'unclosed.py"], "never closed"),
        (["-p", "b:hunt", "--entrant", "nobody:per_call=1"], "no entrant is named nobody"),
        (["-p", "b:hunt", "--entrant", "b:colour=red"], "unknown key"),
        (["-p", "b:hunt", "--entrant", "b:per_call=0"], "seconds between"),
        (["-p", "b:hunt", "--entrant", "b"], "NAME:KEY=VALUE"),
        (["-p", "b:hunt", "--entrant", "b:memory=1K"], "too small"),
    ]
    check_refusals(TALLY, lambda *extra: arbiter("tournament", "run", "-g", "battleship", "-p",
                                                 "a:density", *extra, "--store", f"sqlite:{store}"),
                   cases, store, "bad flags")


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--arbiter", required=True)
    p.add_argument("--python", default=sys.executable,
                   help="the interpreter program entrants run (not a shim: it runs sandboxed)")
    ARGS = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="arbiter-tcp-entrants-")
    sys.exit(TALLY.run_all([lambda: test_tcp_entrant_plays_a_round_robin(tmp),
                            lambda: test_missing_client_forfeits(tmp),
                            lambda: test_quoted_program_argument(tmp),
                            lambda: test_entrant_limits(tmp),
                            lambda: test_program_seed(tmp),
                            lambda: test_bad_flags(tmp)], tmp))


if __name__ == "__main__":
    main()
