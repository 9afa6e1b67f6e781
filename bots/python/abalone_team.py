#!/usr/bin/env python3
"""A Concurrent Abalone team in plain Python (standard library only), played from outside the
Lua sandbox through arbiter's §8 protocol over stdin/stdout, one JSON value per line each way
(docs/protocol.md, docs/games/abalone.md §8).

  ["setup", [View]]       -> the number of pieces to spawn next to its start piece (--spawn, 13)
  ["take-turn", [View]]   -> its commitments: [{"pid": p, "dir": d}, ...] for its own pieces
  ["win", [true|false]]   -> "void"
  ["ejected", [{"verdict", "call", "detail"}]]   no answer: the bot is out; it logs why and exits

View = {"pieces": [{"pid", "team", "hex", "r", "d", "dir"}, ...], "scores": {"black", "white"},
"may_spawn": {...}, "team": "black"|"white", "turn": resolutions so far, "cycle": n}. Take-turn
comes just before each of its team's resolutions, and the commitments take effect in it.

Strategy (cheap, one pass over the board): first every push the rules allow, 2 against 1 or 3
against 2 along a line of its own pieces with the hex beyond the last enemy empty or off the
board, pushes off the board first; then the other pieces step to an empty neighbour, preferring
hexes nearer the centre, next to friends, nearer the enemy, and away from the rim where an enemy
pair could push them off; a piece that is well placed stays.

Run it: arbiter play abalone --black simple --white "cmd:python3 bots/python/abalone_team.py"
"""
import argparse
import json
import random
import sys

# §1: directions 1..6 as (dr, dd).
DIRS = {1: (0, 1), 2: (1, 1), 3: (1, 0), 4: (0, -1), 5: (-1, -1), 6: (-1, 0)}


def on_board(h):
    r, d = h
    return abs(r) <= 4 and abs(d) <= 4 and abs(r - d) <= 4


def step(h, direction, n=1):
    dr, dd = DIRS[direction]
    return (h[0] + n * dr, h[1] + n * dd)


def ring(h):
    """Distance from the centre E0: 0 there, 4 on the rim."""
    r, d = h
    return max(abs(r), abs(d), abs(r - d))


def distance(a, b):
    dr, dd = a[0] - b[0], a[1] - b[1]
    return max(abs(dr), abs(dd), abs(dr - dd))


class Board:
    def __init__(self, view):
        self.me = view["team"]
        self.at = {}       # hex -> "own" | "enemy"
        self.pid_at = {}   # hex -> pid
        self.own = []      # (pid, hex) in PID order
        self.enemies = []
        for p in view["pieces"]:
            h = (p["r"], p["d"])
            mine = p["team"] == self.me
            self.at[h] = "own" if mine else "enemy"
            self.pid_at[h] = p["pid"]
            (self.own if mine else self.enemies).append((p["pid"], h))
        self.own.sort()

    def what(self, h):
        if not on_board(h):
            return "off"
        return self.at.get(h, "empty")

    def pushes(self):
        """Every legal push: (kills, pids of the chain from the head back, direction)."""
        out = []
        for _, head in self.own:
            for direction in DIRS:
                ahead = [self.what(step(head, direction, i)) for i in (1, 2, 3)]
                if ahead[0] != "enemy":
                    continue
                enemies = 1 if ahead[1] in ("empty", "off") else \
                    2 if ahead[1] == "enemy" and ahead[2] in ("empty", "off") else 0
                if enemies == 0:
                    continue
                # Own pieces in line behind the head: at least one more than the enemies.
                chain = [head]
                while len(chain) < enemies + 1 and self.what(step(chain[-1], direction, -1)) == "own":
                    chain.append(step(chain[-1], direction, -1))
                if len(chain) < enemies + 1:
                    continue
                kills = 1 if ahead[enemies] == "off" else 0
                out.append((kills, [self.pid_at[h] for h in chain], direction))
        out.sort(key=lambda m: -m[0])
        return out

    def danger(self, h, moving_from):
        """Whether an own piece on rim hex h could be pushed off by two enemies in line."""
        if ring(h) < 4:
            return False
        for direction in DIRS:
            if on_board(step(h, direction)):
                continue
            e1, e2 = step(h, direction, -1), step(h, direction, -2)
            if e1 != moving_from and self.what(e1) == "enemy" and self.what(e2) == "enemy":
                return True
        return False

    def value(self, h, moving_from):
        v = -3.0 * ring(h)
        if self.danger(h, moving_from):
            v -= 50
        v += sum(1.0 for direction in DIRS
                 if step(h, direction) != moving_from and self.what(step(h, direction)) == "own")
        if self.enemies:
            v -= 0.5 * min(distance(h, e) for _, e in self.enemies)
        return v


def take_turn(view, rng):
    board = Board(view)
    busy = set()
    moves = []
    for _, chain, direction in board.pushes():
        if busy & set(chain):
            continue
        busy |= set(chain)
        moves += [{"pid": pid, "dir": direction} for pid in chain]
    targets = set()
    for pid, h in board.own:
        if pid in busy:
            continue
        best, best_dirs = board.value(h, None), []
        for direction in DIRS:
            to = step(h, direction)
            if board.what(to) != "empty" or to in targets:
                continue
            v = board.value(to, h) + rng.random() * 0.1
            if v > best + 0.5:
                best, best_dirs = v, [direction]
        if best_dirs:
            direction = best_dirs[0]
            targets.add(step(h, direction))
            moves.append({"pid": pid, "dir": direction})
    return moves


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spawn", type=int, default=13, help="pieces to spawn at setup (default 13)")
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    for line in sys.stdin:
        if not line.strip():
            continue
        method, call_args = json.loads(line)
        if method == "ejected":  # the referee's last word: why this bot is out; no answer
            sys.stderr.write("ejected: {verdict} during {call}: {detail}\n".format(**call_args[0]))
            return
        if method == "setup":
            reply = args.spawn
        elif method == "take-turn":
            reply = take_turn(call_args[0], rng)
        else:
            reply = "void"
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if method == "win":
            return


if __name__ == "__main__":
    main()
