#!/usr/bin/env python3
"""Runs the course's milestone-10 integration cases: `arbiter q xserver PORT` with the case's
ServerConfig and `arbiter q xclients PORT` with its ClientConfig, on 127.0.0.1 and a free port,
and compares the server's stdout with the expected Result as JSON. Durations are scaled by
--time-scale (default 0.1; 1 is the course's own timing) so the suite stays fast."""
import argparse
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import procs  # noqa: E402

SUITES = ["mfelleisen__Qwirkle/10/Tests", "mfelleisen__Qwirkle/10/Bonus",
          "willpreebs__whimsical-wolves/10/ForStudents"]


def run_case(arbiter, server_cfg: pathlib.Path, scale: float):
    """Plays one case; a port another process took between the probe and the listen is retried
    on a new port."""
    for _ in range(3):
        problem = run_case_on(arbiter, server_cfg, scale, procs.free_port())
        if not (problem or "").endswith("Address already in use"):
            return problem
    return problem


def run_case_on(arbiter, server_cfg: pathlib.Path, scale: float, port: int):
    client_cfg = server_cfg.with_name(server_cfg.name.replace("-server-config", "-client-config"))
    expected = json.loads(server_cfg.with_name(server_cfg.name.replace("-server-config.json", "-out.json")).read_text())
    port = str(port)
    with server_cfg.open("rb") as s_in, client_cfg.open("rb") as c_in:
        server = subprocess.Popen([arbiter, "q", "xserver", port, "--time-scale", str(scale)],
                                  stdin=s_in, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(0.05)
        clients = subprocess.Popen([arbiter, "q", "xclients", port, "--time-scale", str(scale)],
                                   stdin=c_in, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            out, err = server.communicate(timeout=120 * scale + 30)
        except subprocess.TimeoutExpired:
            server.kill()
            clients.kill()
            return "server did not finish"
        try:
            clients.wait(timeout=10)
        except subprocess.TimeoutExpired:
            clients.kill()
            clients.wait()
            return "xclients did not finish after the server"
    if server.returncode != 0:
        return f"xserver exit {server.returncode}: {err.decode(errors='replace').strip()[-300:]}"
    try:
        actual = json.loads(out)
    except ValueError:
        return f"xserver printed {out[:200]!r}"
    if actual != expected:
        return f"expected {json.dumps(expected)} got {json.dumps(actual)}"
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--data", required=True, type=pathlib.Path)
    ap.add_argument("--time-scale", type=float, default=0.1)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--suite", action="append", help="only these suites (folders under --data)")
    args = ap.parse_args()
    cases = []
    for suite in args.suite or SUITES:
        found = sorted((args.data / suite).glob("*-server-config.json"),
                       key=lambda p: int(p.name.split("-")[0]))
        if not found:
            print(f"no cases in {args.data / suite}", file=sys.stderr)
            return 1
        cases += found
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = pool.map(lambda c: (c, run_case(args.arbiter, c, args.time_scale)), cases)
        for case, problem in results:
            if problem:
                failed += 1
                print(f"FAIL {case.relative_to(args.data)}: {problem}")
    print(f"milestone 10: {len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
