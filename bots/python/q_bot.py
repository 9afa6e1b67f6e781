#!/usr/bin/env python3
"""A Q player in plain Python (standard library only) speaking arbiter's wire protocol over
stdin/stdout: one JSON value per line each way (docs/protocol.md).

The referee sends ["setup", [JPub, [JTile...]]], ["take-turn", [JPub]], ["new-tiles", [[JTile...]]]
and ["win", [bool]]; the bot answers "void", except to take-turn, where it answers "pass",
"replace" or a list of placements. An ejected bot gets ["ejected", [{"verdict", "call",
"detail"}]] (no answer): it writes the reason to stderr and exits.

Strategy: place one tile, the first of its hand that fits somewhere, at the first spot (in
row-major order) where it fits; otherwise replace its tiles if the referee has enough left, else
pass.

Run it: arbiter play q --player a:dag --player "py:cmd:python3 bots/python/q_bot.py"
With --transcript it also writes every line it receives ("<- ") and sends ("-> ") to stderr
(keep it with arbiter play --stderr-dir DIR).
"""
import json
import sys


def neighbours(row, col):
    return [(row - 1, col), (row, col - 1), (row, col + 1), (row + 1, col)]


def fits_line(a, tile, b):
    """A tile between its two neighbours a and b (None if empty) along one line."""
    if a and b:
        return (a["shape"] == tile["shape"] == b["shape"]) or (a["color"] == tile["color"] == b["color"])
    x = a or b
    return x is None or x["shape"] == tile["shape"] or x["color"] == tile["color"]


def fits(board, row, col, tile):
    at = board.get
    return (fits_line(at((row, col - 1)), tile, at((row, col + 1)))
            and fits_line(at((row - 1, col)), tile, at((row + 1, col))))


def take_turn(pub):
    board = {}
    for row in pub["map"]:
        for col, tile in row[1:]:
            board[(row[0], col)] = tile
    hand = pub["players"][0]["tile*"]
    spots = sorted({n for cell in board for n in neighbours(*cell) if n not in board})
    for tile in hand:
        for row, col in spots:
            if fits(board, row, col, tile):
                return [{"coordinate": {"row": row, "column": col}, "1tile": tile}]
    return "replace" if pub["tile*"] >= len(hand) else "pass"


def main():
    transcript = "--transcript" in sys.argv[1:]
    for line in sys.stdin:
        if not line.strip():
            continue
        method, args = json.loads(line)
        if method == "ejected":  # the referee's last word: why this bot is out; no answer
            sys.stderr.write("ejected: {verdict} during {call}: {detail}\n".format(**args[0]))
            return
        reply = json.dumps(take_turn(args[0]) if method == "take-turn" else "void")
        if transcript:
            sys.stderr.write("<- " + line.strip() + "\n-> " + reply + "\n")
        sys.stdout.write(reply + "\n")
        sys.stdout.flush()
        if method == "win":
            return


if __name__ == "__main__":
    main()
