#!/usr/bin/env python3
"""Runs `arbiter q <harness>` on every course test case of one milestone and compares the output
with the expected one as JSON values (docs/games/q.md §4, data in tests/data/qtests)."""
import argparse
import concurrent.futures
import json
import pathlib
import subprocess
import sys

HARNESS = {3: "xmap", 4: "xlegal", 5: "xscore", 6: "xstrategy", 7: "xgames",
           8: "xgames-with-observer", 9: "xbaddies"}
# The one case the data's README names as wrong: its actors say dag, its output assumes ldasg.
KNOWN_BAD = {"willpreebs__whimsical-wolves/8/ForStudents/0-in.json"}
# Looping players are detected by the per-call limit; a short limit keeps the suite fast and
# gives the same verdicts (house bots answer in well under a millisecond).
PER_CALL = "0.5"


def cases(data: pathlib.Path, milestone: int):
    roots = [data / "priime0__swdev" / str(milestone)]
    if milestone in (8, 9):
        roots.append(data / "willpreebs__whimsical-wolves" / str(milestone))
    for root in roots:
        yield from sorted(root.rglob("*-in.json"))


def run(arbiter: str, harness: str, case: pathlib.Path, data: pathlib.Path):
    expected_file = case.with_name(case.name.replace("-in.json", "-out.json"))
    cmd = [arbiter, "q", harness]
    if harness in ("xgames", "xgames-with-observer", "xbaddies"):
        cmd += ["--per-call", PER_CALL]
    with case.open("rb") as stdin:
        proc = subprocess.run(cmd, stdin=stdin, capture_output=True, timeout=120)
    rel = str(case.relative_to(data))
    if proc.returncode != 0:
        return rel, f"exit {proc.returncode}: {proc.stderr.decode(errors='replace').strip()}"
    try:
        actual = json.loads(proc.stdout)
    except ValueError:
        return rel, f"output is not one JSON value: {proc.stdout[:200]!r}"
    expected = json.loads(expected_file.read_text())
    if actual != expected:
        return rel, f"expected {json.dumps(expected)} got {json.dumps(actual)}"
    return rel, None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--data", required=True, type=pathlib.Path)
    ap.add_argument("--milestone", required=True, type=int, choices=sorted(HARNESS))
    ap.add_argument("--jobs", type=int, default=4)
    args = ap.parse_args()
    data = args.data.resolve()
    if not data.is_dir():
        print(f"no test data at {data}", file=sys.stderr)
        return 1
    harness = HARNESS[args.milestone]
    todo = [c for c in cases(data, args.milestone) if str(c.relative_to(data)) not in KNOWN_BAD]
    if not todo:
        print(f"no cases for milestone {args.milestone} under {data}", file=sys.stderr)
        return 1
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for rel, problem in pool.map(lambda c: run(args.arbiter, harness, c, data), todo):
            if problem:
                failed += 1
                print(f"FAIL {rel}: {problem}")
    print(f"milestone {args.milestone} ({harness}): {len(todo) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
