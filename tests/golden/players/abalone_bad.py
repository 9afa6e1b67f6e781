#!/usr/bin/env python3
"""abalone_bad: an external Abalone team for the golden logs (standard library only, the calls of
docs/games/abalone.md §8) that spawns --spawn pieces and answers its first take-turn by committing
one of the enemy's pieces (foul "not-own-piece"). It is frozen with the golden logs that name it
(tests/golden/MANIFEST.json): change what it sends and those logs no longer re-run identically.
"""
import argparse
import json
import sys


def send(value):
    sys.stdout.write(json.dumps(value, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spawn", type=int, default=2)
    args = ap.parse_args()
    for line in sys.stdin:
        method, params = json.loads(line)
        if method == "setup":
            send(args.spawn)
        elif method == "take-turn":
            view = params[0]
            enemy = [p["pid"] for p in view["pieces"] if p["team"] != view["team"]]
            send([{"pid": min(enemy), "dir": 1}])
        elif method == "win":
            send("void")
            return
        else:  # "ejected": told why, the channel closes
            return


if __name__ == "__main__":
    main()
