#!/usr/bin/env python3
"""The fairness experiment of docs/benchmarks.md ("Fair clocks on a busy machine"): two copies of
a bot that spends 80 % of its per-call limit computing (q-bot --think) play 8 matches at once on
this machine, three ways:

1. wall-clock limits, not pinned (--no-load-check: every timeout counts): the bots lose matches
   on time, because 8 seats think at once on 2 cores;
2. --limit-by cpu (with a backstop wide enough for a quarter of a core): none is lost;
3. --pin --cpus 0,1: none is lost, and the matches run two at a time -- checked from outside,
   from the cpuset cgroups and /proc: every program seat is allowed one CPU, and no more than
   two matches' seats are pinned at once.

It prints the numbers and writes them to --artifacts/fairness.json. Bounded to 2 minutes.
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import threading
import time

PER_CALL = "0.25"
THINK_MS = "200"  # 80 % of the limit
MATCHES = 8      # 2 entrants x 2 seatings x 4 rounds

problems = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        problems.append(what)


def cpuset_root():
    """Where this machine mounts the cpuset controller (cgroup v1, or the v2 hierarchy)."""
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            fstype = fields[fields.index("-") + 1]
            if fstype == "cgroup" and "cpuset" in fields[-1].split(","):
                return fields[4]
            if fstype == "cgroup2":
                return fields[4]
    return None


def pinned_groups(root):
    """The program seats pinned now, from outside: each arbiter cpuset group with a process in
    it, and the CPUs its processes are allowed (from their /proc status)."""
    found = {}
    for group in pathlib.Path(root).rglob("arbiter-*"):
        try:
            tasks = (group / "cgroup.procs").read_text().split()
            if not tasks or not (group / "cpuset.cpus").exists():
                continue
            status = pathlib.Path(f"/proc/{tasks[0]}/status").read_text()
            found[group.name] = re.search(r"Cpus_allowed_list:\s*(\S+)", status).group(1)
        except (OSError, AttributeError):
            continue
    return found


def run(arbiter, qbot, tmp, name, extra, watch=False):
    store = f"sqlite:{tmp}/{name}.db"
    cmd = [arbiter, "tournament", "run", "--store", store, "-g", "q", "--seed", "11",
           "-p", f"a:cmd:{qbot} --think {THINK_MS}", "-p", f"b:cmd:{qbot} --think {THINK_MS}",
           "--rounds", "4", "--per-call", PER_CALL, "--workers", str(MATCHES), "-q",
           "--json", f"{tmp}/{name}.json", *extra]
    samples = []
    stop = threading.Event()

    root = cpuset_root()

    def sample():
        while root and not stop.is_set():
            samples.append(pinned_groups(root))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample)
    if watch:
        sampler.start()
    start = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=100)
    took = time.monotonic() - start
    stop.set()
    if watch:
        sampler.join()
    if r.returncode != 0:
        check(False, f"{name}: tournament run failed ({r.returncode}): {r.stderr[-500:]}")
        return None
    standings = json.loads(pathlib.Path(f"{tmp}/{name}.json").read_text())
    results = subprocess.run([arbiter, "tournament", "results", "1", "--matches", "--store", store],
                             capture_output=True, text=True, timeout=60).stdout
    lost = sum(1 for line in results.splitlines()[1:] if "timeout" in line.split(",")[7])
    timeouts = sum(r["latency"]["timeouts"] for r in standings["standings"])
    share = max((r["latency"]["limit_share"] or 0) for r in standings["standings"])
    return {"name": name, "seconds": round(took, 1), "matches_lost_on_time": lost,
            "timeouts": timeouts, "p99_share_of_limit": round(share, 3),
            "stderr": r.stderr, "samples": samples}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--qbot", required=True)
    ap.add_argument("--artifacts", default="")
    args = ap.parse_args()
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="arbiter-fair-") as tmp:
        sandbox = ["--unsafe-no-sandbox"] if subprocess.run(
            [args.arbiter, "sandbox", "check"], capture_output=True).returncode != 0 else []
        wall = run(args.arbiter, args.qbot, tmp, "wall", ["--no-load-check", *sandbox])
        cpu = run(args.arbiter, args.qbot, tmp, "cpu",
                  ["--no-load-check", "--limit-by", "cpu", "--backstop", "10", *sandbox])
        pinned = run(args.arbiter, args.qbot, tmp, "pinned",
                     ["--no-load-check", "--pin", "--cpus", "0,1", *sandbox], watch=True)
    if not (wall and cpu and pinned):
        return 1
    check(wall["matches_lost_on_time"] > 0,
          f"wall-clock limits, 8 matches at once: {wall['matches_lost_on_time']} of {MATCHES} "
          f"matches lost on time ({wall['seconds']} s)")
    check(cpu["matches_lost_on_time"] == 0,
          f"--limit-by cpu: {cpu['matches_lost_on_time']} matches lost on time, p99 "
          f"{cpu['p99_share_of_limit']:.0%} of the CPU limit ({cpu['seconds']} s)")
    check(pinned["matches_lost_on_time"] == 0,
          f"--pin --cpus 0,1: {pinned['matches_lost_on_time']} matches lost on time, p99 "
          f"{pinned['p99_share_of_limit']:.0%} of the limit ({pinned['seconds']} s)")
    check("at most 2 match(es) at once" in pinned["stderr"],
          f"--pin says it ran two matches at a time: {pinned['stderr'].strip()[-120:]!r}")
    seen = [s for s in pinned["samples"] if s]
    allowed = {cpus for s in seen for cpus in s.values()}
    most = max((len(s) for s in seen), default=0)
    check(bool(seen) and allowed <= {"0", "1"},
          f"from the cgroups and /proc: every pinned seat may run on one CPU of 0,1 (seen "
          f"{sorted(allowed)} in {len(seen)} samples)")
    check(most <= 4, f"from the cgroups: at most two matches' seats pinned at once (most seen: "
                     f"{most})")
    took = time.monotonic() - began
    check(took <= 120, f"the experiment took {took:.0f} s (bounded to 120)")
    numbers = {r["name"]: {k: v for k, v in r.items() if k not in ("stderr", "samples", "name")}
               for r in (wall, cpu, pinned)}
    print(json.dumps(numbers, indent=1))
    if args.artifacts:
        out = pathlib.Path(args.artifacts)
        out.mkdir(parents=True, exist_ok=True)
        (out / "fairness.json").write_text(json.dumps(numbers, indent=1) + "\n")
    if problems:
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
