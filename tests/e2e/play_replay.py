#!/usr/bin/env python3
"""End-to-end: `arbiter play` writes a game log that `arbiter replay` re-simulates identically;
the same seed gives a byte-identical log apart from timing; a tampered log is caught. The
recorded golden logs of tests/golden are checked by golden_logs.py (replayed and played again)."""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

failures = []
checks = []


def check(ok: bool, what: str):
    print(("ok   " if ok else "FAIL ") + what)
    checks.append(what)
    if not ok:
        failures.append(what)


def run(arbiter, *args):
    return subprocess.run([arbiter, *args], capture_output=True, text=True, timeout=300)


def strip_timing(path: pathlib.Path):
    lines = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        record.pop("elapsed_us", None)
        record.pop("cpu_us", None)
        lines.append(json.dumps(record, sort_keys=True))
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--arbiter", required=True)
    args = ap.parse_args()
    arbiter = args.arbiter
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="arbiter-e2e-"))

    a, b, c = tmp / "a.jsonl", tmp / "b.jsonl", tmp / "c.jsonl"
    p = run(arbiter, "play", "q", "--player", "a:dag", "--player", "b:ldasg", "--seed", "1", "--log", str(a))
    check(p.returncode == 0 and "winners:" in p.stdout, f"play q seed 1 ({p.stderr.strip()})")
    r = run(arbiter, "replay", str(a))
    check(r.returncode == 0 and "identical" in r.stdout, f"replay of seed 1 ({r.stderr.strip()})")
    run(arbiter, "play", "q", "--player", "a:dag", "--player", "b:ldasg", "--seed", "1", "--log", str(b))
    check(strip_timing(a) == strip_timing(b), "the same seed gives the same log apart from timing")
    run(arbiter, "play", "q", "--player", "a:dag", "--player", "b:ldasg", "--seed", "2", "--log", str(c))
    check(strip_timing(a) != strip_timing(c), "another seed gives another game")

    # Misbehaving players: exceptions, a hang, cheats; the match still completes and replays.
    d = tmp / "d.jsonl"
    p = run(arbiter, "play", "q", "--player", "x:dag+cheat=no-fit", "--player", "y:ldasg+hang=take-turn/2",
            "--player", "z:dag+raise=new-tiles", "--player", "w:ldasg", "--seed", "5", "--per-call", "0.2",
            "--log", str(d))
    check(p.returncode == 0 and p.stdout.count("ejected:") == 3,
          f"a 4-player match with three bad actors ejects all three ({p.stdout.strip()} {p.stderr.strip()})")
    r = run(arbiter, "replay", str(d))
    check(r.returncode == 0, f"that match replays identically ({r.stderr.strip()})")

    # The example external Battleship player (bots/python) plays whole games over stdio from
    # either seat, in the default, salvo and no_touch rules, and the logs replay.
    bot = pathlib.Path(__file__).resolve().parents[2] / "bots" / "python" / "battleship_bot.py"
    for config in ("{}", '{"salvo": true}', '{"no_touch": true}'):
        for seats in (["py:cmd:" + sys.executable + " " + str(bot), "house:hunt"],
                      ["house:density", "py:cmd:" + sys.executable + " " + str(bot)]):
            log = tmp / "bs.jsonl"
            p = run(arbiter, "play", "battleship", "--player", seats[0], "--player", seats[1],
                    "--config", config, "--seed", "4", "--json", "--log", str(log))
            try:
                result = json.loads(p.stdout)
            except json.JSONDecodeError:
                result = {}
            check(p.returncode == 0 and result.get("ejections") == [] and len(result.get("winners", [])) == 1,
                  f"python battleship bot at seat {0 if seats[0].startswith('py') else 1}, config {config} "
                  f"({p.stdout.strip()} {p.stderr.strip()})")
            r = run(arbiter, "replay", str(log))
            check(r.returncode == 0, f"that battleship match replays ({r.stderr.strip()})")

    # A tampered log: change the first take_turn reply that is a placement into "pass".
    lines = a.read_text().splitlines()
    for i, line in enumerate(lines):
        record = json.loads(line)
        if record.get("call") == "take_turn" and isinstance(record.get("reply"), list):
            record["reply"] = "pass"
            lines[i] = json.dumps(record)
            break
    t = tmp / "tampered.jsonl"
    t.write_text("\n".join(lines) + "\n")
    r = run(arbiter, "replay", str(t))
    check(r.returncode == 1 and "does not replay identically" in r.stderr, f"a tampered log is caught ({r.stderr.strip()})")

    print(f"{len(checks) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
