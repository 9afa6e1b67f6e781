#!/usr/bin/env python3
"""The submission server's costs, measured in one run (docs/benchmarks.md, "Submissions"):

1. Authentication, side by side: GET /api/me answered 401 (no credentials: nothing looked up),
   with a bearer token (the author read from the store, HMAC of the secret, constant-time
   compare) and with a session cookie (the session found, the author read to see it still
   stands). Rounds interleave the three, so a busy moment costs each alike; medians and p95.
2. Upload to check result: a small Python kit bot (the Battleship starter kit) posted with a
   bearer token until GET /api/bots/NAME/versions/V says active; the check plays --check-matches
   matches (default 10, as serve's default). Median of --uploads.
3. The public leaderboard polled by 20 clients once a second for --poll-seconds: the server's
   CPU time over that wall time (its share of one core), read from /proc.
4. TLS (serve --tls-cert, a 2048-bit RSA certificate made here): the leaderboard fetched over
   plain HTTP and over TLS from two servers of the same store, interleaved (each request on a
   connection of its own, so each TLS one pays a whole handshake); then 3. again over TLS.

  /usr/bin/python3 bench/submissions_bench.py --arbiter build/release/src/apps/arbiter
"""
import argparse
import io
import json
import os
import re
import ssl
import statistics
import subprocess
import tarfile
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def call(url, headers=None, data=None, context=None):
    req = urllib.request.Request(url, data=data, headers=headers or {},
                                 method="POST" if data is not None else "GET")
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=60, context=context) as r:
            status, body, h = r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        status, body, h = e.code, e.read(), e.headers
    return time.perf_counter() - start, status, body, h


def kit(name):
    bot = open(os.path.join(ROOT, "bots", "kits", "python", "battleship", "bot.py")).read()
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as t:
        for member, text in (("arbiter-bot.toml", f'name = "{name}"\ngame = "battleship"\n'
                                                  'run = ["python3", "bot.py"]\n'), ("bot.py", bot)):
            data = text.encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return out.getvalue()


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def poll_share(pid, base, context, seconds):
    """20 clients fetching the leaderboard once a second: the server's share of one core."""
    stop = time.monotonic() + seconds

    def poller():
        while time.monotonic() < stop:
            call(base + "api/ladders/1", context=context)
            time.sleep(1.0)

    c0, w0 = cpu_seconds(pid), time.monotonic()
    threads = [threading.Thread(target=poller) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    c1, w1 = cpu_seconds(pid), time.monotonic()
    return 100 * (c1 - c0) / (w1 - w0)


def tls_server(arbiter, store, work):
    """(process, base URL, client context) of `serve --tls-cert` on the store."""
    cert, key = os.path.join(work, "cert.pem"), os.path.join(work, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    proc = subprocess.Popen([arbiter, "serve", "--store", store, "--listen", "127.0.0.1:0",
                             "--tls-cert", cert, "--tls-key", key],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = re.search(r"(https://127\.0\.0\.1:\d+/)", proc.stdout.readline()).group(1)
    return proc, base, ssl.create_default_context(cafile=cert)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--uploads", type=int, default=5)
    ap.add_argument("--check-matches", type=int, default=10)
    ap.add_argument("--poll-seconds", type=float, default=20)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="submissions-bench-")
    os.environ["XDG_CACHE_HOME"] = os.path.join(work, "xdg")
    store = f"sqlite:{work}/bench.db"
    token = subprocess.run([a.arbiter, "author", "add", "benchy", "--store", store],
                           capture_output=True, text=True, check=True).stdout.split()[-1]
    subprocess.run([a.arbiter, "ladder", "create", "bench", "-g", "battleship", "--anchor", "h1:hunt",
                    "--anchor", "h2:random", "--anchor", "h3:tracker", "--store", store],
                   capture_output=True, check=True)
    subprocess.run([a.arbiter, "ladder", "run", "bench", "--until-rated", "200", "--workers", "2",
                    "-q", "--store", store], capture_output=True, check=True)
    proc = subprocess.Popen([a.arbiter, "serve", "--store", store, "--listen", "127.0.0.1:0",
                             "--submissions", "--check-matches", str(a.check_matches),
                             "--uploads-per-hour", "1000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stdout.readline()).group(1)
    try:
        _, _, body, h = call(base + "api/login", {"Content-Type": "application/json"},
                             json.dumps({"token": token}).encode())
        cookie = {"Cookie": h["Set-Cookie"].split(";")[0]}
        bearer = {"Authorization": f"Bearer {token}"}
        ways = {"no credentials (401)": {}, "bearer token": bearer, "session cookie": cookie}
        times = {k: [] for k in ways}
        for _ in range(a.rounds):
            for k, headers in ways.items():
                t, status, _, _ = call(base + "api/me", headers)
                assert status == (401 if not headers else 200), (k, status)
                times[k].append(t * 1000)
        print("1. GET /api/me, median and p95 of", a.rounds, "interleaved rounds")
        base_median = statistics.median(times["no credentials (401)"])
        for k, ts in times.items():
            ts.sort()
            print(f"   {k:<22} {statistics.median(ts):7.3f} ms  p95 {ts[int(len(ts) * .95) - 1]:7.3f} ms"
                  f"  ({statistics.median(ts) / base_median:.2f}x)")

        took = []
        for i in range(a.uploads):
            name = f"bench{i}"
            start = time.perf_counter()
            _, status, body, _ = call(base + "api/bots", {**bearer, "Content-Type": "application/gzip"},
                                      kit(name))
            assert status == 202, body
            while True:
                _, _, body, _ = call(base + f"api/bots/{name}/versions/1", bearer)
                state = json.loads(body)["status"]
                if state not in ("building", "checking"):
                    break
                time.sleep(0.02)
            took.append(time.perf_counter() - start)
            assert state == "active", state
        print(f"2. upload to check result ({a.check_matches} check matches): median "
              f"{statistics.median(took):.2f} s of {a.uploads} (min {min(took):.2f}, max {max(took):.2f})")

        print(f"3. 20 clients polling the leaderboard once a second: the server used "
              f"{poll_share(proc.pid, base, None, a.poll_seconds):.1f} % of one core")
        tls = tls_server(a.arbiter, store, work)
        try:
            tls_base, context = tls[1], tls[2]
            plain_t, tls_t = [], []
            for _ in range(a.rounds):
                plain_t.append(call(base + "api/ladders/1")[0] * 1000)
                tls_t.append(call(tls_base + "api/ladders/1", context=context)[0] * 1000)
            print(f"4. GET /api/ladders/1, median of {a.rounds} interleaved: plain "
                  f"{statistics.median(plain_t):.3f} ms, TLS {statistics.median(tls_t):.3f} ms "
                  f"({statistics.median(tls_t) / statistics.median(plain_t):.2f}x, a handshake each)")
            print(f"   20 clients polling it once a second over TLS: the server used "
                  f"{poll_share(tls[0].pid, tls_base, context, a.poll_seconds):.1f} % of one core")
        finally:
            tls[0].terminate()
            tls[0].wait(timeout=30)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
