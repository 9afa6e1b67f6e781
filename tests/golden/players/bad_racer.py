#!/usr/bin/env python3
"""bad_racer: a real-time racer for the golden logs (Speed Scrabble or the Dominosa race; standard
library only, wire protocol of docs/protocol.md) that misbehaves in one fixed, scripted way and
never races. It is frozen with the golden logs that name it (tests/golden/MANIFEST.json): change
what it sends and those logs no longer re-run identically.

  --mode garbage          after the setup, one line that is not JSON          -> malformed
  --mode wrong --count N  after the setup, N wrong answers, each sent after   -> foul
                          the verdict on the one before                          "too-many-invalid"
                          (Speed Scrabble: the board ["ZZ"], letters it never    once N exceeds the
                          holds; Dominosa: the solution "LR", too short)          config's max_invalid

Then it reads (and ignores) every line until the channel closes, so the referee's notices never
back up, and exits.
"""
import argparse
import json
import sys


def send(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["garbage", "wrong"], required=True)
    ap.add_argument("--count", type=int, default=1)
    args = ap.parse_args()

    setup = json.loads(sys.stdin.readline())
    # Speed Scrabble: ["setup", [Config, Letters]]; the Dominosa race: ["setup", [Puzzle]].
    scrabble = len(setup[1]) == 2
    wrong = ["submit", [["ZZ"]]] if scrabble else ["submit", ["LR"]]
    if args.mode == "garbage":
        send("this is not JSON")
    else:
        for i in range(args.count):
            send(json.dumps(wrong, separators=(",", ":")))
            if i + 1 < args.count:
                for line in sys.stdin:  # wait for this answer's verdict
                    if json.loads(line)[0] in ("verdict", "win", "ejected"):
                        break
    for _ in sys.stdin:
        pass


if __name__ == "__main__":
    main()
