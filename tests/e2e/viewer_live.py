#!/usr/bin/env python3
"""A live match watched from outside: `arbiter play --serve` with the test itself playing one seat
over TCP and reading the match's stream as a spectator at the same time.

For Q and Battleship it checks that the stream
- is live: lines of the match arrive while the match is still being played;
- sends every line of the match in order, each exactly what docs/viewer.md says a spectator may
  see of it (the projection is written here again, from the doc, independently of the C++);
- never carries hidden information before the end: no hand (Q: a seat's own tiles, the tiles
  dealt to it), no fleet (Battleship), including the test's own hand and fleet, which it knows
  from the messages the referee sent its seat;
- gives the whole log (hands and fleets included) only once the result is in.
"""
import argparse
import json
import pathlib
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

problems = []


def verdict(ok_message):
    """The exit status: 1 with the count of problems found, else 0 with `ok_message`."""
    if problems:
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(ok_message)
    return 0


def check(cond, what):
    if not cond:
        problems.append(what)
        print("FAIL:", what, file=sys.stderr)


# ---- the spectator projection, from docs/viewer.md -------------------------------------------
def spectate(game, line):
    line = json.loads(json.dumps(line))
    t = line.get("type")
    if game == "q":
        if t == "match" and isinstance(line.get("config"), dict):
            line["config"].pop("table", None)
        if t == "call" and line.get("call") != "win":
            if line.get("call") == "take_turn":
                line["args"]["players"][0].pop("tile*", None)
                if line.get("verdict") != "ok":
                    line.pop("reply", None)
            else:
                line.pop("args", None)
                line.pop("reply", None)
    if game == "battleship" and t == "call" and line.get("call") != "win":
        if line.get("call") == "take_turn":
            args = line.get("args", {})
            line["args"] = {k: args[k] for k in ("config", "turn", "you", "outgoing") if k in args}
        else:
            line.pop("args", None)
            line.pop("reply", None)
    # Every game: a detail keeps only its reason (it may quote what a seat sent or holds), and
    # the match line no seed (every hidden hand follows from it).
    if isinstance(line.get("detail"), str):
        line["detail"] = line["detail"].split(":")[0]
    if t == "match":
        line.pop("seed", None)
    return line


class Stream(threading.Thread):
    """Reads /api/live/ID/stream as Server-Sent Events: (id, data, arrival time) per event."""

    def __init__(self, url):
        super().__init__(daemon=True)
        self.url, self.events, self.ended, self.error = url, [], False, None

    def run(self):
        try:
            with urllib.request.urlopen(self.url, timeout=60) as r:
                event = {}
                for raw in r:
                    line = raw.decode().rstrip("\n")
                    if line == "":
                        if event.get("event") == "end":
                            self.ended = True
                            return
                        if "data" in event:
                            self.events.append((int(event["id"]), json.loads(event["data"]), time.monotonic()))
                        event = {}
                    elif line.startswith(":"):
                        continue
                    else:
                        k, _, v = line.partition(": ")
                        event[k] = v
        except Exception as e:  # noqa: BLE001 - reported as a problem
            self.error = repr(e)


class Seat:
    """The test's own seat over TCP: one JSON line per message."""

    def __init__(self, port, token):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=20)
        self.file = self.sock.makefile("rb")
        self.send(token)

    def send(self, value):
        self.sock.sendall((json.dumps(value) + "\n").encode())

    def receive(self):
        line = self.file.readline()
        return json.loads(line) if line else None


def start(arbiter, game, players, extra):
    tmp = tempfile.mkdtemp(prefix="viewer-live-")
    tokens = pathlib.Path(tmp) / "tokens.json"
    cmd = [arbiter, "play", game, *sum((["-p", p] for p in players), []), "--seed", "3",
           "--tokens", str(tokens), "--serve", "127.0.0.1:0", "--linger", "20", "--per-call", "20", *extra]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = port = None
    deadline = time.monotonic() + 20
    while (url is None or port is None) and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        if m := re.search(r"watch the match at (\S+)match\.html\?live=(\d+)", line):
            url = (m.group(1), m.group(2))
        if m := re.search(r"waiting for \d+ tcp player\(s\) on port (\d+)", line):
            port = int(m.group(1))
    if url is None or port is None:
        proc.kill()
        raise SystemExit(f"{game}: arbiter play --serve did not start: {proc.stderr.read()}")
    return proc, url, port, json.loads(tokens.read_text())


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def watch(arbiter, game, players, me, play_turn, setup_reply, extra=()):
    proc, (base, live_id), port, tokens = start(arbiter, game, players, extra)
    # The whole log is refused while the match runs.
    status, _ = get(f"{base}api/live/{live_id}/log")
    check(status == 409, f"{game}: the whole log was served during the match (HTTP {status})")
    stream = Stream(f"{base}api/live/{live_id}/stream")
    stream.start()
    seat = Seat(port, tokens[me])
    views, hands, seen_during = [], [], 0
    while (msg := seat.receive()) is not None:
        call, args = msg[0], msg[1]
        if call == "setup":
            seat.send(setup_reply(args[0]))
        elif call == "take-turn":
            views.append(args[0])
            # Let the stream catch up (it sends a batch at most every 100 ms): what it sent so far
            # is checked below. The first turns wait longer, to see lines arrive mid-match.
            time.sleep(0.3 if len(views) <= 3 else 0.02)
            seen_during = max(seen_during, len(stream.events))
            for _, line, _ in stream.events:
                leak_check(game, line, f"during the match: {line}")
            seat.send(play_turn(args[0]))
        elif call == "new-tiles":
            hands.append(args[0])
            seat.send("void")
        elif call == "win":
            seat.send("void")
            break
        else:
            break
    stream.join(30)
    check(stream.error is None, f"{game}: the stream failed: {stream.error}")
    check(stream.ended, f"{game}: the stream did not end with an end event")
    status, text = get(f"{base}api/live/{live_id}/log")
    check(status == 200, f"{game}: no whole log after the end (HTTP {status})")
    full = [json.loads(l) for l in text.splitlines() if l.strip()]
    shown = [e[1] for e in stream.events]
    check([e[0] for e in stream.events] == list(range(1, len(shown) + 1)), f"{game}: event ids are not 1, 2, 3, ...")
    check(len(shown) == len(full), f"{game}: the stream sent {len(shown)} lines, the match has {len(full)}")
    check(full and full[-1].get("type") == "result", f"{game}: the whole log does not end with the result")
    for i, (s, f) in enumerate(zip(shown, full)):
        check(s == spectate(game, f), f"{game}: line {i + 1} is not the spectator's view of the match's line:\n  {s}\n  {f}")
    for s in shown:
        leak_check(game, s, f"in the stream: {s}")
    # Live: lines came while the match was played, not only at its end.
    check(seen_during >= 3, f"{game}: only {seen_during} lines had arrived while the test's seat was still playing")
    me_index = full[0]["seats"].index(me)
    mine = [s for s in shown if s.get("type") == "call" and s.get("seat") == me_index and s.get("call") == "take_turn"]
    check(len(mine) == sum(1 for _ in mine) and mine, f"{game}: the stream shows none of the test seat's turns")
    proc.terminate()
    proc.wait(10)
    return full, views, hands, shown


def leak_check(game, line, where):
    if game == "q":
        if line.get("type") == "call" and line.get("call") in ("setup", "new_tiles"):
            check("args" not in line, f"q: a hand was sent to spectators {where}")
        if line.get("call") == "take_turn":
            check("tile*" not in line.get("args", {}).get("players", [{}])[0], f"q: a hand was sent to spectators {where}")
    if game == "battleship":
        text = json.dumps(line)
        check('"fleet"' not in text and '"incoming"' not in text, f"battleship: a fleet was sent to spectators {where}")
        if line.get("call") == "setup":
            check("reply" not in line, f"battleship: a fleet was sent to spectators {where}")


def q_case(arbiter):
    full, views, hands, shown = watch(arbiter, "q", ["a:dag", "b:tcp"], "b", lambda view: "pass", lambda view: "void")
    # Each of the test seat's turns, as the stream showed it, is exactly the view its seat was
    # sent without its hand.
    mine = [s for s in shown if s.get("call") == "take_turn" and s.get("seat") == 1]
    check(len(mine) == len(views), f"q: the stream shows {len(mine)} turns of the test's seat, it played {len(views)}")
    for s, own in zip(mine, views):
        expect = json.loads(json.dumps(own))
        check(bool(expect["players"][0].pop("tile*", None)), "q: the test's seat was sent no hand")
        expect["players"][0].pop("name", None)  # the wire names the seat to itself; the log does not
        check(s["args"] == expect, f"q: the stream's view of the test's seat is not its view without the hand:\n  {s['args']}\n  {expect}")


def battleship_case(arbiter):
    fleet = [{"row": r, "col": 0, "dir": "h", "length": n} for r, n in zip((0, 2, 4, 6, 8), (5, 4, 3, 3, 2))]
    cells = [(r, c) for r in range(10) for c in range(10)]
    state = {"next": 0}

    def shoot(view):
        shot = cells[state["next"]]
        state["next"] += 1
        return {"row": shot[0], "col": shot[1]}

    full, views, _, shown = watch(arbiter, "battleship", ["a:density", "b:tcp"], "b", shoot, lambda view: fleet)
    text = "\n".join(json.dumps(s) for s in shown)
    for ship in fleet:
        check(json.dumps(ship, sort_keys=True) not in text, f"battleship: the test's own ship {ship} was sent to spectators")
    their = next(f["reply"] for f in full if f.get("call") == "setup" and f.get("seat") == 0)
    for ship in their:
        check(json.dumps(ship, sort_keys=True, separators=(",", ":")) not in text, f"battleship: seat a's ship {ship} was sent to spectators")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arbiter", required=True)
    a = ap.parse_args()
    q_case(a.arbiter)
    battleship_case(a.arbiter)
    return verdict("viewer_live: Q and Battleship streamed live, in order, nothing hidden before the end")


if __name__ == "__main__":
    sys.exit(main())
