#!/usr/bin/env python3
"""told_why: a player that gets itself ejected at once and writes down what the referee tells it.

For a turn-based game (q, battleship, abalone) it answers its first call with an object that is
no answer of any game; for a real-time game (speed_scrabble, dominosa) it sends such an object
as soon as its setup arrives. Either way the referee ejects it as malformed. Every line it
receives afterwards is written to stderr as "RECEIVED <line>", so that a test can check from
outside, in the player's own log, that the ejection notice arrived and what it said. It exits
at the notice, or at the end of its input.

    told_why.py turn-based | realtime       [--noise N]   (N bytes of filler on stderr first)

Standard library only.
"""
import json
import sys


def main():
    style = sys.argv[1] if len(sys.argv) > 1 else "turn-based"
    if "--noise" in sys.argv:
        sys.stderr.write("x" * int(sys.argv[sys.argv.index("--noise") + 1]) + "\n")
        sys.stderr.flush()
    answered = False
    for line in sys.stdin:
        if not line.strip():
            continue
        if answered:
            sys.stderr.write("RECEIVED " + line)
            sys.stderr.flush()
            if json.loads(line)[0] == "ejected":
                return
            continue
        if style == "realtime":
            sys.stdout.write(json.dumps({"nonsense": True}) + "\n")
        else:
            sys.stdout.write(json.dumps({"nonsense": True}) + "\n")
        sys.stdout.flush()
        answered = True


if __name__ == "__main__":
    main()
