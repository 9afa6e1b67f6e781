#!/usr/bin/env python3
"""The viewer's costs, measured in one run (docs/benchmarks.md, "Viewer"):

1. API latency on a store of 10,000 matches (Q, dag against ldasg): median and p95 over repeated
   requests of each route, the standings once cold (first request after the store changed: the
   rows are read and Elo, Glicko-2, the crosstable and the chart computed) and then warm.
2. Time to first paint and to a drawn board of a match page in headless Chromium (median of 7).
3. A tournament's match rate side by side: played with --serve and no viewer, and with 20
   viewers each following live matches over their streams and reloading the standings.

  /usr/bin/python3 bench/viewer_bench.py --arbiter build/release/src/apps/arbiter [--before OTHER]
      [--matches 10000] [--rate-matches 1000] [--pairs 3]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request


def serve(arbiter, store):
    proc = subprocess.Popen([arbiter, "serve", "--store", store, "--listen", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    m = re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stdout.readline())
    if not m:
        raise SystemExit("arbiter serve did not start")
    return proc, m.group(1)


def fetch(url):
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as r:
        body = r.read()
    return time.perf_counter() - start, body


def latency(base, path, n):
    times = [fetch(base + path)[0] for _ in range(n)]
    times.sort()
    return statistics.median(times) * 1000, times[int(len(times) * 0.95) - 1] * 1000


ROUTES = [
    ("tournaments list", "api/tournaments", 200),
    ("one tournament", "api/tournaments/1", 200),
    ("standings, warm", "api/tournaments/1/standings", 200),
    ("matches, first page (50)", "api/tournaments/1/matches", 100),
    ("matches, last page", "api/tournaments/1/matches?offset={last}", 100),
    ("matches, filtered (player, round)", "api/tournaments/1/matches?player=dag&round=7", 100),
    ("one match", "api/tournaments/1/matches/4321", 200),
    ("one match's log", "api/tournaments/1/matches/4321/log", 100),
]


def fill(arbiter, matches, tmp):
    store = f"sqlite:{tmp}/big.db"
    start = time.monotonic()
    subprocess.run([arbiter, "tournament", "run", "--name", "big", "-g", "q", "-p", "dag:dag",
                    "-p", "ldasg:ldasg", "--rounds", str(matches // 2), "--store", store, "-q"],
                   check=True, capture_output=True)
    print(f"store: {matches} Q matches played and stored in {time.monotonic() - start:.0f} s")
    return store


def api_latency(arbiter, store, matches):
    """{label: (median ms, p95 ms or None)} of every route, on a fresh server."""
    proc, base = serve(arbiter, store)
    try:
        cold, _ = fetch(base + "api/tournaments/1/standings")
        out = {"standings, cold (first request)": (cold * 1000, None)}
        for label, path, n in ROUTES:
            out[label] = latency(base, path.format(last=matches - 50), n)
        return out, proc, base
    except Exception:
        proc.terminate()
        raise


def paint(base):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    o = Options()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000", "--disable-dev-shm-usage"):
        o.add_argument(a)
    d = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=o)
    fcp, ready = [], []
    try:
        for _ in range(7):
            d.get("about:blank")
            start = time.perf_counter()
            d.get(base + "match.html?t=1&i=4321")
            while not d.execute_script("return document.body.dataset.ready"):
                time.sleep(0.005)
            ready.append((time.perf_counter() - start) * 1000)
            fcp.append(d.execute_script(
                "return performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1"))
    finally:
        d.quit()
    print(f"\nmatch page (Q, {'headless Chromium'}), median of 7: first contentful paint "
          f"{statistics.median(fcp):.0f} ms, board drawn (log fetched, replayed, drawn) "
          f"{statistics.median(ready):.0f} ms after navigation")


class Viewer(threading.Thread):
    """Follows live matches: lists them, streams the newest unfinished one to its end, reloads
    the standings, again, until told to stop."""

    def __init__(self, base, stop):
        super().__init__(daemon=True)
        self.base, self.stop, self.lines, self.errors = base, stop, 0, 0

    def run(self):
        while not self.stop.is_set():
            try:
                _, body = fetch(self.base + "api/live")
                live = [m for m in json.loads(body)["matches"] if not m["finished"]]
                if live:
                    with urllib.request.urlopen(f"{self.base}api/live/{live[-1]['id']}/stream", timeout=30) as r:
                        for raw in r:
                            if raw.startswith(b"id: "):
                                self.lines += 1
                            if raw.startswith(b"event: end") or self.stop.is_set():
                                break
                fetch(self.base + "api/tournaments/1/standings")
            except Exception:  # noqa: BLE001 - counted; the tournament goes on
                self.errors += 1
                time.sleep(0.05)


def match_rate(arbiter, matches, viewers, tmp, tag):
    store = f"sqlite:{tmp}/rate-{tag}.db"
    cmd = [arbiter, "tournament", "run", "--name", "rate", "-g", "q", "-p", "dag:dag", "-p",
           "ldasg:ldasg", "--rounds", str(matches // 2), "--store", store, "--serve", "127.0.0.1:0", "-q"]
    start = time.monotonic()
    cpu_start = sum(os.times()[:2])  # this process: the viewers' own CPU time
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = None
    while base is None:
        line = proc.stderr.readline()
        if not line:
            raise SystemExit("tournament run --serve printed no address")
        if m := re.search(r"(http://127\.0\.0\.1:\d+/)", line):
            base = m.group(1)
    stop = threading.Event()
    crowd = [Viewer(base, stop) for _ in range(viewers)]
    for v in crowd:
        v.start()
    proc.communicate()
    took = time.monotonic() - start
    viewers_cpu = sum(os.times()[:2]) - cpu_start
    stop.set()
    for v in crowd:
        v.join(5)
    return matches / took, sum(v.lines for v in crowd), sum(v.errors for v in crowd), viewers_cpu, took


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--before", help="another arbiter binary, measured side by side in the same run")
    ap.add_argument("--matches", type=int, default=10000)
    ap.add_argument("--rate-matches", type=int, default=1000)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--skip-api", action="store_true", help="only the match rates")
    a = ap.parse_args()
    builds = ([("before", a.before)] if a.before else []) + [("after" if a.before else "this", a.arbiter)]
    tmp = tempfile.mkdtemp(prefix="viewer-bench-")
    try:
        tables = {}
        store = None if a.skip_api else fill(a.arbiter, a.matches, tmp)
        for label, binary in builds if store else []:
            table, proc, base = api_latency(binary, store, a.matches)
            tables[label] = table
            if binary == a.arbiter:
                paint(base)
            proc.terminate()
            proc.wait()
        if tables:
            print(f"\nAPI latency, {a.matches}-match store, median / p95 (ms)")
            print(f"{'request':<36}" + "".join(f"{label:>18}" for label, _ in builds))
        for route in tables[builds[0][0]] if tables else []:
            cells = []
            for label, _ in builds:
                med, p95 = tables[label][route]
                cells.append(f"{med:.2f}" + ("" if p95 is None else f" / {p95:.2f}"))
            print(f"{route:<36}" + "".join(f"{c:>18}" for c in cells))
        print(f"\ntournament match rate, {a.rate_matches} Q matches with --serve, 2 workers (matches/s)")
        print("(the 20 viewers are Python threads on this same machine: their own CPU time, out of")
        print(" the 2 cores' capacity during the run, is shown as a share)")
        print(f"{'build':<8} {'pair':<5} {'no viewer':>10} {'20 viewers':>11} {'ratio':>7} {'lines streamed':>15} {'viewer errors':>14} {'viewers CPU':>12}")
        for p in range(a.pairs):
            for label, binary in builds:
                alone = match_rate(binary, a.rate_matches, 0, tmp, f"{label}{p}a")[0]
                crowd, lines, errors, cpu, took = match_rate(binary, a.rate_matches, 20, tmp, f"{label}{p}b")
                print(f"{label:<8} {p + 1:<5} {alone:>10.0f} {crowd:>11.0f} {crowd / alone:>7.2f} {lines:>15} {errors:>14} {100 * cpu / (2 * took):>11.0f}%", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
