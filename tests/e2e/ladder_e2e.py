#!/usr/bin/env python3
"""The ladder end to end, through the CLI and real processes (docs/ladder.md):
  order     twelve Battleship house bots of known order (3 each of random < hunt < tracker <
            density) on five ladder seeds: after 450 rated matches the leaderboard agrees with
            the known order, Kendall tau >= 0.9 (pairs of one kind not counted), and the stored
            ratings equal a recomputation from the results (ladder verify);
  newcomer  a stored bot (battleship-bot playing tracker) added to a running ladder plays at
            once, and after its 30th game stands within 2 places of its true place;
  four      a Q ladder of 2 to 4 seats per match (honest dag/ldasg above scripted cheaters)
            converges likewise on five seeds, with matches of 2, 3 and 4 seats;
  states    a paused ladder adds no match, a resumed one does; a retired version stops playing
            and keeps its history;
  finals    `ladder finals --top 4` freezes the ladder (no match added after) and plays a round
            robin of its top four: standings and a crosstable of exactly those four;
  race      two `ladder run` of one 2-4 seat ladder at once: every seed group whole;
  crash     kill -9 of `ladder run` mid-run, then run again: nothing lost, nothing counted
            twice, ratings equal to a recomputation.
With --postgres-from-env: the crash part on that PostgreSQL server, with a second worker process
(`arbiter worker --ladder`) killed too."""
import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from procs import Tally  # noqa: E402

ARGS = None
TALLY = Tally()
TIERS = {"random": 0, "hunt": 1, "tracker": 2, "density": 3}
# Rated matches after which the order is checked (docs/ladder.md, "How many games"): about 75
# games each. At 300 the tau was 0.89 to 1.0 over runs (the matchmaker's choices follow timing).
ORDER_MATCHES = 900


def arbiter(*args, cwd=None, timeout=600):
    return subprocess.run([ARGS.arbiter, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd)


def kendall_tau(truth):
    """Kendall's tau of a leaderboard (best first) given each row's true tier (higher is
    stronger); pairs within one tier are not counted."""
    concordant = discordant = 0
    for i in range(len(truth)):
        for j in range(i + 1, len(truth)):
            if truth[i] == truth[j]:
                continue
            if truth[i] > truth[j]:
                concordant += 1
            else:
                discordant += 1
    return (concordant - discordant) / (concordant + discordant)


def board(store, name):
    r = arbiter("ladder", "status", name, "--json", "--store", store)
    if r.returncode != 0:
        raise RuntimeError(f"ladder status {name}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def verify(store, name):
    r = arbiter("ladder", "verify", name, "--store", store)
    return [] if r.returncode == 0 else [f"ladder verify: exit {r.returncode}: {r.stderr[-400:]}"]


def battleship_anchors():
    out = []
    for bot in TIERS:
        for i in (1, 2, 3):
            out += ["--anchor", f"{bot[0]}{i}:{bot}"]
    return out


def run_until(store, name, rated, *extra):
    return arbiter("ladder", "run", name, "--workers", "2", "--until-rated", str(rated), "-q",
                   "--store", store, *extra)


def order(store):
    for seed in range(1, 6):
        name = f"bs{seed}"
        made = arbiter("ladder", "create", name, "-g", "battleship", "--seed", str(seed),
                       *battleship_anchors(), "--store", store)
        problems = [] if made.returncode == 0 else [f"create: {made.stderr.strip()}"]
        r = run_until(store, name, ARGS.order_matches)
        if r.returncode != 0:
            problems.append(f"run: exit {r.returncode}: {r.stderr[-300:]}")
        b = board(store, name)
        tau = kendall_tau([TIERS[row["bot"]] for row in b["rows"]])
        if tau < 0.9:
            problems.append(f"Kendall tau {tau:.3f} < 0.9: {[row['name'] for row in b['rows']]}")
        if b["rated"] < ARGS.order_matches:
            problems.append(f"only {b['rated']} rated")
        problems += verify(store, name)
        TALLY.report(f"order on seed {seed}", problems,
                     f"tau {tau:.3f} after {b['rated']} rated matches: "
                     + " ".join(row["name"] for row in b["rows"]))


def newcomer(store, work):
    name = "bs1"
    bot = os.path.join(work, "late")
    os.makedirs(bot, exist_ok=True)
    shutil.copy(ARGS.battleship_bot, os.path.join(bot, "battleship-bot"))
    with open(os.path.join(bot, "arbiter-bot.toml"), "w") as f:
        f.write('name = "late"\ngame = "battleship"\n'
                'run = ["./battleship-bot", "--strategy", "tracker"]\n')
    problems = []
    added = arbiter("bot", "add", bot, "--store", store, "--matches", "2")
    if added.returncode != 0 or "active" not in added.stdout:
        problems.append(f"bot add: exit {added.returncode}: {added.stdout[-300:]} {added.stderr[-300:]}")
    start = board(store, name)["rated"]
    r = run_until(store, name, start + 260)
    if r.returncode != 0:
        problems.append(f"run: exit {r.returncode}: {r.stderr[-300:]}")
    # The leaderboard as it stood right after the newcomer's 30th rated match.
    histories = {}
    for row in board(store, name)["rows"]:
        h = arbiter("ladder", "history", name, row["name"], "--json", "--store", store)
        histories[row["name"]] = ([json.loads(line) for line in h.stdout.splitlines()], row["bot"])
    late_steps = histories.get("latev1", ([], ""))[0]
    detail = ""
    if len(late_steps) < 30:
        problems.append(f"the newcomer has {len(late_steps)} rated games, not 30")
    else:
        first_at = late_steps[0]["match"]
        at = late_steps[29]["match"]
        standing = []
        for entrant, (steps, bot_name) in histories.items():
            before = [s for s in steps if s["match"] <= at]
            mu, sigma = (before[-1]["mu"], before[-1]["sigma"]) if before else (25.0, 25.0 / 3)
            standing.append((mu - 3 * sigma, entrant, bot_name))
        standing.sort(reverse=True)
        place = next(i for i, s in enumerate(standing, 1) if s[1] == "latev1")
        # True places of a tracker among 3 density, 4 tracker, 3 hunt, 3 random: 4 to 7.
        if not 2 <= place <= 9:
            problems.append(f"after 30 games the newcomer stands {place}th, not within 2 of 4-7: "
                            f"{[s[1] for s in standing]}")
        first_match = board(store, name)["rated"]
        detail = (f"first game at match {first_at} (ladder had {start} rated), 30th at {at}, "
                  f"then {place}th of {len(standing)}")
        del first_match
    problems += verify(store, name)
    TALLY.report("a version added mid-run is placed", problems, detail)


def four_seats(store, work):
    anchors = []
    for i in (1, 2, 3):
        anchors += ["--anchor", f"d{i}:dag", "--anchor", f"l{i}:ldasg"]
    cheats = ["dag+cheat=no-fit", "ldasg+cheat=non-adjacent-coordinate",
              "dag+cheat=tile-not-owned", "ldasg+cheat=not-a-line", "ldasg+cheat=no-fit",
              "dag+cheat=non-adjacent-coordinate"]
    for i, c in enumerate(cheats, 1):
        anchors += ["--anchor", f"c{i}:{c}"]
    db = os.path.join(work, "q.db")
    for seed in range(1, 6):
        name = f"q{seed}"
        store_q = "sqlite:" + db
        made = arbiter("ladder", "create", name, "-g", "q", "--seats", "2-4", "--seed", str(seed),
                       *anchors, "--store", store_q)
        problems = [] if made.returncode == 0 else [f"create: {made.stderr.strip()}"]
        r = run_until(store_q, name, 300)
        if r.returncode != 0:
            problems.append(f"run: exit {r.returncode}: {r.stderr[-300:]}")
        b = board(store_q, name)
        tau = kendall_tau([0 if "cheat" in row["bot"] else 1 for row in b["rows"]])
        if tau < 0.9:
            problems.append(f"Kendall tau {tau:.3f} < 0.9: {[row['name'] for row in b['rows']]}")
        with sqlite3.connect(db) as conn:
            sizes = {len(json.loads(spec)["seats"]) for (spec,) in conn.execute(
                "SELECT j.spec FROM jobs j JOIN tournaments t ON t.id = j.tournament "
                "WHERE t.name = ?", (name,))}
        if sizes != {2, 3, 4}:
            problems.append(f"matches of {sorted(sizes)} seats, expected 2, 3 and 4")
        problems += verify(store_q, name)
        TALLY.report(f"four seats on seed {seed}", problems,
                     f"tau {tau:.3f}, seats {sorted(sizes)}: " + " ".join(r["name"] for r in b["rows"]))


def two_coordinators(work):
    """Two `ladder run` of one 2-4 seat ladder at once: their rounds never mix, so every group
    is whole (k matches of k seats, indices from its first, one seed) and the ratings agree."""
    db = os.path.join(work, "race.db")
    store = "sqlite:" + db
    anchors = []
    for i in range(1, 5):
        anchors += ["--anchor", f"d{i}:dag", "--anchor", f"l{i}:ldasg"]
    made = arbiter("ladder", "create", "race", "-g", "q", "--seats", "2-4", *anchors,
                   "--store", store)
    problems = [] if made.returncode == 0 else [f"create: {made.stderr.strip()}"]
    runs = [subprocess.Popen([ARGS.arbiter, "ladder", "run", "race", "--workers", "1", "-q",
                              "--queue", str(q), "--store", store],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for q in (2, 3, 4, 5)]
    time.sleep(8)
    for r in runs:
        r.send_signal(signal.SIGINT)
        r.wait(timeout=60)
    arbiter("ladder", "run", "race", "--workers", "2", "--until-rated",
            str(board(store, "race")["rated"] + 20), "-q", "--store", store)
    with sqlite3.connect(db) as conn:
        rows = [(idx, json.loads(spec)) for idx, spec in conn.execute(
            "SELECT j.idx, j.spec FROM jobs j JOIN tournaments t ON t.id = j.tournament "
            "WHERE t.name = 'race' ORDER BY j.idx")]
    groups = {}
    for idx, spec in rows:
        groups.setdefault(spec["pair"], []).append((idx, len(spec["seats"]), spec["seed"]))
    broken = [p for p, g in groups.items()
              if [i for i, _, _ in g] != list(range(p, p + g[0][1]))
              or len({k for _, k, _ in g}) != 1 or len({s for _, _, s in g}) != 1]
    if broken:
        problems.append(f"{len(broken)} mixed or short groups, e.g. {groups[broken[0]]}")
    problems += verify(store, "race")
    TALLY.report("two coordinators of one 2-4 seat ladder", problems,
                 f"{len(rows)} matches in {len(groups)} whole groups")


def job_count(db, name):
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM jobs j JOIN tournaments t ON t.id = j.tournament "
                            "WHERE t.name = ?", (name,)).fetchone()[0]


def states(store, db):
    name = "bs2"
    problems = []
    r = arbiter("ladder", "pause", name, "--store", store)
    if r.returncode != 0 or "paused" not in r.stdout:
        problems.append(f"pause: {r.stdout} {r.stderr}")
    before = job_count(db, name)
    # Paused: the queue drains, nothing is added.
    run = subprocess.Popen([ARGS.arbiter, "ladder", "run", name, "--workers", "2", "-q",
                            "--store", store], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    time.sleep(3)
    paused_jobs = job_count(db, name)
    if paused_jobs != before:
        problems.append(f"a paused ladder added {paused_jobs - before} matches")
    arbiter("ladder", "resume", name, "--store", store)
    time.sleep(2)
    run.send_signal(signal.SIGINT)
    run.wait(timeout=30)
    resumed = job_count(db, name)
    if resumed <= paused_jobs:
        problems.append("a resumed ladder added no match")
    TALLY.report("pause and resume", problems,
                 f"{before} jobs, {paused_jobs} after 3 s paused, {resumed} after resuming")

    # Retiring: the version is benched within a round and keeps its history.
    problems = []
    name = "bs1"
    games_before = next(r for r in board(store, name)["rows"] if r["name"] == "latev1")["games"]
    r = arbiter("bot", "retire", "late@1", "--why", "superseded", "--store", store)
    if r.returncode != 0:
        problems.append(f"bot retire: {r.stderr.strip()}")
    jobs_at_retire = job_count(db, name)
    r = run_until(store, name, board(store, name)["rated"] + 60)
    row = next(r for r in board(store, name)["rows"] if r["name"] == "latev1")
    if row["status"] != "benched":
        problems.append(f"the retired version is {row['status']}, not benched")
    with sqlite3.connect(db) as conn:
        tid, spec = conn.execute("SELECT id, spec FROM tournaments WHERE name = ?", (name,)).fetchone()
        late = [p["name"] for p in json.loads(spec)["players"]].index("latev1")
        # Jobs added after the queue of the moment (at most --queue 4 and a round) seat it no more.
        seated = [idx for idx, s in conn.execute(
            "SELECT idx, spec FROM jobs WHERE tournament = ? AND idx >= ?",
            (tid, jobs_at_retire + 8)) if late in json.loads(s)["seats"]]
    if seated:
        problems.append(f"matches {seated[:5]} still seat the retired version")
    if row["games"] < games_before:
        problems.append(f"its history shrank from {games_before} to {row['games']} games")
    problems += verify(store, name)
    TALLY.report("a retired version stops and keeps its history", problems,
                 f"{row['games']} games kept, status {row['status']}")


def finals(store, db):
    name = "bs3"
    problems = []
    top = [row["name"] for row in board(store, name)["rows"]][:4]
    r = arbiter("ladder", "finals", name, "--top", "4", "--rounds", "2", "--workers", "2", "-q",
                "--store", store)
    if r.returncode != 0:
        problems.append(f"finals: exit {r.returncode}: {r.stderr[-300:]}")
    cross = r.stdout[r.stdout.find("points against each"):]
    header = cross.splitlines()[0].split() if cross else []
    if sorted(n for n in top if n in r.stdout) != sorted(top) or not cross:
        problems.append(f"the finals do not show the top four {top}: {r.stdout[-600:]}")
    if not all(n in header or n in cross for n in top):
        problems.append("the crosstable lacks one of the four")
    rows = [line for line in cross.splitlines()[1:] if line.strip()]
    if len(rows) != 4:
        problems.append(f"the crosstable has {len(rows)} rows, not 4")
    if board(store, name)["state"] != "frozen":
        problems.append("the ladder is not frozen")
    before = job_count(db, name)
    run = subprocess.Popen([ARGS.arbiter, "ladder", "run", name, "--workers", "1", "-q",
                            "--store", store], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    time.sleep(2)
    run.send_signal(signal.SIGINT)
    run.wait(timeout=30)
    if job_count(db, name) != before:
        problems.append("a frozen ladder added matches")
    TALLY.report("finals of the frozen top four", problems,
                 f"top {top}; {len(rows)} crosstable rows")


def wait_rated(store, name, at_least, proc, timeout=120):
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        if proc.poll() is not None:
            return False
        try:
            if board(store, name)["rated"] >= at_least:
                return True
        except (RuntimeError, ValueError):
            pass
        time.sleep(0.2)
    return False


def crash(store, label, with_worker=False):
    name = f"crash{label}"
    problems = []
    made = arbiter("ladder", "create", name, "-g", "battleship", *battleship_anchors(),
                   "--store", store)
    if made.returncode != 0:
        problems.append(f"create: {made.stderr.strip()}")
    procs = [subprocess.Popen([ARGS.arbiter, "ladder", "run", name, "--workers", "1", "-q",
                               "--store", store, "--lease", "3"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    if with_worker:
        procs.append(subprocess.Popen([ARGS.arbiter, "worker", "--ladder", name, "--workers", "1",
                                       "--store", store, "--lease", "3"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    if not wait_rated(store, name, 80, procs[0]):
        problems.append("the ladder did not reach 80 rated matches")
    for p in procs:
        p.send_signal(signal.SIGKILL)
        p.wait()
    killed_at = board(store, name)["rated"]
    problems += verify(store, name)
    r = run_until(store, name, killed_at + 80)
    if r.returncode != 0:
        problems.append(f"resume: exit {r.returncode}: {r.stderr[-300:]}")
    b = board(store, name)
    problems += verify(store, name)
    # Nothing counted twice: every rated match is in exactly two entrants' game counts.
    games = sum(row["games"] for row in b["rows"])
    if games != 2 * b["rated"]:
        problems.append(f"{games} games counted for {b['rated']} rated two-seat matches")
    TALLY.report(f"kill -9 mid-run on {label}", problems,
                 f"killed at {killed_at} rated, resumed to {b['rated']}; {games} games = 2 x rated")


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--arbiter", required=True)
    p.add_argument("--battleship-bot", required=True)
    p.add_argument("--postgres-from-env", action="store_true")
    p.add_argument("--order-matches", type=int, default=ORDER_MATCHES,
                   help="rated matches before the order check (default %(default)s, as docs/ladder.md states)")
    p.add_argument("--only", help="one part: order, newcomer, four, states, finals, crash")
    ARGS = p.parse_args()
    ARGS.arbiter = os.path.abspath(ARGS.arbiter)
    ARGS.battleship_bot = os.path.abspath(ARGS.battleship_bot)
    work = tempfile.mkdtemp(prefix="arbiter-ladder-")
    os.environ["XDG_CACHE_HOME"] = os.path.join(work, "xdg")
    db = os.path.join(work, "ladder.db")
    store = "sqlite:" + db
    if ARGS.postgres_from_env:
        url = os.environ.get("ARBITER_TEST_POSTGRES_URL")
        if not url:
            sys.exit("--postgres-from-env: ARBITER_TEST_POSTGRES_URL is not set")
        checks = [lambda: crash(url, "postgresql", with_worker=True)]
    else:
        parts = {"order": lambda: order(store), "newcomer": lambda: newcomer(store, work),
                 "four": lambda: four_seats(store, work), "states": lambda: states(store, db),
                 "finals": lambda: finals(store, db), "race": lambda: two_coordinators(work),
                 "crash": lambda: crash(store, "sqlite")}
        names = [ARGS.only] if ARGS.only else list(parts)
        if ARGS.only in ("newcomer", "states", "finals"):
            names = ["order", ARGS.only] if ARGS.only != "states" else ["order", "newcomer", "states"]
        checks = [parts[n] for n in names]
    return TALLY.run_all(checks, tmp=work)


if __name__ == "__main__":
    sys.exit(main())
