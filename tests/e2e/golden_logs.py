#!/usr/bin/env python3
"""Golden game logs (tests/golden, described in tests/golden/README.md): for every log that
tests/golden/MANIFEST.json lists,

1. `arbiter replay LOG` re-simulates it and says "identical";
2. the match is played again with `arbiter play` and the manifest's arguments (the same game,
   players, seed, config and limits), from tests/golden as the working directory, and the fresh
   log, normalised, must be byte-for-byte the golden file.

Normalising (the same function writes a golden with --regenerate): every "elapsed_us" and
"clock_us" becomes 0 and every "cpu_us" is dropped (the only timing fields, docs/protocol.md;
whether a call's CPU time is measured at all depends on the machine's cgroups) and the header's
"hosting" block (under which caps and walls programs ran) is dropped; nothing else is touched, not even the order
of keys or the spelling of numbers.

Real-time games (the header's "style" is "realtime": Speed Scrabble, the Dominosa race) are not
deterministic by design: every arrival is stamped with the wall clock ("at_us") and a ticket in
the order the players' threads happen to deliver, and which messages exist at all (how many
boards a racer sends, which tiles it sees unlocked before it submits, stale verdicts) depends on
thread timing. `at_us` is not timing noise in these logs: the game decides stalls, rate limits
and time limits from it, so a golden keeps it as recorded and replays with it. For these logs
the re-run compares what the design fixes: the header, the deal (every "setup" line), every
"ejection" line, the "end" line without its "at_us", and the "result" (winners, ejections,
scores); the goldens are chosen so that the outcome does not hinge on a race (one racer fast,
the others waiting 0.5 s or more, or nobody able to win). The fresh log must also replay. When
the rest of the log (arrivals, notices, tickets) differs, a note says so; that is not a failure.

--regenerate FILE ... (or --regenerate all) plays the manifest's command and writes the
normalised log over the golden file; README.md says when that is allowed.
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import time

failures = []
checks = []

TIMING = re.compile(rb'"(elapsed_us|clock_us)":[0-9]+')
CPU_TIME = re.compile(rb',"cpu_us":[0-9]+')
REALTIME_KEPT = ("match", "setup", "ejection", "end", "result")


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    checks.append(what)
    if not ok:
        failures.append(what)


def normalise(raw: bytes) -> bytes:
    """The log as a golden stores it: timing fields zeroed, the header's hosting block dropped.
    Works on the bytes, and checks through a JSON parse that nothing else changed."""
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    out = []
    for i, line in enumerate(lines):
        new = CPU_TIME.sub(b"", TIMING.sub(lambda m: b'"' + m.group(1) + b'":0', line))
        if i == 0:
            at = new.find(b',"hosting":')
            if at >= 0:
                text = new.decode()
                start = len(new[:at].decode())
                _, end = json.JSONDecoder().raw_decode(text, start + len(',"hosting":'))
                new = (text[:start] + text[end:]).encode()
        want = json.loads(line)
        for key in ("elapsed_us", "clock_us"):
            if key in want:
                want[key] = 0
        want.pop("cpu_us", None)
        if i == 0:
            want.pop("hosting", None)
        if json.loads(new) != want:
            raise ValueError(f"normalising line {i + 1} changed more than its timing: {line[:200]!r}")
        out.append(new)
    return b"".join(l + b"\n" for l in out)


def realtime_projection(normalised: bytes):
    """What a real-time match fixes regardless of thread timing (see the module docstring)."""
    kept = []
    for line in normalised.split(b"\n"):
        if not line:
            continue
        record = json.loads(line)
        kind = record.get("type")
        if kind not in REALTIME_KEPT:
            continue
        if kind == "end":
            record.pop("at_us", None)
            line = json.dumps(record, sort_keys=True, separators=(",", ":")).encode()
        kept.append(line)
    return kept


def without_arrival_times(normalised: bytes):
    """Every line of a real-time log without its at_us: equal across re-runs only when the
    players' threads delivered the same messages in the same order (reported, never required)."""
    return [re.sub(rb'"at_us":[0-9]+,?', b"", line) for line in normalised.split(b"\n")]


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            at = next((k for k, (u, v) in enumerate(zip(x, y)) if u != v), min(len(x), len(y)))
            lo = max(0, at - 60)
            return (f"line {i + 1}, byte {at + 1}: golden ...{x[lo:at + 60]!r}... "
                    f"fresh ...{y[lo:at + 60]!r}...")
    return f"the golden has {len(a)} lines, the fresh log {len(b)}"


def play(arbiter, entry, golden_dir, log):
    cmd = [arbiter, "play", *entry["play"], "--log", str(log)]
    return subprocess.run(cmd, cwd=golden_dir, capture_output=True, text=True, timeout=120)


def load_manifest(golden_dir):
    manifest = json.loads((golden_dir / "MANIFEST.json").read_text())
    entries = manifest["logs"]
    names = [e["file"] for e in entries]
    if len(set(names)) != len(names):
        raise ValueError("MANIFEST.json lists a file twice")
    return entries


def regenerate(args, entries):
    wanted = set(args.regenerate)
    chosen = [e for e in entries if "all" in wanted or e["file"] in wanted]
    unknown = wanted - {"all"} - {e["file"] for e in entries}
    if unknown:
        print(f"not in MANIFEST.json: {', '.join(sorted(unknown))}")
        return 2
    with tempfile.TemporaryDirectory(prefix="arbiter-golden-") as tmp:
        for e in chosen:
            log = pathlib.Path(tmp) / "fresh.jsonl"
            p = play(args.arbiter, e, args.golden, log)
            if p.returncode != 0:
                print(f"{e['file']}: arbiter play failed ({p.returncode}): {p.stderr.strip()}")
                return 1
            (args.golden / e["file"]).write_bytes(normalise(log.read_bytes()))
            print(f"wrote {e['file']}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--golden", required=True, type=pathlib.Path)
    ap.add_argument("--regenerate", nargs="+", metavar="FILE")
    args = ap.parse_args()
    args.golden = args.golden.resolve()
    if "/" in args.arbiter:  # play runs from the golden folder
        args.arbiter = str(pathlib.Path(args.arbiter).resolve())
    entries = load_manifest(args.golden)
    if args.regenerate:
        return regenerate(args, entries)

    on_disk = sorted(p.name for p in args.golden.glob("*.jsonl"))
    listed = sorted(e["file"] for e in entries)
    check(on_disk == listed, f"every golden log is in MANIFEST.json and every entry has its log "
          f"(unlisted {sorted(set(on_disk) - set(listed))}, missing {sorted(set(listed) - set(on_disk))})")
    # Every game `arbiter games` lists (a name at the start of a line) has golden logs.
    listing = subprocess.run([args.arbiter, "games"], capture_output=True, text=True, timeout=60).stdout
    registered = {line.split()[0] for line in listing.splitlines()
                  if line[:1].strip() and not line.startswith("any game")}
    games = {json.loads((args.golden / n).read_text().split("\n", 1)[0])["game"] for n in on_disk}
    check(len(registered) >= 5 and registered <= games,
          f"golden logs of every game (registered {sorted(registered)}, with goldens {sorted(games)})")

    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="arbiter-golden-") as tmp:
        for e in entries:
            name = e["file"]
            path = args.golden / name
            if not path.exists():
                continue
            golden = path.read_bytes()
            header = json.loads(golden.split(b"\n", 1)[0])

            # The stored file is already normalised: no timing to zero, no hosting block.
            check(normalise(golden) == golden, f"{name}: stored normalised")

            r = subprocess.run([args.arbiter, "replay", str(path)], capture_output=True, text=True,
                               timeout=120)
            check(r.returncode == 0 and "identical" in r.stdout,
                  f"{name}: replays identically ({r.stdout.strip()} {r.stderr.strip()})")

            fresh = pathlib.Path(tmp) / name
            t0 = time.monotonic()
            p = play(args.arbiter, e, args.golden, fresh)
            took = time.monotonic() - t0
            if p.returncode != 0 or not fresh.exists():
                check(False, f"{name}: arbiter play {' '.join(e['play'])} ({p.returncode}: {p.stderr.strip()})")
                continue
            new = normalise(fresh.read_bytes())
            if header.get("style") == "realtime":
                a, b = realtime_projection(golden), realtime_projection(new)
                check(a == b, f"{name}: re-run ({took:.1f} s) gives the same header, deal, ejections "
                      f"and result (real time: arrivals not compared)"
                      + ("" if a == b else f"; {first_difference(a, b)}"))
                r = subprocess.run([args.arbiter, "replay", str(fresh)], capture_output=True,
                                   text=True, timeout=120)
                check(r.returncode == 0 and "identical" in r.stdout,
                      f"{name}: the re-run's log replays ({r.stderr.strip()})")
                if without_arrival_times(golden) != without_arrival_times(new):
                    print(f"note {name}: the re-run's arrivals differ from the golden's (allowed "
                          f"in real time): {first_difference(without_arrival_times(golden), without_arrival_times(new))}")
            else:
                same = new == golden
                check(same, f"{name}: re-run ({took:.1f} s) is byte-identical apart from timing"
                      + ("" if same else "; " + first_difference(golden.split(b"\n"), new.split(b"\n"))))

    print(f"{len(checks) - len(failures)} passed, {len(failures)} failed "
          f"({len(entries)} golden logs, {time.monotonic() - start:.1f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
