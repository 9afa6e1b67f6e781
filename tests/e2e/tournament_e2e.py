#!/usr/bin/env python3
"""End-to-end tournaments through the CLI: a run from a TOML file with its exports, reproduce
commands and logs; the 1,000-match acceptance run killed with kill -9 halfway and resumed; a
worker killed mid-batch; an interrupt; cmd: players; the progress bar on a terminal. With
--postgres URL: a tournament created by one command and finished by two workers, and a worker
killed mid-batch, against that server. Every check ends with each match holding one result."""
import argparse
import csv
import io
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from procs import Tally  # noqa: E402

ARGS = None
TALLY = Tally()
QBOTS = ["-p", "a:dag", "-p", "b:ldasg", "-p", "c:dag", "-p", "d:ldasg", "-p", "e:dag"]


def arbiter(*args, timeout=300, check=False):
    r = subprocess.run([ARGS.arbiter, *args], capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError(f"arbiter {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def status(store, tid):
    """(done, planned, duplicates) from `tournament status`."""
    out = arbiter("tournament", "status", str(tid), "--store", store, check=True).stdout
    m = re.search(r"(\d+)/(\d+)\s+done", out)
    dup = re.search(r"\((\d+) duplicate", out)
    return int(m.group(1)), int(m.group(2)), int(dup.group(1)) if dup else 0


def match_rows(store, tid):
    out = arbiter("tournament", "results", str(tid), "--store", store, "--matches", check=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def exactly_once(store, tid, planned):
    """Problems, if the tournament does not hold exactly one result per planned match."""
    problems = []
    done, total, dups = status(store, tid)
    rows = match_rows(store, tid)
    indexes = sorted(int(r["index"]) for r in rows)
    if total != planned:
        problems.append(f"planned {total}, expected {planned}")
    if done != planned or indexes != list(range(planned)):
        problems.append(f"{done} done, {len(indexes)} result rows, {len(set(indexes))} distinct")
    errors = [r for r in rows if r["error"]]
    if errors:
        problems.append(f"{len(errors)} matches errored, e.g. {errors[0]['error']}")
    return problems, dups


def wait_for(store, tid, at_least, proc, limit=240):
    """Polls until `at_least` matches are done; False if `proc` ended first or time ran out."""
    deadline = time.time() + limit
    while time.time() < deadline:
        if proc.poll() is not None:
            return False
        try:
            if status(store, tid)[0] >= at_least:
                return True
        except RuntimeError:
            pass  # the store is created by the process under test; it may not exist yet
        time.sleep(0.1)
    return False


def test_run_from_file(tmp):
    store = f"sqlite:{tmp}/file.db"
    toml = os.path.join(tmp, "league.toml")
    with open(toml, "w") as f:
        f.write('name = "league"\ngame = "battleship"\nrounds = 3\nseed = 7\n'
                '[config]\nsalvo = true\n'
                '[[player]]\nname = "dens"\nbot = "density"\n'
                '[[player]]\nname = "hunt"\nbot = "hunt"\n'
                '[[player]]\nname = "rand"\nbot = "random"\n')
    r = arbiter("tournament", "run", "-f", toml, "--store", store, "--workers", "2",
                "--csv", f"{tmp}/s.csv", "--json", f"{tmp}/s.json", "--matches-csv", f"{tmp}/m.csv")
    problems = []
    if r.returncode != 0:
        TALLY.report("run from a TOML file", [f"exit {r.returncode}: {r.stderr.strip()}"], "")
        return
    if "elo±95% (mean 0)" not in r.stdout or "glicko-2" not in r.stdout:
        problems.append("no ratings table in: " + r.stdout[:300])
    standings = list(csv.DictReader(open(f"{tmp}/s.csv")))
    if [s["name"] for s in standings][-1:] != ["rand"]:
        problems.append(f"random shooting should come last: {[s['name'] for s in standings]}")
    if sum(int(s["matches"]) for s in standings) != 2 * 18:
        problems.append("the CSV standings do not add up to 18 two-player matches")
    j = json.load(open(f"{tmp}/s.json"))
    if j["matches"] != 18 or len(j["standings"]) != 3:
        problems.append(f"JSON export: {j['matches']} matches, {len(j['standings'])} rows")
    matches = list(csv.DictReader(open(f"{tmp}/m.csv")))
    if len(matches) != 18:
        problems.append(f"{len(matches)} match lines, expected 18")
    # A match's printed command plays it again with the same result.
    row = matches[5]
    cmd = row["reproduce"].split(" ", 1)[1]
    again = subprocess.run(f"{ARGS.arbiter} {cmd} --json", shell=True, capture_output=True, text=True)
    if again.returncode != 0:
        problems.append(f"reproduce failed: {again.stderr.strip()}")
    else:
        res = json.loads(again.stdout)
        winners = " ".join(res["names"][w] for w in res["winners"])
        if winners != row["winners"] or row["seed"] not in cmd:
            problems.append(f"reproduced winners {winners!r}, stored {row['winners']!r}")
    # Its stored log replays identically.
    log = arbiter("tournament", "log", "1", "5", "--store", store)
    with open(f"{tmp}/m5.jsonl", "w") as f:
        f.write(log.stdout)
    replay = arbiter("replay", f"{tmp}/m5.jsonl")
    if log.returncode != 0 or replay.returncode != 0 or "identical" not in replay.stdout:
        problems.append(f"log/replay: {log.stderr.strip()} {replay.stdout.strip()} {replay.stderr.strip()}")
    TALLY.report("run from a TOML file", problems, "standings, CSV/JSON exports, reproduce, log replay")


def test_errors(tmp):
    store = f"sqlite:{tmp}/errors.db"
    cases = [
        (["tournament", "run", "-g", "chess", *QBOTS[:4], "--store", store], 2, "unknown game"),
        (["tournament", "run", "-g", "q", "-p", "a:dag", "-p", "b:tcp", "--store", store], 2, "tcp"),
        (["tournament", "run", "-g", "q", "-p", "a:dag", "--store", store], 2, "at least 2"),
        (["tournament", "run", "-g", "q", *QBOTS[:4], "--seats", "5", "--store", store], 2, "2 to 4"),
        (["tournament", "run", "-g", "q", *QBOTS[:4], "--schedule", "ladder", "--store", store], 2,
         "round-robin, gauntlet or swiss"),
        (["tournament", "run", "-g", "q", *QBOTS[:4], "--store", "mysql://x/y"], 2, "unknown scheme"),
        (["tournament", "resume", "42", "--store", store], 2, "there is no store"),
        (["tournament", "status", "--store", store], 2, "there is no store"),
        (["tournament", "run", "-f", f"{tmp}/missing.toml", "--store", store], 2, "missing.toml"),
        (["tournament", "log", "1", "0", "--store", store], 1, ""),
    ]
    made = arbiter("tournament", "create", "-g", "q", *QBOTS[:4], "--store", f"sqlite:{tmp}/made.db")
    cases.append((["tournament", "resume", "42", "--store", f"sqlite:{tmp}/made.db"], 2,
                  "no tournament 42"))
    if made.returncode != 0:
        TALLY.report("error: create for the resume check", [made.stderr.strip()], "")
    for args, code, text in cases:
        r = arbiter(*args)
        problems = []
        if r.returncode != code and not (code == 1 and r.returncode != 0):
            problems.append(f"exit {r.returncode}, expected {code}")
        if text not in r.stderr:
            problems.append(f"stderr {r.stderr.strip()!r} lacks {text!r}")
        if "Traceback" in r.stderr or "terminate" in r.stderr:
            problems.append("crashed")
        TALLY.report(f"error: {' '.join(args[:3])} ... {text}", problems, r.stderr.strip()[:90])
    if os.path.exists(f"{tmp}/errors.db"):
        TALLY.report("reading commands create no store", ["errors.db was created"], "")


def test_acceptance_kill_and_resume(tmp):
    """1,000 Q matches from one command; kill -9 halfway; resume; exactly 1,000 results."""
    store = f"sqlite:{tmp}/big.db"
    proc = subprocess.Popen([ARGS.arbiter, "tournament", "run", "-g", "q", *QBOTS, "--rounds", "50",
                             "--store", store, "--workers", "2", "--lease", "5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reached = wait_for(store, 1, 400, proc)
    if proc.poll() is not None:
        TALLY.report("1,000 matches, kill -9 at 40%+, resume",
                     [f"the run ended by itself (exit {proc.returncode}): {proc.stderr.read().strip()[-400:]}"], "")
        return
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = status(store, 1)[0]
    held = re.search(r"(\d+) playing", arbiter("tournament", "status", "1", "--store", store).stdout)
    problems = [] if reached else ["the run ended or stalled before 400 matches"]
    if not 400 <= before < 1000:
        problems.append(f"{before} done when killed, expected between 400 and 999")
    start = time.time()
    r = arbiter("tournament", "resume", "1", "--store", store, "--workers", "2")
    took = time.time() - start
    if r.returncode != 0 or "elo±95% (mean 0)" not in r.stdout:
        problems.append(f"resume: exit {r.returncode}: {r.stderr.strip()[-300:]}")
    if held and int(held.group(1)) > 0 and "took back" not in r.stderr:
        problems.append(f"resume did not take back the dead run's {held.group(1)} leases at once")
    more, dups = exactly_once(store, 1, 1000)
    problems += more
    if dups:
        problems.append(f"{dups} duplicate results (the killed run completed nothing twice)")
    TALLY.report("1,000 matches, kill -9 at 40%+, resume", problems,
                 f"killed at {before}, resumed the rest in {took:.1f} s, 1000 results, 0 duplicates")


def test_worker_killed_mid_batch(tmp, store, label):
    r = arbiter("tournament", "create", "-g", "q", *QBOTS, "--rounds", "8", "--store", store, check=True)
    tid = int(r.stdout.strip())
    a = subprocess.Popen([ARGS.arbiter, "worker", "--store", store, "--tournament", str(tid),
                          "--workers", "1", "--batch", "10", "--lease", "2"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    problems = [] if wait_for(store, tid, 15, a) else ["worker A never got going"]
    os.kill(a.pid, signal.SIGKILL)
    a.wait()
    killed_at = status(store, tid)[0]
    b = arbiter("worker", "--store", store, "--tournament", str(tid), "--until-finished",
                "--workers", "2", "--lease", "2")
    if b.returncode != 0:
        problems.append(f"worker B: exit {b.returncode}: {b.stderr.strip()}")
    more, dups = exactly_once(store, tid, 160)
    problems += more
    if dups:
        problems.append(f"{dups} duplicates")
    TALLY.report(f"{label}: worker kill -9 mid-batch, another finishes", problems,
                 f"A killed at {killed_at}/160; B played the rest after A's leases ran out")
    return tid


def test_interrupt(tmp):
    store = f"sqlite:{tmp}/int.db"
    proc = subprocess.Popen([ARGS.arbiter, "tournament", "run", "-g", "q", *QBOTS, "--rounds", "20",
                             "--store", store, "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    problems = [] if wait_for(store, 1, 50, proc) else ["never reached 50 matches"]
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    if proc.returncode != 1 or "arbiter tournament resume 1" not in err:
        problems.append(f"interrupt: exit {proc.returncode}, stderr {err.strip()[-200:]!r}")
    lease_free = arbiter("tournament", "status", "1", "--store", store).stdout
    if not re.search(r"\s0 playing", lease_free):
        problems.append(f"leases left behind: {lease_free.strip()}")
    r = arbiter("tournament", "resume", "1", "--store", store)
    if r.returncode != 0:
        problems.append(f"resume: {r.stderr.strip()}")
    more, dups = exactly_once(store, 1, 400)
    TALLY.report("SIGINT stops cleanly, resume finishes", problems + more, "leases released")


def test_sigterm_within_seconds(tmp):
    """SIGTERM while slow program matches are under way: the run exits within 5 s (3 s of grace,
    then the matches are abandoned unplayed), leaves no lease behind and stores no result for
    an abandoned match."""
    store = f"sqlite:{tmp}/term.db"
    # 2 s a call: every match with a slow seat lasts 2 s at least, whatever the (drawn) deal,
    # so six of them on two workers are still under way at the signal (at 0.5 s a short deal
    # once let the whole run end first).
    slow = (f"cmd:{sys.executable} {os.path.join(ARGS.examples, 'q_misbehave.py')} --mode slow "
            f"--sleep 2")
    proc = subprocess.Popen([ARGS.arbiter, "tournament", "run", "-g", "q", "-p", f"s1:{slow}",
                             "-p", f"s2:{slow}", "-p", "h:dag", "--store", store, "--workers", "2",
                             "--unsafe-no-sandbox", "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    problems = []
    time.sleep(3)  # the first matches are under way
    if proc.poll() is not None:
        problems.append(f"the run ended before the signal: {proc.communicate()[1].strip()[-300:]}")
    else:
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        took = time.monotonic() - start
        if took > 5:
            problems.append(f"exited {took:.1f} s after SIGTERM (at most 5)")
        if proc.returncode != 1 or "arbiter tournament resume 1" not in err:
            problems.append(f"exit {proc.returncode}, stderr {err.strip()[-300:]!r}")
        st = arbiter("tournament", "status", "1", "--store", store).stdout
        if not re.search(r"\s0 playing", st):
            problems.append(f"leases left behind: {st.strip()}")
        errors = [r for r in match_rows(store, 1) if r["error"]]
        if errors:
            problems.append(f"abandoned matches were stored: {errors[0]['error']}")
    TALLY.report("SIGTERM with slow program matches under way: out within 5 s", problems,
                 f"{took:.1f} s" if not problems else "")


def test_hostile_lua_team(tmp):
    """An Abalone team whose pieces run a quadratic plain string.find (hours inside one C call
    with stock Lua) loses every match and the tournament finishes. The sandbox's find is linear
    and charged to the piece's budget, so the bomb costs its team its own cycles; whether a step
    also outlasts the 50 ms wall-clock watchdog (and the team is forfeited) depends on the
    machine's speed, so an ejection is allowed but must be the bomb's, with a named reason."""
    store = f"sqlite:{tmp}/bomb.db"
    bomb = os.path.join(ARGS.misbehaving, "find_bomb.lua")
    start = time.monotonic()
    try:
        r = arbiter("tournament", "run", "-g", "abalone", "-p", f"bomb:lua:{bomb}", "-p", "s:simple",
                    "--rounds", "2", "--store", store, "-q", timeout=120)
    except subprocess.TimeoutExpired:
        TALLY.report("a hostile Lua team: the tournament finishes", ["did not finish in 120 s"], "")
        return
    took = time.monotonic() - start
    problems = [] if r.returncode == 0 else [f"exit {r.returncode}: {r.stderr.strip()[-300:]}"]
    rows = match_rows(store, 1) if not problems else []
    if len(rows) != 4:
        problems.append(f"{len(rows)} matches stored, expected 4")
    for row in rows:
        ejected_right = row["ejections"] == "" or row["ejections"].startswith("bomb:")
        if not ejected_right or row["winners"] != "s" or row["error"]:
            problems.append(f"match {row['index']}: winners {row['winners']!r}, ejections "
                            f"{row['ejections']!r}, error {row['error']!r}")
    forfeits = sum(1 for row in rows if row["ejections"])
    TALLY.report("a hostile Lua team (find bomb): loses every match, the tournament finishes",
                 problems, f"4 matches in {took:.1f} s, {forfeits} forfeited")


def test_cmd_players(tmp):
    store = f"sqlite:{tmp}/cmd.db"
    r = arbiter("tournament", "run", "-g", "q", "-p", f"ext:cmd:{ARGS.qbot} --strategy dag",
                "-p", "house:ldasg", "-p", f"ext2:cmd:{ARGS.qbot} --strategy ldasg",
                "--rounds", "2", "--store", store, "--workers", "2", "--json", f"{tmp}/cmd.json")
    problems = [] if r.returncode == 0 else [f"exit {r.returncode}: {r.stderr.strip()}"]
    if not problems:
        j = json.load(open(f"{tmp}/cmd.json"))
        if j["matches"] != 12 or j["errors"] != 0:
            problems.append(f"{j['matches']} matches, {j['errors']} errors")
        if any(s["ejections"] for s in j["standings"]):
            problems.append(f"ejections: {[(s['name'], s['ejections']) for s in j['standings']]}")
    TALLY.report("cmd: players over stdio", problems, "12 matches, 2 external bots, no ejections")


def test_progress_bar_on_a_terminal(tmp):
    store = f"sqlite:{tmp}/tty.db"
    master, slave = pty.openpty()
    proc = subprocess.Popen([ARGS.arbiter, "tournament", "run", "-g", "q", *QBOTS[:6], "--rounds", "40",
                             "--store", store, "--workers", "2"],
                            stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=60)
    os.close(master)
    text = seen.decode(errors="replace")
    problems = []
    if text.count("\r[") < 2 or "#" not in text or "ETA" not in text or "/min" not in text:
        problems.append(f"no redrawn bar in {text[:200]!r}")
    if "240/240 matches" not in text or "progress:" in text:
        problems.append("the bar did not end at 240/240 (or plain lines were printed)")
    TALLY.report("progress bar on a terminal", problems, f"{text.count(chr(13))} redraws")


def test_postgres_two_workers(url):
    r = arbiter("tournament", "create", "-g", "q", *QBOTS, "--rounds", "15", "--store", url, check=True)
    tid = int(r.stdout.strip())
    workers = [subprocess.Popen([ARGS.arbiter, "worker", "--store", url, "--until-finished",
                                 "--workers", "2", "--batch", "4"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(2)]
    problems, played = [], []
    for w in workers:
        out, err = w.communicate(timeout=300)
        if w.returncode != 0:
            problems.append(f"worker exit {w.returncode}: {err.strip()}")
        m = re.search(r"played (\d+) matches, (\d+) results stored, (\d+) duplicates", out)
        if m:
            played.append(int(m.group(1)))
            if int(m.group(3)):
                problems.append(f"a worker's result was a duplicate: {out.strip()}")
        else:
            problems.append(f"no report: {out.strip()}")
    if sum(played) != 300:
        problems.append(f"workers played {played} = {sum(played)} matches to completion, expected 300")
    if len(played) == 2 and min(played) == 0:
        problems.append(f"one worker did all the work: {played}")
    more, dups = exactly_once(url, tid, 300)
    problems += more
    if dups:
        problems.append(f"{dups} duplicates")
    TALLY.report("postgresql: create + two workers", problems, f"played {played}, 300 results, none twice")


def test_postgres_probe(tmp, url):
    """The sandbox probe as an entrant of a PostgreSQL tournament played by a worker: it gets
    nowhere (its report comes back in the stored stderr tail), PGPASSWORD does not reach it."""
    sys.path.insert(0, os.path.dirname(__file__))
    from sandbox_e2e import probe_problems  # noqa: E402  the same checks as behind play
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    other = os.path.join(tmp, "probe-other")
    host = os.path.join(tmp, "probe-host")
    os.makedirs(other)
    os.makedirs(host)
    planted = os.path.join(other, "planted.txt")
    with open(planted, "w") as f:
        f.write("another entrant's secret strategy\n")
    probe = os.path.join(root, "tests", "misbehaving", "probe.py")
    r = arbiter("tournament", "create", "-g", "q", "-p", "a:dag", "-p",
                f"p:cmd:/usr/bin/python3 {probe} @{planted} 9 @{host}", "--rounds", "1",
                "--per-call", "30", "--store", url, check=True)
    tid = int(r.stdout.strip())
    env = dict(os.environ, PGPASSWORD="hunter2")
    w = subprocess.run([ARGS.arbiter, "worker", "--store", url, "--tournament", str(tid),
                        "--until-finished"], capture_output=True, text=True, timeout=300, env=env)
    problems = [] if w.returncode == 0 else [f"worker exit {w.returncode}: {w.stderr.strip()}"]
    report = None
    for index in (0, 1):
        log = arbiter("tournament", "log", str(tid), str(index), "--stderr", "--store", url)
        for line in log.stdout.splitlines():
            if line.startswith("PROBE "):
                report = json.loads(line[6:])
    if report is None:
        problems.append("no probe report in the stored stderr tails")
    else:
        problems += probe_problems(report)
    with open(planted) as f:
        if f.read() != "another entrant's secret strategy\n":
            problems.append("the planted file changed")
    if os.listdir(host):
        problems.append(f"the probe wrote {os.listdir(host)} on the host")
    TALLY.report("postgresql: the sandbox probe gets nowhere as a worker's entrant", problems,
                 "report checked, host unchanged")


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--arbiter", required=True)
    p.add_argument("--qbot", required=True)
    p.add_argument("--examples", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "..", "..", "examples"),
                   help="the examples folder (q_misbehave.py)")
    p.add_argument("--misbehaving", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                         "..", "misbehaving"),
                   help="the hostile players' folder (find_bomb.lua)")
    p.add_argument("--postgres", help="a postgresql:// URL: run the PostgreSQL checks only")
    p.add_argument("--postgres-from-env", action="store_true",
                   help="the URL is in ARBITER_TEST_POSTGRES_URL (set by scripts/with_postgres.sh)")
    ARGS = p.parse_args()
    if ARGS.postgres_from_env:
        ARGS.postgres = os.environ.get("ARBITER_TEST_POSTGRES_URL")
        if not ARGS.postgres:
            sys.exit("--postgres-from-env: ARBITER_TEST_POSTGRES_URL is not set")
    tmp = tempfile.mkdtemp(prefix="arbiter-tournament-")
    if ARGS.postgres:
        tests = [lambda: test_postgres_two_workers(ARGS.postgres),
                 lambda: test_postgres_probe(tmp, ARGS.postgres),
                 lambda: test_worker_killed_mid_batch(tmp, ARGS.postgres, "postgresql")]
    else:
        tests = [lambda: test_errors(tmp), lambda: test_run_from_file(tmp),
                 lambda: test_cmd_players(tmp), lambda: test_progress_bar_on_a_terminal(tmp),
                 lambda: test_interrupt(tmp), lambda: test_sigterm_within_seconds(tmp),
                 lambda: test_hostile_lua_team(tmp),
                 lambda: test_worker_killed_mid_batch(tmp, f"sqlite:{tmp}/kill.db", "sqlite"),
                 lambda: test_acceptance_kill_and_resume(tmp)]
    sys.exit(TALLY.run_all(tests, tmp))


if __name__ == "__main__":
    main()
