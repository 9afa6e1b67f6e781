#!/usr/bin/env python3
"""dominosa_bot: a Dominosa race player in plain Python (standard library only) speaking
arbiter's wire protocol over stdin/stdout, one JSON value per line each way (docs/games/dominosa.md
§5, docs/writing-a-bot.md).

Referee to player:
  ["setup", [{"n": n, "grid": [[v, ...], ...]}]]   the puzzle: n+1 rows of n+2 values 0..n
  ["verdict", ["accepted" | Reason]]               the answer to each submission
  ["win", [true | false]]                          the end; the channel closes after it
  ["ejected", [{"verdict", "call", "detail"}]]     the bot is out, and why; the channel closes
Player to referee:
  ["submit", ["LRTB..."]]                          one letter a cell, row-major: L (left half,
                                                   partner to the right), R, T (top half,
                                                   partner below), B

Strategy: depth-first search that always fills the most constrained spot first: the empty cell
with the fewest possible partners, or the unused domino with the fewest places left, whichever
has fewer choices. Generated puzzles are unique and need little or no backtracking.

Run it: arbiter play dominosa -p a:slow=1 -p "me:cmd:python3 bots/python/dominosa_bot.py" --config '{"n": 8}'
Options: --transcript (write every line received ("<- ") and sent ("-> ") to stderr),
--mistake (submit a wrong solution first and the right one after its verdict, to see a
rejection).
"""
import argparse
import json
import sys


def solve(n, grid):
    """The solution string (row-major L/R/T/B), or None if there is none."""
    rows, cols = n + 1, n + 2
    value = [v for row in grid for v in row]
    mark = [None] * (rows * cols)  # L/R/T/B once paired
    used = set()                    # dominoes placed, as (low, high)

    def domino(a, b):
        return (min(value[a], value[b]), max(value[a], value[b]))

    def partners(i):
        """The free neighbours cell i could pair with, and how (its letter, theirs)."""
        r, c = divmod(i, cols)
        out = []
        for j, mine, theirs, ok in ((i + 1, "L", "R", c + 1 < cols), (i - 1, "R", "L", c > 0),
                                    (i + cols, "T", "B", r + 1 < rows), (i - cols, "B", "T", r > 0)):
            if ok and mark[j] is None and domino(i, j) not in used:
                out.append((j, mine, theirs))
        return out

    def search():
        best = None  # (number of choices, [(i, j, mine, theirs), ...])
        places = {}  # unused domino -> its possible placements
        for i in range(rows * cols):
            if mark[i] is not None:
                continue
            options = [(i, j, m, t) for j, m, t in partners(i)]
            if not options:
                return False  # a cell nobody can pair with: dead end
            if best is None or len(options) < len(best):
                best = options
            for p in options:
                if p[2] in "LT":  # count each placement once, from its left or top cell
                    places.setdefault(domino(p[0], p[1]), []).append(p)
        if best is None:
            return True  # every cell paired
        for d, options in places.items():
            if len(options) < len(best):
                best = options
        for i, j, m, t in best:
            mark[i], mark[j] = m, t
            used.add(domino(i, j))
            if search():
                return True
            used.discard(domino(i, j))
            mark[i] = mark[j] = None
        return False

    sys.setrecursionlimit(10000)
    return "".join(mark) if search() else None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--transcript", action="store_true", help="log every line to stderr")
    ap.add_argument("--mistake", action="store_true", help="submit a wrong solution first")
    args = ap.parse_args()

    def send(message):
        line = json.dumps(message, separators=(",", ":"))
        if args.transcript:
            sys.stderr.write("-> " + line + "\n")
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def submit_solution(puzzle):
        solution = solve(puzzle["n"], puzzle["grid"])
        if solution:
            send(["submit", [solution]])
        else:
            sys.stderr.write("dominosa_bot: no solution found\n")

    pending = None  # with --mistake: the puzzle to solve once the wrong answer's verdict is in
    for line in sys.stdin:
        if not line.strip():
            continue
        if args.transcript:
            sys.stderr.write("<- " + line.strip() + "\n")
        kind, payload = json.loads(line)
        if kind == "setup":
            puzzle = payload[0]
            if args.mistake:  # every row L R L R ...: a tiling, but not of the right dominoes
                row = "".join("LR"[c % 2] for c in range(puzzle["n"] + 2))
                send(["submit", [row * (puzzle["n"] + 1)]])
                pending = puzzle
            else:
                submit_solution(puzzle)
        elif kind == "verdict":
            if pending:
                submit_solution(pending)
                pending = None
            # otherwise nothing to do; a rejected solution would be a bug in solve()
        elif kind == "ejected":  # the referee's last word: why this bot is out
            sys.stderr.write("ejected: {verdict} during {call}: {detail}\n".format(**payload[0]))
            return
        elif kind == "win":
            return


if __name__ == "__main__":
    main()
