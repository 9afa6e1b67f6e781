#!/usr/bin/env python3
"""Chaos: untrusted workers on PostgreSQL over a real network path, with faults and a liar.

Each worker runs in a network namespace of its own, joined to this machine by a veth pair, and
logs in to PostgreSQL with a worker role and a password (scram-sha-256) over that link. The
organizer (a role with CREATEROLE, not a superuser) makes the tournament and runs the checker.
While 6 honest workers and one lying worker (tests/chaos/lying_worker.cpp: wrong winners for
10 % of its matches, one forged log) play a 4,000-match tournament, the script:
  - kills two workers with SIGKILL (and starts them again),
  - cuts one worker's link for 30 s,
  - restarts PostgreSQL once.
Afterwards it checks, from the organizer's side:
  - every match stored exactly once and none lost;
  - every lie caught (failed on arrival, or overruled after a dispute) and the match played
    again by another worker;
  - every match's result, and the standings, equal to a clean run's on the same seed (each log
    was replayed by the checker on arrival, as `tournament verify` does);
  - the liar flagged by `arbiter workers`, no honest worker failing a check or overruled.
It prints the counts. Needs root (ip netns). Usage:
  chaos.py --arbiter PATH --liar PATH [--rounds 200] [--budget 300]
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORKERS = 6
NET = "10.78"
ENTRANTS = ["a:random", "b:hunt", "c:tracker", "d:hunt+evasive", "e:tracker+uniform"]
SEED = "20261129"


def run(cmd, check=True, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and p.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


NS_PREFIX = f"arbchaos{os.getpid()}"


def ns(i):
    return f"{NS_PREFIX}-{i}"


def make_links(n):
    """One namespace and veth pair per worker: this side NET.i.1, the worker's NET.i.2."""
    for i in range(n):
        run(["ip", "netns", "add", ns(i)])
        run(["ip", "link", "add", f"acv{i}", "type", "veth", "peer", "name", f"acp{i}"])
        run(["ip", "link", "set", f"acp{i}", "netns", ns(i)])
        run(["ip", "addr", "add", f"{NET}.{i}.1/24", "dev", f"acv{i}"])
        run(["ip", "link", "set", f"acv{i}", "up"])
        for c in (["ip", "addr", "add", f"{NET}.{i}.2/24", "dev", f"acp{i}"],
                  ["ip", "link", "set", f"acp{i}", "up"], ["ip", "link", "set", "lo", "up"]):
            run(["ip", "netns", "exec", ns(i)] + c)


def drop_links(n):
    for i in range(n):
        subprocess.run(["ip", "link", "del", f"acv{i}"], capture_output=True)
        subprocess.run(["ip", "netns", "del", ns(i)], capture_output=True)


def outer(args):
    if os.geteuid() != 0:
        raise SystemExit("FAIL: the chaos test needs root (ip netns)")
    n = WORKERS + 1
    # A timeout's SIGTERM must still take the namespaces and links down.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        make_links(n)
        env = dict(os.environ)
        env["WITH_POSTGRES_LISTEN"] = ",".join(f"{NET}.{i}.1" for i in range(n))
        env["WITH_POSTGRES_HBA"] = f"host all all {NET}.0.0/16 scram-sha-256"
        p = subprocess.run(["bash", os.path.join(ROOT, "scripts", "with_postgres.sh"),
                            sys.executable, os.path.abspath(__file__), "--inner",
                            "--arbiter", args.arbiter, "--liar", args.liar,
                            "--rounds", str(args.rounds), "--budget", str(args.budget),
                            "--ns-prefix", NS_PREFIX],
                           env=env, timeout=args.budget + 120)
        return p.returncode
    finally:
        drop_links(n)


class Chaos:
    def __init__(self, args):
        self.a = args
        self.arbiter = args.arbiter
        self.admin_url = os.environ["ARBITER_TEST_POSTGRES_URL"]
        self.port = re.search(r":(\d+)/", self.admin_url).group(1)
        self.org = f"postgresql://organizer@127.0.0.1:{self.port}/league"
        self.tmp = tempfile.mkdtemp(prefix="arbiter-chaos-")
        self.procs = {}
        self.urls = {}
        self.events = []
        self.start = time.time()

    def say(self, what):
        line = f"[{time.time() - self.start:6.1f}s] {what}"
        self.events.append(line)
        print(line, flush=True)

    def psql(self, url, sql, check=True):
        return run(["psql", url, "-qAtX", "-v", "ON_ERROR_STOP=1", "-c", sql], check=check)

    def setup(self):
        self.psql(self.admin_url, "CREATE ROLE organizer LOGIN CREATEROLE")
        self.psql(self.admin_url, "CREATE DATABASE league OWNER organizer")
        run([self.arbiter, "tournament", "create", "-g", "battleship", "--seed", SEED,
             "--rounds", str(self.a.rounds), "--store", self.org] +
            sum((["-p", e] for e in ENTRANTS), []))
        for i in range(WORKERS + 1):
            name = "liar" if i == WORKERS else f"w{i}"
            url = run([self.arbiter, "worker-role", "create", name, "--store",
                       self.org]).stdout.strip()
            # The URL names the organizer's host; this worker reaches the server over its link.
            self.urls[i] = url.replace("@127.0.0.1:", f"@{NET}.{i}.1:")

    def start_worker(self, i):
        log = open(os.path.join(self.tmp, f"worker{i}.log"), "a")
        if i == WORKERS:
            cmd = [self.a.liar, "--store", self.urls[i], "--lie-share", "0.1", "--forge", "1",
                   "--id", "liar"]
        else:
            cmd = [self.arbiter, "worker", "--store", self.urls[i], "--workers", "1",
                   "--lease", "10", "--until-finished", "--no-live"]
        self.procs[i] = subprocess.Popen(["ip", "netns", "exec", ns(i)] + cmd, stdout=log,
                                         stderr=subprocess.STDOUT)

    def done(self):
        return int(self.psql(self.org, "SELECT count(*) FROM jobs WHERE done").stdout)

    def faults(self):
        """The timeline, by matches stored rather than seconds, so it fits any machine speed."""
        planned = 20 * self.a.rounds

        def wait_for(share):
            while self.done() < share * planned and time.time() - self.start < self.a.budget:
                time.sleep(0.5)

        wait_for(0.10)
        self.say(f"SIGKILL worker w1 at {self.done()} stored")
        self.procs[1].send_signal(signal.SIGKILL)
        self.procs[1].wait()
        self.start_worker(1)
        wait_for(0.20)
        self.say(f"cut w2's link for 30 s at {self.done()} stored")
        run(["ip", "link", "set", "acv2", "down"])
        cut_at = time.time()
        wait_for(0.35)
        self.say(f"restart PostgreSQL at {self.done()} stored")
        data = os.environ["ARBITER_TEST_POSTGRES_DATA"]
        log = os.path.join(os.path.dirname(data), "server.log")
        # With a log file of its own, so that the new server holds none of our pipes open.
        ctl = [os.path.join(os.environ["ARBITER_TEST_POSTGRES_BIN"], "pg_ctl"), "-D", data,
               "-l", log, "-m", "fast", "-w", "restart"]
        try:
            subprocess.run(["runuser", "-u", "postgres", "--"] + ctl, timeout=90, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (subprocess.TimeoutExpired, subprocess.CalledProcessError):
            with open(log, errors="replace") as f:
                print(f.read()[-3000:])
            raise SystemExit("FAIL: PostgreSQL did not restart within 90 s")
        self.say("PostgreSQL is back")
        time.sleep(max(0.0, 30 - (time.time() - cut_at)))
        run(["ip", "link", "set", "acv2", "up"])
        self.say(f"w2's link is back at {self.done()} stored")
        wait_for(0.60)
        self.say(f"SIGKILL worker w3 at {self.done()} stored")
        self.procs[3].send_signal(signal.SIGKILL)
        self.procs[3].wait()
        self.start_worker(3)

    def main(self):
        self.setup()
        self.say(f"tournament of {20 * self.a.rounds} matches; {WORKERS} workers and a liar, "
                 "each in its own network namespace")
        for i in range(WORKERS + 1):
            self.start_worker(i)
        checker_log = open(os.path.join(self.tmp, "checker.log"), "w")
        checker = subprocess.Popen([self.arbiter, "workers", "check", "--store", self.org,
                                    "--until-finished"], stdout=checker_log,
                                   stderr=subprocess.STDOUT)
        self.faults()
        try:
            checker.wait(timeout=max(10, self.a.budget - (time.time() - self.start)))
        except subprocess.TimeoutExpired:
            checker.kill()
            self.dump_logs()
            raise SystemExit(f"FAIL: not settled within {self.a.budget} s "
                             f"({self.done()} stored)")
        self.say("every match stored and every result settled")
        for i, p in self.procs.items():
            if i == WORKERS:
                p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        return self.verify()

    def matches(self, store):
        """Each match's index, round, pair, seed, seats and outcome, by index."""
        text = run([self.arbiter, "tournament", "results", "1", "--matches", "--store",
                    store]).stdout
        keep = ("index", "round", "pair", "seed", "seats", "winners", "scores", "ejections",
                "error")
        return [tuple(row[k] for k in keep) for row in csv.DictReader(io.StringIO(text))]

    def dump_logs(self):
        for name in sorted(os.listdir(self.tmp)):
            with open(os.path.join(self.tmp, name), errors="replace") as f:
                tail = f.read()[-1500:]
            print(f"--- {name} ---\n{tail}")

    def verify(self):
        planned = 20 * self.a.rounds
        failures = []
        q = lambda sql: self.psql(self.org, sql).stdout.strip()
        stored, distinct = map(int, q("SELECT count(*), count(DISTINCT job) FROM results").split("|"))
        done = int(q("SELECT count(*) FROM jobs WHERE done"))
        jobs = int(q("SELECT count(*) FROM jobs"))
        if not (stored == distinct == done == jobs == planned):
            failures.append(f"stored {stored} results of {distinct} jobs, {done} of {jobs} done, "
                            f"{planned} planned")
        # The lies, as the liar told them, and what became of each.
        with open(os.path.join(self.tmp, f"worker{WORKERS}.log"), errors="replace") as f:
            liar_log = f.read()
        told = sorted(set(int(j) for j in re.findall(r"a wrong winner for job (\d+)", liar_log)))
        forged = sorted(set(int(j) for j in re.findall(r"forging the log of job (\d+)", liar_log)))
        caught = {}
        for row in q("SELECT job, state FROM set_aside WHERE role = 'liar'").splitlines():
            job, state = row.split("|")
            caught.setdefault(int(job), set()).add(state)
        uncaught = [j for j in told if "failed" not in caught.get(j, set())]
        unforged = [j for j in forged if not caught.get(j, set()) & {"overruled", "failed"}]
        if uncaught:
            failures.append(f"wrong winners not caught on arrival: jobs {uncaught[:10]}")
        if unforged:
            failures.append(f"forged logs not caught: jobs {unforged}")
        lies = told + forged
        if lies:
            replayed_by_liar = q("SELECT count(*) FROM results WHERE job IN (%s) AND role = "
                                 "'liar'" % ",".join(map(str, lies)))
            if replayed_by_liar != "0":
                failures.append(f"{replayed_by_liar} lies still stand")
        if not told or not forged:
            failures.append(f"the liar told {len(told)} wrong winners and forged {len(forged)} "
                            "logs: the test needs both")
        # The same tournament played clean, by this machine's own workers on SQLite: every
        # match's result must be the same, match by match (the checker has replayed every log
        # on arrival already, as tournament verify would).
        clean = os.path.join(self.tmp, "clean.db")
        run([self.arbiter, "tournament", "run", "-g", "battleship", "--seed", SEED, "--rounds",
             str(self.a.rounds), "--store", clean, "-q", "--workers", "2"] +
            sum((["-p", e] for e in ENTRANTS), []))
        per_match = [self.matches(store) for store in (self.org, clean)]
        differing = [i for i, (x, y) in enumerate(zip(*per_match)) if x != y]
        if len(per_match[0]) != planned or len(per_match[1]) != planned or differing:
            failures.append(f"match results differ from a clean run's: {len(differing)} matches, "
                            f"e.g. {[per_match[0][i] for i in differing[:2]]} against "
                            f"{[per_match[1][i] for i in differing[:2]]}")
        mine = json.loads(run([self.arbiter, "tournament", "results", "1", "--print-json",
                               "--store", self.org]).stdout)
        theirs = json.loads(run([self.arbiter, "tournament", "results", "1", "--print-json",
                                 "--store", clean]).stdout)
        # The spec differs (its program key is drawn per tournament); what it produced may not.
        mine = {k: mine.get(k) for k in ("standings", "crosstable", "matches", "errors")}
        theirs = {k: theirs.get(k) for k in ("standings", "crosstable", "matches", "errors")}
        # Response times are timing, which no two runs share.
        for table in (mine, theirs):
            for row in table.get("standings") or []:
                row.pop("latency", None)
        if mine != theirs:
            failures.append("the standings differ from a clean run's:\n"
                            f"{json.dumps(mine)[:800]}\n{json.dumps(theirs)[:800]}")
        workers = json.loads(run([self.arbiter, "workers", "--json", "--store",
                                  self.org]).stdout)
        by_name = {w["worker"]: w for w in workers}
        if not by_name.get("liar", {}).get("flagged"):
            failures.append(f"the liar is not flagged: {by_name.get('liar')}")
        # Caught lying: an honest worker never. (The outlier score is a statistical test: it is
        # printed, not held to, here.)
        honest_caught = [w for w in workers if w["worker"] != "liar" and
                         (w["overruled"] > 0 or w["failures"] > 0)]
        if honest_caught:
            failures.append(f"honest workers caught lying: {honest_caught}")
        aside = q("SELECT state, count(*) FROM set_aside GROUP BY state ORDER BY state")
        print("counts:")
        print(f"  matches planned {planned}, stored {stored} (distinct jobs {distinct}), lost "
              f"{planned - distinct}")
        print(f"  liar: {len(told)} wrong winners told, all caught on arrival: {not uncaught}; "
              f"{len(forged)} forged log(s), caught by a re-play: {not unforged}")
        print("  results set aside: " + ", ".join(r.replace("|", " ") for r in aside.splitlines()))
        for w in workers:
            print(f"  {w['worker']:<6} results {w['results']:>5} agreed {w['agreed']:>4} disputes "
                  f"{w['disputes']:>3} overruled {w['overruled']:>3} failed {w['failures']:>3} "
                  f"outlier {w['outlier_z']:+.1f} flagged {w['flagged']}")
        print(f"  every match's result equal to a clean run's: {not differing}; standings equal: "
              f"{mine == theirs}")
        print(f"  wall time {time.time() - self.start:.0f} s")
        if failures:
            self.dump_logs()
            for f in failures:
                print("FAIL: " + f)
            return 1
        print("chaos: all held")
        shutil.rmtree(self.tmp, ignore_errors=True)
        return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--liar", required=True, help="the lying-worker test binary")
    ap.add_argument("--rounds", type=int, default=200, help="rounds of 20 matches (default 200)")
    ap.add_argument("--budget", type=int, default=300, help="seconds for the whole run")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--ns-prefix", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.ns_prefix:
        global NS_PREFIX
        NS_PREFIX = args.ns_prefix
    if not args.inner:
        return outer(args)
    return Chaos(args).main()


if __name__ == "__main__":
    sys.exit(main())
