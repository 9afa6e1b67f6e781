#!/usr/bin/env python3
"""End-to-end: `arbiter dominosa generate | solve | grade` and the `dominosa` race, as users run
them. Generated puzzles parse back, are unique (counted by `solve --count`), grade at the level
asked for, solve to a valid solution (checked here independently), and do not depend on the
thread count; game IDs in Tatham's forms parse; bad input is a one-line error with exit 2; the
race is won by the faster solver and its log replays."""
import argparse
import json
import subprocess
import sys
import tempfile
import time

failures = []
checks = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    checks.append(what)
    if not ok:
        failures.append(what)


def run(arbiter, *args, stdin=None, timeout=120):
    return subprocess.run([arbiter, *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout)


def parse_id(game_id):
    n_part, desc = game_id.strip().split(":", 1)
    n = int(n_part.split("d")[0])
    values, i = [], 0
    while i < len(desc):
        if desc[i] == "[":
            j = desc.index("]", i)
            values.append(int(desc[i + 1:j]))
            i = j + 1
        else:
            values.append(int(desc[i]))
            i += 1
    return n, values


def valid_solution(game_id, letters):
    """Independent check: every cell paired with a neighbour, every domino once."""
    n, values = parse_id(game_id)
    w, h = n + 2, n + 1
    if len(letters) != w * h:
        return False
    seen = set()
    step = {"L": 1, "R": -1, "T": w, "B": -w}
    back = {"L": "R", "R": "L", "T": "B", "B": "T"}
    for i, ch in enumerate(letters):
        if ch not in step:
            return False
        j = i + step[ch]
        if ch == "L" and i % w == w - 1 or ch == "R" and i % w == 0 or not 0 <= j < w * h:
            return False
        if letters[j] != back[ch]:
            return False
        if ch in "LT":
            d = tuple(sorted((values[i], values[j])))
            if d in seen:
                return False
            seen.add(d)
    return len(seen) == (n + 1) * (n + 2) // 2


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--arbiter", required=True)
    args = ap.parse_args()
    a = args.arbiter

    for n, level in [(6, "trivial"), (6, "basic"), (10, "basic"), (8, "hard"), (30, "basic"),
                     (12, "ambiguous")]:
        g = run(a, "dominosa", "generate", "--n", str(n), "--level", level, "--seed", "3",
                "--solution", "--threads", "1")
        lines = g.stdout.split("\n")
        ok = g.returncode == 0 and len(lines) >= 2
        check(ok, f"generate --n {n} --level {level} ({g.stderr.strip()})")
        if not ok:
            continue
        game_id, intended = lines[0], lines[1]
        check(valid_solution(game_id, intended), f"  its solution is valid (n {n}, {level})")
        s = run(a, "dominosa", "solve", "--count", "--level", stdin=game_id)
        out = s.stdout.split("\n")
        check(s.returncode == 0 and valid_solution(game_id, out[0]),
              f"  solve gives a valid solution ({s.stderr.strip()})")
        if level != "ambiguous":
            check("solutions: 1" in s.stdout and f"level: {level}" in s.stdout,
                  f"  unique and graded {level}: {s.stdout.strip()[-60:]!r}")
        two = run(a, "dominosa", "generate", "--n", str(n), "--level", level, "--seed", "3",
                  "--threads", "2")
        check(two.returncode == 0 and two.stdout.split("\n")[0] == game_id,
              "  the same puzzle with 2 threads")
        for fmt_name in ("text", "json"):
            f = run(a, "dominosa", "generate", "--n", str(n), "--level", level, "--seed", "3",
                    "--format", fmt_name)
            gr = run(a, "dominosa", "grade", stdin=f.stdout)
            check(f.returncode == 0 and gr.returncode == 0 and
                  (level == "ambiguous" or gr.stdout.strip() == level),
                  f"  --format {fmt_name} reads back ({gr.stdout.strip()} {gr.stderr.strip()})")

    # Tatham's forms: a difficulty suffix, bracketed values, a bracketed single digit.
    for gid in ["1:001110", "1db:001110", "1:[0]01110", "2dt:001101222210"]:
        s = run(a, "dominosa", "solve", stdin=gid)
        check(s.returncode in (0, 1) and s.stderr.count("error") == 0 and
              (s.returncode == 1 or valid_solution(gid, s.stdout.split("\n")[0])),
              f"game ID {gid} parses and solves ({s.stdout.strip()} {s.stderr.strip()})")

    # An ambiguous grid counts to the limit.
    amb = run(a, "dominosa", "generate", "--n", "30", "--level", "ambiguous", "--seed", "1")
    s = run(a, "dominosa", "solve", "--count", "--limit", "50", stdin=amb.stdout)
    check(s.returncode == 0 and "solutions:" in s.stdout, f"count an ambiguous n=30 grid: "
          f"{s.stdout.strip().splitlines()[-1] if s.stdout.strip() else s.stderr.strip()}")

    # Counting random layouts: the answer and the solution printed never depend on --threads.
    for seed in ("2", "5"):
        amb = run(a, "dominosa", "generate", "--n", "40", "--level", "ambiguous", "--seed", seed)
        outs = [run(a, "dominosa", "solve", "--count", "--threads", t, stdin=amb.stdout)
                for t in ("1", "2", "3")]
        check(all(o.returncode == 0 for o in outs) and len({o.stdout for o in outs}) == 1 and
              "solutions: 2 (stopped at --limit 2)" in outs[0].stdout and
              valid_solution(amb.stdout.strip(), outs[0].stdout.split("\n")[0]),
              f"n=40 layout seed {seed}: the same count and solution on 1, 2 and 3 threads")

    # Giving up is "unknown" with exit 4, never a count: a hard n=70 layout and a tiny budget.
    hard = run(a, "dominosa", "generate", "--n", "70", "--level", "ambiguous", "--seed", "3")
    started = time.monotonic()
    s = run(a, "dominosa", "solve", "--count", "--timeout", "0.5", stdin=hard.stdout)
    took = time.monotonic() - started
    check(s.returncode == 4 and s.stdout.startswith("unknown") and "--timeout" in s.stdout and
          took < 5, f"--timeout 0.5 gives unknown, exit 4, in {took:.1f} s: {s.stdout.strip()!r}")
    s = run(a, "dominosa", "solve", "--count", "--max-nodes", "50", stdin=hard.stdout)
    check(s.returncode == 4 and "unknown" in s.stdout and "--max-nodes 50" in s.stdout,
          f"--max-nodes 50 gives unknown, exit 4: {s.stdout.strip()!r}")
    s = run(a, "dominosa", "solve", "--count", "--timeout", "-1", stdin=hard.stdout)
    check(s.returncode == 2, "a negative --timeout is exit 2")

    for bad, why in [("1:00111", "token count"), ("1:001112", "value range"),
                     ("1:000000", "counts"), ("x:0", "no n"), ("", "empty"),
                     ('{"n": 1}', "json without grid"), ("0 0 1\n1 1\n", "ragged text")]:
        s = run(a, "dominosa", "solve", stdin=bad)
        check(s.returncode == 2 and s.stderr.startswith("arbiter: ") and
              len(s.stderr.strip().splitlines()) == 1, f"bad puzzle ({why}) is a one-line error: "
              f"{s.stderr.strip()!r}")
    s = run(a, "dominosa", "solve", "/nonexistent/puzzle")
    check(s.returncode == 2, "a missing file is exit 2")
    s = run(a, "dominosa", "generate", "--n", "5", "--level", "impossible")
    check(s.returncode == 2, "an unknown level is exit 2")

    with tempfile.TemporaryDirectory() as tmp:
        log = f"{tmp}/race.jsonl"
        p = run(a, "play", "dominosa", "--player", "fast:solver", "--player", "slow:slow=0.5",
                "--config", '{"n": 12}', "--seed", "2", "--json", "--log", log)
        try:
            r = json.loads(p.stdout)
        except ValueError:
            r = {}
        check(p.returncode == 0 and r.get("winners") == [0],
              f"the race: the solver beats slow=0.5 ({p.stdout.strip()} {p.stderr.strip()})")
        rp = run(a, "replay", log)
        check(rp.returncode == 0 and "identical" in rp.stdout, f"the race replays ({rp.stderr.strip()})")

    print(f"{len(checks) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
