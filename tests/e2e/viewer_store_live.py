#!/usr/bin/env python3
"""Live across processes: a tournament played by `arbiter tournament run` in one process, watched
through `arbiter serve` in another that only reads the same store.

One Battleship entrant is this file run as a program player (--player): it shoots the cells in
order, slowly, so that its matches last a few seconds. The test checks that
- the tournament's live list (/api/tournaments/T/live) shows a match while it is being played;
- its stream (/api/tournaments/T/matches/I/stream) sends lines while the match is still running,
  numbered 1, 2, 3, ..., each exactly the spectator's view (docs/viewer.md) of the match's line
  at that place in the log stored at the end, and ends with an end event once the result is in;
- no line sent carries a fleet (neither the program's nor the house bot's);
- once stored, the match is listed as finished and no longer live.
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from viewer_live import Stream, check, get, leak_check, spectate, verdict  # noqa: E402

FLEET = [{"row": r, "col": 0, "dir": "h", "length": n} for r, n in zip((0, 2, 4, 6, 8), (5, 4, 3, 3, 2))]


def player():
    """A Battleship program player on stdio: the fleet above, then every cell in order."""
    cells = [(r, c) for r in range(10) for c in range(10)]
    shot = 0
    for raw in sys.stdin:
        msg = json.loads(raw)
        call = msg[0]
        if call == "setup":
            reply = FLEET
        elif call == "take-turn":
            time.sleep(0.05)
            r, c = cells[shot % len(cells)]
            shot += 1
            reply = {"row": r, "col": c}
        else:
            reply = "void"
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arbiter")
    ap.add_argument("--player", action="store_true")
    a = ap.parse_args()
    if a.player:
        return player()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="viewer-store-live-"))
    store = f"sqlite:{tmp / 'live.db'}"
    me = pathlib.Path(__file__).resolve()
    run = subprocess.Popen(
        [a.arbiter, "tournament", "run", "--store", store, "--game", "battleship", "--name", "slow",
         "-p", "house:density", "-p", f"prog:cmd:{sys.executable} {me} --player", "--rounds", "2",
         "--workers", "1", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The store exists once the tournament is created; serve reads it from another process.
    deadline = time.monotonic() + 30
    while not (tmp / "live.db").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    serve = subprocess.Popen([a.arbiter, "serve", "--store", store, "--listen", "127.0.0.1:0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = serve.stdout.readline()
        m = re.search(r"is at (http://\S+?)/?\s", line + " ")
        if not m:
            raise SystemExit(f"arbiter serve did not start: {line}{serve.stderr.read()}")
        base = m.group(1).rstrip("/") + "/"
        # Wait for a match to be listed live.
        live = None
        deadline = time.monotonic() + 30
        while live is None and time.monotonic() < deadline:
            status, body = get(f"{base}api/tournaments/1/live")
            if status == 200 and json.loads(body)["matches"]:
                live = json.loads(body)["matches"][0]
            else:
                time.sleep(0.1)
        check(live is not None, "no match was ever listed live by the separate serve process")
        if live is None:
            return finish(run)
        check(sorted(live["seats"]) == ["house", "prog"], f"the live match's seats: {live['seats']}")
        index = live["index"]
        status, body = get(f"{base}api/tournaments/1/matches/{index}/live")
        check(status == 200 and json.loads(body)["game"] == "battleship", f"one live match: HTTP {status} {body}")
        status, _ = get(f"{base}api/tournaments/1/matches/{index}/log")
        check(status == 404, f"the log of a match still running was served (HTTP {status})")
        stream = Stream(f"{base}{live['stream'].lstrip('/')}")
        stream.start()
        # Lines arrive while the match is played: count them as long as its row is not stored.
        during = 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            seen = len(stream.events)
            status, _ = get(f"{base}api/tournaments/1/matches/{index}")
            if status != 404:
                break
            during = seen
            time.sleep(0.1)
        check(during >= 3, f"only {during} lines had arrived while the match was running")
        stream.join(60)
        check(stream.error is None, f"the stream failed: {stream.error}")
        check(stream.ended, "the stream did not end with an end event")
        # Its pair (the same seed, seats swapped) is played next: until it is over, the log would
        # tell that match's hidden fleets, so it is held back.
        status, text = get(f"{base}api/tournaments/1/matches/{index}/log")
        check(status in (200, 409), f"the stored log after the end: HTTP {status}")
        if status == 409:
            check("shares its seed" in text, f"a held log says why not: {text}")
            status, body = get(f"{base}api/tournaments/1/matches/{index}")
            check(status == 200 and json.loads(body).get("held") is True
                  and "seed" not in json.loads(body) and "reproduce" not in json.loads(body),
                  f"a held match row shows no seed or reproduce command: {body}")
        out, err = run.communicate(timeout=120)
        check(run.returncode == 0, f"tournament run failed ({run.returncode}): {err}")
        time.sleep(1.1)  # the API looks at a tournament's progress at most once a second
        status, text = get(f"{base}api/tournaments/1/matches/{index}/log")
        check(status == 200, f"no stored log once its pair is over (HTTP {status})")
        full = [json.loads(l) for l in text.splitlines() if l.strip()]
        shown = [e[1] for e in stream.events]
        check([e[0] for e in stream.events] == list(range(1, len(shown) + 1)), "event ids are not 1, 2, 3, ...")
        check(0 < len(shown) <= len(full), f"the stream sent {len(shown)} lines of a {len(full)}-line match")
        for i, (s, f) in enumerate(zip(shown, full)):
            check(s == spectate("battleship", f), f"line {i + 1} is not the spectator's view of the stored line:\n  {s}\n  {f}")
        for s in shown:
            leak_check("battleship", s, f"in the stream: {s}")
        text = "\n".join(json.dumps(s, sort_keys=True, separators=(",", ":")) for s in shown)
        for ship in FLEET:
            check(json.dumps(ship, sort_keys=True, separators=(",", ":")) not in text, f"the program's ship {ship} was streamed")
        theirs = next((f["reply"] for f in full if f.get("call") == "setup" and f.get("seat") == full[0]["seats"].index("house")), [])
        for ship in theirs:
            check(json.dumps(ship, sort_keys=True, separators=(",", ":")) not in text, f"the house bot's ship {ship} was streamed")
        status, body = get(f"{base}api/tournaments/1/matches/{index}/live")
        check(status == 404, f"a stored match is still listed live (HTTP {status})")
        return finish(run)
    finally:
        serve.terminate()
        serve.wait(10)
        if run.poll() is None:
            run.kill()


def finish(run):
    if run.returncode is None:
        out, err = run.communicate(timeout=120)
        check(run.returncode == 0, f"tournament run failed ({run.returncode}): {err}")
    return verdict("live across processes: ok")


if __name__ == "__main__":
    sys.exit(main())
