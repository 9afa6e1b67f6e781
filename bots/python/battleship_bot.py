#!/usr/bin/env python3
"""A Battleship player in plain Python (standard library only) speaking arbiter's wire protocol
over stdin/stdout, one JSON value per line each way (docs/protocol.md,
docs/games/battleship.md §3).

  ["setup", [Config]]     -> its fleet: [{"length": 5, "row": 0, "col": 0, "dir": "h"}, ...]
  ["take-turn", [View]]   -> a shot {"row": r, "col": c} (a list of shots in salvo mode)
  ["win", [true|false]]   -> "void"
  ["ejected", [{"verdict", "call", "detail"}]]   no answer: the bot is out; it logs why and exits

Strategy: a random legal fleet; shots hunt at random untried cells and, after a hit, try the
untried neighbours of unresolved hits first. With --parity it hunts on one colour of a
checkerboard first (every ship of length 2 or more covers a cell of each colour): the "new
version" that docs/tournaments.md tests against this one with an SPRT.

Its randomness comes from ARBITER_SEED, which the referee gives every program (derived from
the match's seed, so a match replays as it was played); --seed N fixes it, and without either
it is fresh.

Run it: arbiter play battleship --player a:hunt --player "py:cmd:python3 bots/python/battleship_bot.py"
"""
import argparse
import json
import os
import random
import sys


def ship_cells(ship):
    dr, dc = (0, 1) if ship["dir"] == "h" else (1, 0)
    return [(ship["row"] + i * dr, ship["col"] + i * dc) for i in range(ship["length"])]


def place_fleet(config, rng):
    rows, cols, no_touch = config["rows"], config["cols"], config.get("no_touch", False)
    while True:
        taken, fleet = set(), []
        for length in sorted(config["ships"], reverse=True):
            options = []
            for d in "hv":
                for r in range(rows - (length - 1 if d == "v" else 0)):
                    for c in range(cols - (length - 1 if d == "h" else 0)):
                        ship = {"length": length, "row": r, "col": c, "dir": d}
                        cells = ship_cells(ship)
                        if no_touch:
                            near = {(y + a, x + b) for y, x in cells for a in (-1, 0, 1) for b in (-1, 0, 1)}
                            if near & taken:
                                continue
                        elif set(cells) & taken:
                            continue
                        options.append(ship)
            if not options:
                break
            ship = rng.choice(options)
            fleet.append(ship)
            taken |= set(ship_cells(ship))
        else:
            return fleet


def afloat(view):
    hit = {(s["row"], s["col"]) for s in view["incoming"] if s["result"] != "miss"}
    return sum(1 for ship in view["fleet"] if not set(ship_cells(ship)) <= hit)


def choose_shots(view, rng, parity=False):
    config = view["config"]
    rows, cols = config["rows"], config["cols"]
    tried = {(s["row"], s["col"]) for s in view["outgoing"]}
    open_hits = [(s["row"], s["col"]) for s in view["outgoing"] if s["result"] == "hit"]
    count = afloat(view) if config.get("salvo", False) else 1
    shots = []
    for r, c in open_hits:
        for y, x in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= y < rows and 0 <= x < cols and (y, x) not in tried and (y, x) not in shots:
                shots.append((y, x))
    rest = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in tried and (r, c) not in shots]
    rng.shuffle(rest)
    if parity:
        rest.sort(key=lambda cell: (cell[0] + cell[1]) % 2)  # one colour first, still shuffled
    shots = (shots + rest)[:count]
    cells = [{"row": r, "col": c} for r, c in shots]
    return cells if config.get("salvo", False) else cells[0]


def main():
    options = argparse.ArgumentParser(description="A Battleship bot for arbiter (stdio).")
    options.add_argument("--parity", action="store_true", help="hunt on a checkerboard first")
    options.add_argument("--seed", type=int,
                         help="fix the bot's randomness (default: $ARBITER_SEED, else fresh)")
    args_given = options.parse_args()
    seed = args_given.seed
    if seed is None and os.environ.get("ARBITER_SEED", "").isdigit():
        seed = int(os.environ["ARBITER_SEED"])
    rng = random.Random(seed)
    for line in sys.stdin:
        if not line.strip():
            continue
        method, args = json.loads(line)
        if method == "ejected":  # the referee's last word: why this bot is out; no answer
            sys.stderr.write("ejected: {verdict} during {call}: {detail}\n".format(**args[0]))
            return
        if method == "setup":
            reply = place_fleet(args[0], rng)
        elif method == "take-turn":
            reply = choose_shots(args[0], rng, args_given.parity)
        else:
            reply = "void"
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if method == "win":
            return


if __name__ == "__main__":
    main()
