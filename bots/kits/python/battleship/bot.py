#!/usr/bin/env python3
"""A Battleship bot for arbiter: one JSON message per line on stdin, one answer per line on stdout.

Its fleet goes in the first places that fit, scanning the grid; it fires next to its open hits
first, then on a checkerboard (every ship covers a cell of each colour), then anywhere left."""
import json
import sys


def cells(row, col, length, d):
    return [(row + i, col) if d == "v" else (row, col + i) for i in range(length)]


def place_fleet(config):
    rows, cols = config["rows"], config["cols"]
    taken, fleet = set(), []
    for length in sorted(config["ships"], reverse=True):
        for row in range(rows):
            spot = next(((row, col, d) for col in range(cols) for d in "hv"
                         if all(0 <= r < rows and 0 <= c < cols and (r, c) not in taken
                                for r, c in cells(row, col, length, d))), None)
            if spot:
                break
        row, col, d = spot
        fleet.append({"length": length, "row": row, "col": col, "dir": d})
        # Keep a cell of water around each ship, so that it fits no_touch too.
        taken |= {(r + dr, c + dc) for r, c in cells(row, col, length, d)
                  for dr in (-1, 0, 1) for dc in (-1, 0, 1)}
    return fleet


def shots(view):
    config = view["config"]
    rows, cols = config["rows"], config["cols"]
    tried = {(s["row"], s["col"]) for s in view["outgoing"]}
    hits = [(s["row"], s["col"]) for s in view["outgoing"] if s["result"] == "hit"]
    near = [(r + dr, c + dc) for r, c in hits for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))]
    board = [(r, c) for r in range(rows) for c in range(cols)]
    order = near + [p for p in board if sum(p) % 2 == 0] + board
    want = 1
    if config.get("salvo"):
        sunk_cells = {(s["row"], s["col"]) for s in view["incoming"] if s["result"] != "miss"}
        want = sum(1 for ship in view["fleet"]
                   if not set(cells(ship["row"], ship["col"], ship["length"], ship["dir"])) <= sunk_cells)
    chosen = []
    for r, c in order:
        if 0 <= r < rows and 0 <= c < cols and (r, c) not in tried and (r, c) not in chosen:
            chosen.append((r, c))
            if len(chosen) == want:
                break
    answer = [{"row": r, "col": c} for r, c in chosen]
    return answer if config.get("salvo") else answer[0]


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        method, args = json.loads(line)
        if method == "ejected":  # the referee says why this bot is out; no answer
            print("ejected: {verdict} during {call}: {detail}".format(**args[0]), file=sys.stderr)
            return
        if method == "setup":
            answer = place_fleet(args[0])
        elif method == "take-turn":
            answer = shots(args[0])
        else:
            answer = "void"
        print(json.dumps(answer), flush=True)
        if method == "win":
            return


if __name__ == "__main__":
    main()
