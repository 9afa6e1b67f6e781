#!/usr/bin/env python3
"""battleship_bad: a Battleship player for the golden logs (standard library only, wire protocol
of docs/protocol.md) that plays legally until its --turn K-th take-turn, where it fires again at
the first cell it fired at (foul "repeat-shot"). It is frozen with the golden logs that name it
(tests/golden/MANIFEST.json): change what it sends and those logs no longer re-run identically.

Its fleet: ship i of the config (in the config's order) horizontally at row 2i, column 0 (legal
with and without no_touch when rows >= 2 * ships and cols >= the longest ship). It fires row by
row from (0, 0), one shot per turn (not for salvo configs).
"""
import argparse
import json
import sys


def send(value):
    sys.stdout.write(json.dumps(value, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--turn", type=int, default=3)
    args = ap.parse_args()
    turns = 0
    cols = 0
    for line in sys.stdin:
        method, params = json.loads(line)
        if method == "setup":
            config = params[0]
            cols = config["cols"]
            send([{"length": n, "row": 2 * i, "col": 0, "dir": "h"}
                  for i, n in enumerate(config["ships"])])
        elif method == "take-turn":
            turns += 1
            shot = 0 if turns == args.turn else turns - 1
            send({"row": shot // cols, "col": shot % cols})
        elif method == "win":
            send("void")
            return
        else:  # "ejected": told why, the channel closes
            return


if __name__ == "__main__":
    main()
