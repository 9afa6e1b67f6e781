#!/usr/bin/env python3
"""q_misbehave: the Python Q bot (bots/python/q_bot.py) that breaks the protocol on purpose at
its K-th take-turn, so you can see what arbiter does with a bot that goes wrong: the ejection
reason, the ejection notice the bot receives, and what play and tournaments print.

    arbiter play q -p a:dag -p "me:cmd:python3 examples/q_misbehave.py --mode foul" --read-only bots/python --stderr-dir logs

--mode (what it does at its K-th take-turn; --turn K, default 2):
  foul       places a tile it does not hold                  -> foul (tile-not-owned)
  malformed  answers "pss" (valid JSON, not an action)         -> malformed
  garbage    answers a line that is not JSON                 -> malformed
  timeout    never answers                                   -> timeout
  slow       answers well, but --sleep S seconds late (default 2)
                                                  -> timeout, or time-bank-exhausted (--clock)
  hang-up    exits without answering                         -> hang-up
  none       plays the whole game correctly

Like every example bot it writes the ejection notice to stderr and exits when it gets one.
Standard library only.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "bots", "python"))
import q_bot  # noqa: E402  the example bot's strategy: take_turn(pub)

SHAPES = ["star", "8star", "square", "circle", "clover", "diamond"]
COLORS = ["red", "green", "blue", "yellow", "orange", "purple"]


def stolen_tile(pub):
    """A placement of a tile kind the hand does not hold (a tile-not-owned foul), next to (0, 0)
    if possible, so the referee gets as far as the ownership check."""
    hand = {(t["color"], t["shape"]) for t in pub["players"][0]["tile*"]}
    for shape in SHAPES:
        for color in COLORS:
            if (color, shape) not in hand:
                return [{"coordinate": {"row": 0, "column": 1},
                         "1tile": {"color": color, "shape": shape}}]
    return "pass"  # holds every kind (impossible with 6 tiles)


def send(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", default="foul",
                    choices=["foul", "malformed", "garbage", "timeout", "slow", "hang-up", "none"])
    ap.add_argument("--sleep", type=float, default=2.0, help="slow: seconds to think")
    ap.add_argument("--turn", type=int, default=2, help="misbehave at this take-turn (1 = first)")
    args = ap.parse_args()
    turns = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        method, call_args = json.loads(line)
        if method == "ejected":  # the referee's last word: why this bot is out; no answer
            sys.stderr.write("ejected: {verdict} during {call}: {detail}\n".format(**call_args[0]))
            return
        if method != "take-turn":
            send('"void"')
            if method == "win":
                return
            continue
        turns += 1
        if turns != args.turn or args.mode == "none":
            send(json.dumps(q_bot.take_turn(call_args[0])))
        elif args.mode == "foul":
            send(json.dumps(stolen_tile(call_args[0])))
        elif args.mode == "malformed":
            send('"pss"')
        elif args.mode == "garbage":
            send("I pass, thanks")
        elif args.mode == "timeout":
            time.sleep(3600)  # keeps reading nothing: the referee gives up at --per-call
        elif args.mode == "slow":
            time.sleep(args.sleep)
            send(json.dumps(q_bot.take_turn(call_args[0])))
        elif args.mode == "hang-up":
            return


if __name__ == "__main__":
    main()
