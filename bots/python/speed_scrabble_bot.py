#!/usr/bin/env python3
"""A Speed Scrabble player in plain Python (standard library only) speaking arbiter's wire
protocol over stdin/stdout, one JSON value per line each way (docs/games/speed_scrabble.md §3,
docs/protocol.md). Speed Scrabble is real-time: nobody takes turns, messages flow both ways at
any time, and the player never answers "void".

Referee to player:
  ["setup", [Config, [Letter, ...]]]   the config and the first `start` tiles, e.g.
        [{"players": 2, "hand": 15, "start": 7, "dictionary": "scowl-70", ...}, ["E", "R", ...]]
  ["new-tiles", [[Letter, ...]]]       tiles just unlocked for this player, in order
  ["verdict", [k, "accepted" | Reason]] the answer to each submission (k: letters on the board;
                                        "stale: ..." means more tiles were unlocked meanwhile)
  ["win", [true | false]]              the end; the channel closes after it
  ["ejected", [{"verdict", "call", "detail"}]]  the bot is out, and why; the channel closes
Player to referee:
  ["submit", [Board]]                  Board: equal-length strings of "A".."Z" and "." (empty),
                                       at most 32 x 32, e.g. ["CAT", "..O"]

A k-board uses exactly the player's first k tiles; its letters are 4-connected and every
horizontal or vertical run of 2 or more letters is a word. Whenever anybody submits a valid board
for the current k, everybody gets tile k+1. The first valid board of all `hand` tiles wins.

Strategy: load the same dictionary as the referee (the setup names it: "scowl-N", Debian's scowl
lists up to size N in /usr/share/dict/scowl, or a word-list file's path). Build a crossword by
depth-first search: lay a long word from the tiles, then keep attaching words that cross a letter
already on the board (or single letters that hook onto it), checking that every new
perpendicular run is a word and that nothing touches illegally, until every tile is used. When a
tile arrives, first try to extend the last board, else rebuild from scratch. Each search has a
time budget and stops early when a message arrives (new tiles make the current search stale).
Every board is checked locally before it is sent, and a word the referee rejects is dropped from
the local dictionary, so the bot never floods the referee with bad boards.

Run it:
  arbiter play speed_scrabble --player a:slow=2 --player "py:cmd:python3 bots/python/speed_scrabble_bot.py"
Options: --budget SECONDS (per search attempt, default 1), --seed N, --transcript (write every
line received ("<- ") and sent ("-> ") to stderr; keep it with arbiter play --stderr-dir DIR).
"""
import argparse
import json
import os
import queue
import random
import sys
import threading
import time

SCOWL_DIR = "/usr/share/dict/scowl"
SCOWL_SIZES = (10, 20, 35, 40, 50, 55, 60, 70, 80, 95)  # the sizes Debian's scowl ships
MAX_SIDE = 32  # a board is at most 32 x 32 (docs/games/speed_scrabble.md §3)

# How hard a letter is to place: placing hard letters early keeps the search out of dead ends.
HARD = {"Q": 8, "Z": 6, "J": 6, "X": 5, "V": 4, "K": 3, "W": 3, "F": 2, "Y": 2, "B": 2,
        "H": 1, "M": 1, "P": 1, "C": 1, "G": 1, "U": 1}


# ---------------------------------------------------------------------------------------------
# The dictionary: the same words as the referee's (src/games/speed_scrabble/words.cpp)

def read_words(path):
    """Words of a list, filtered like arbiter does: trailing CR and spaces dropped, only lines of
    2 or more letters a-z/A-Z kept (the rest, e.g. "don't" or accented words, skipped),
    upper-cased."""
    out = []
    with open(path, encoding="latin-1") as f:
        for line in f:
            w = line.rstrip("\n").rstrip("\r ")
            if len(w) >= 2 and w.isascii() and w.isalpha():
                out.append(w.upper())
    return out


def load_dictionary(name):
    """The set of words the setup's "dictionary" names: "scowl-N" (english-, american- and
    british-words of every scowl size up to N) or the path of a word-list file."""
    if name.startswith("scowl-") and name[6:].isdigit():
        size = int(name[6:])
        words = set()
        for s in SCOWL_SIZES:
            if s > size:
                break
            for variant in ("english", "american", "british"):
                path = os.path.join(SCOWL_DIR, f"{variant}-words.{s}")
                if os.path.exists(path):
                    words.update(read_words(path))
        return words
    return set(read_words(name))


def letter_pairs(word):
    """(letter index, count) pairs of a word: its letter multiset."""
    counts = {}
    for ch in word:
        i = ord(ch) - 65
        counts[i] = counts.get(i, 0) + 1
    return tuple(counts.items())


def counts_of(letters):
    """The letter multiset of `letters` as 26 counts."""
    out = [0] * 26
    for ch in letters:
        out[ord(ch) - 65] += 1
    return out


# ---------------------------------------------------------------------------------------------
# Boards: a dict {(row, col): letter}; on the wire, the bounding box as strings

def board_rows(grid):
    rows = [r for r, _ in grid]
    cols = [c for _, c in grid]
    r0, c0 = min(rows), min(cols)
    out = [["."] * (max(cols) - c0 + 1) for _ in range(max(rows) - r0 + 1)]
    for (r, c), ch in grid.items():
        out[r - r0][c - c0] = ch
    return ["".join(row) for row in out]


def board_problem(rows, tiles, words):
    """Why `rows` is not a valid board of exactly `tiles` (a string), or None: the referee's
    checks (shape, letters, connectivity, words, at least one word)."""
    if not rows or len(rows) > MAX_SIDE or not rows[0] or len(rows[0]) > MAX_SIDE:
        return "shape"
    if any(len(r) != len(rows[0]) or any(ch != "." and not "A" <= ch <= "Z" for ch in r)
           for r in rows):
        return "shape"
    cells = {(r, c): ch for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "."}
    if sorted(cells.values()) != sorted(tiles) or not cells:
        return "letters"
    start = next(iter(cells))
    seen, todo = {start}, [start]
    while todo:
        r, c = todo.pop()
        for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    if len(seen) != len(cells):
        return "disconnected"
    runs = 0
    lines = list(rows) + ["".join(col) for col in zip(*rows)]
    for line in lines:
        for run in line.split("."):
            if len(run) >= 2:
                runs += 1
                if run not in words:
                    return "not a word: " + run
    if len(cells) >= 2 and runs == 0:
        return "no word"
    return None


# ---------------------------------------------------------------------------------------------
# The solver

class OutOfTime(Exception):
    pass


class Solver:
    def __init__(self, words, rng):
        self.words = words   # every word (a set), for the perpendicular runs
        self.rng = rng
        self.pairs = {}      # word -> letter_pairs(word), computed on demand
        self.masks = {}      # word -> the set of its letters as 26 bits
        for w in words:
            m = 0
            for ch in w:
                m |= 1 << (ord(ch) - 65)
            self.masks[w] = m

    def forget(self, word):
        """The referee rejected `word`: never use it again."""
        self.words.discard(word)
        self.masks.pop(word, None)

    def formable(self, tiles):
        """[(word, pairs)] for every word that can be made from the letters of `tiles`. Every
        word on a board is made of the player's tiles, so this is all the search ever needs."""
        have = counts_of(tiles)
        avail = 0
        for i, n in enumerate(have):
            if n:
                avail |= 1 << i
        out = []
        for w, m in self.masks.items():
            if m & ~avail or len(w) > len(tiles):
                continue
            p = self.pairs.get(w)
            if p is None:
                p = self.pairs[w] = letter_pairs(w)
            if all(n <= have[i] for i, n in p):
                out.append((w, p))
        return out

    # -- the search --------------------------------------------------------------------------

    def solve(self, tiles, base=None, budget=1.0, interrupted=lambda: False, width=6):
        """A board (a grid dict) of exactly the letters `tiles`, or None. `base`: a valid board
        of a prefix of `tiles` to extend (only the extra tiles are placed on it). `width`: how
        many moves to try at each step (and 6 times as many first words); a wider search finds
        more but takes longer. Raises OutOfTime when `budget` seconds pass or interrupted() says
        the search is moot."""
        self.deadline = time.monotonic() + budget
        self.width = width
        self.interrupted = interrupted
        self.nodes = 0
        cands = [(w, p, None) for w, p in self.formable(tiles)]
        if base:
            rest = counts_of(tiles)
            for ch in base.values():
                rest[ord(ch) - 65] -= 1
            grid = dict(base)
            if sum(rest) == 0:
                return grid
            self.seen = set()
            return grid if self.dfs(grid, rest, self.narrow(cands, rest)) else None
        if len(tiles) == 1:
            return {(0, 0): tiles[0]}
        rest = counts_of(tiles)
        self.seen = set()
        # The first word: every word of the tiles, longest and hardest first.
        firsts = [w for w, p, _ in cands if all(n <= rest[i] for i, n in p)]
        firsts.sort(key=lambda w: -(self.value(w) + self.rng.random()))
        for w in firsts[:6 * width]:
            grid = {(0, c): ch for c, ch in enumerate(w)}
            for ch in w:
                rest[ord(ch) - 65] -= 1
            if self.dfs(grid, rest, self.narrow(cands, rest)):
                return grid
            for ch in w:
                rest[ord(ch) - 65] += 1
        return None

    @staticmethod
    def value(letters):
        return sum(1 + HARD.get(ch, 0) for ch in letters)

    @staticmethod
    def narrow(cands, rest):
        """The candidates that can still be laid across one letter already on the board: words
        made of the remaining letters `rest` plus at most one more. [(word, pairs, missing)],
        missing being the index of the letter the crossing must supply, or None. The remaining
        letters only shrink, so a child node narrows its parent's list."""
        out = []
        for w, p, _ in cands:
            missing = None
            for i, n in p:
                d = n - rest[i]
                if d > 0:
                    if d > 1 or missing is not None:
                        break
                    missing = i
            else:
                out.append((w, p, missing))
        return out

    def dfs(self, grid, rest, narrowed):
        if sum(rest) == 0:
            return True
        self.nodes += 1
        if time.monotonic() > self.deadline or (self.nodes % 8 == 0 and self.interrupted()):
            raise OutOfTime()
        key = frozenset(grid.items())
        if key in self.seen:
            return False
        self.seen.add(key)
        moves = self.moves(grid, rest, narrowed)
        for score, new in moves[:self.width]:
            for cell, ch in new:
                grid[cell] = ch
                rest[ord(ch) - 65] -= 1
            if self.dfs(grid, rest, self.narrow(narrowed, rest)):
                return True
            for cell, ch in new:
                del grid[cell]
                rest[ord(ch) - 65] += 1
        return False

    def moves(self, grid, rest, crossing):
        """Ways to put some remaining letters on the board, best first: [(score, [(cell,
        letter)...])]. A word crossing one letter already there (laid along a line where that
        letter has no neighbours), or one letter touching the board."""
        # Anchors: board letters with a free line through them, by letter.
        anchors = {}
        for (r, c), ch in grid.items():
            for dr, dc in ((0, 1), (1, 0)):
                if (r - dr, c - dc) not in grid and (r + dr, c + dc) not in grid:
                    anchors.setdefault(ch, []).append((r, c, dr, dc))
        rows = [r for r, _ in grid]
        cols = [c for _, c in grid]
        box = (min(rows), max(rows), min(cols), max(cols))
        found = {}
        for w, p, missing in crossing:
            letters = set(w) if missing is None else {chr(65 + missing)}
            for ch in letters:
                for ar, ac, dr, dc in anchors.get(ch, ()):
                    for i, wc in enumerate(w):
                        if wc != ch:
                            continue
                        new = self.place(grid, rest, w, ar - i * dr, ac - i * dc, dr, dc, box)
                        if new:
                            key = tuple(new)
                            if key not in found:
                                found[key] = self.value(ch for _, ch in new)
        # Single letters on empty cells next to the board (hooks, two-letter words).
        spots = {(r + a, c + b) for (r, c) in grid for a, b in ((-1, 0), (1, 0), (0, -1), (0, 1))}
        for cell in spots - grid.keys():
            for i, n in enumerate(rest):
                if n and self.fits(grid, cell, chr(65 + i), box):
                    found[((cell, chr(65 + i)),)] = self.value(chr(65 + i)) - 0.5
        out = [(score + self.rng.random() * 0.9, list(new)) for new, score in found.items()]
        out.sort(key=lambda m: -m[0])
        return out

    def place(self, grid, rest, w, r0, c0, dr, dc, box):
        """The new cells of `w` laid from (r0, c0) along (dr, dc), or None when it does not fit:
        a letter under it differs, it would run into other letters at its ends, it would make a
        perpendicular run that is not a word, it needs letters we do not have, it places
        nothing, or the board would outgrow 32 x 32."""
        n = len(w)
        if (r0 - dr, c0 - dc) in grid or (r0 + n * dr, c0 + n * dc) in grid:
            return None
        new = []
        need = {}
        for j, ch in enumerate(w):
            cell = (r0 + j * dr, c0 + j * dc)
            there = grid.get(cell)
            if there is None:
                new.append((cell, ch))
                need[ch] = need.get(ch, 0) + 1
            elif there != ch:
                return None
        if not new:
            return None
        for ch, k in need.items():
            if rest[ord(ch) - 65] < k:
                return None
        top, bottom, left, right = box
        end_r, end_c = r0 + (n - 1) * dr, c0 + (n - 1) * dc
        if max(bottom, end_r) - min(top, r0) >= MAX_SIDE or \
                max(right, end_c) - min(left, c0) >= MAX_SIDE:
            return None
        pr, pc = dc, dr  # the perpendicular
        for (r, c), ch in new:
            if (r - pr, c - pc) in grid or (r + pr, c + pc) in grid:
                if self.run(grid, r, c, ch, pr, pc) not in self.words:
                    return None
        return new

    def fits(self, grid, cell, ch, box):
        """Whether one letter `ch` on the empty `cell` leaves only words in both directions."""
        r, c = cell
        top, bottom, left, right = box
        if max(bottom, r) - min(top, r) >= MAX_SIDE or max(right, c) - min(left, c) >= MAX_SIDE:
            return False
        for dr, dc in ((0, 1), (1, 0)):
            if (r - dr, c - dc) in grid or (r + dr, c + dc) in grid:
                if self.run(grid, r, c, ch, dr, dc) not in self.words:
                    return False
        return True

    @staticmethod
    def run(grid, r, c, ch, dr, dc):
        """The run through the empty cell (r, c) along (dr, dc) once `ch` is put there."""
        r0, c0 = r, c
        while (r0 - dr, c0 - dc) in grid:
            r0, c0 = r0 - dr, c0 - dc
        out = []
        while True:
            if (r0, c0) == (r, c):
                out.append(ch)
            elif (r0, c0) in grid:
                out.append(grid[(r0, c0)])
            else:
                break
            r0, c0 = r0 + dr, c0 + dc
        return "".join(out)


# ---------------------------------------------------------------------------------------------
# Playing: a reader thread queues the referee's lines; the main thread handles them and solves

class Player:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.inbox = queue.Queue()
        self.tiles = ""        # every tile unlocked so far, in order
        self.config = {}
        self.over = False
        self.solver = None
        self.base = None       # the last board built (a grid dict) and how many tiles it holds
        self.base_k = 0
        self.done_k = 0        # the tile count of the last board sent
        self.invalid = 0       # boards the referee rejected (not stale ones)
        self.muted = False     # stop sending boards (too many rejected: keep out of trouble)

    def log(self, text):
        if self.args.transcript:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()

    def read_stdin(self):
        for line in sys.stdin:
            if line.strip():
                self.inbox.put(line)
        self.inbox.put(None)  # end of input: the referee closed the channel

    def send(self, message):
        line = json.dumps(message, separators=(",", ":"))
        self.log("-> " + line)
        try:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):
            self.over = True

    def handle(self, line):
        """One line from the referee."""
        if line is None:
            self.over = True
            return
        self.log("<- " + line.strip())
        try:
            self.react(*json.loads(line))
        except (ValueError, TypeError, IndexError, KeyError, AttributeError):
            pass  # not what the protocol says: not for us to judge; keep playing

    def react(self, kind, args):
        if kind == "setup":
            self.config, letters = args
            self.tiles = "".join(letters)
        elif kind == "new-tiles":
            self.tiles += "".join(args[0])
        elif kind == "verdict":
            k, reason = args
            if reason != "accepted" and not reason.startswith("stale"):
                # Our dictionary and the referee's disagree (or a bug): drop the word it names,
                # forget the board and build again; stop sending boards before it ejects us.
                self.invalid += 1
                if "not a word: " in reason and self.solver:
                    self.solver.forget(reason.split("not a word: ")[1].split(" ")[0])
                self.base, self.base_k, self.done_k = None, 0, 0
                if self.invalid * 2 >= self.config.get("max_invalid", 100):
                    self.muted = True
        elif kind == "win":
            self.over = True
        elif kind == "ejected":  # the referee's last word: why this bot is out
            sys.stderr.write("ejected: {verdict} during {call}: {detail}\n".format(**args[0]))
            sys.stderr.flush()
            self.over = True

    def pump(self):
        """Handles every line already queued, without waiting."""
        while True:
            try:
                line = self.inbox.get_nowait()
            except queue.Empty:
                return
            self.handle(line)

    def solve(self, tiles, tries):
        """A board of exactly `tiles`, or None (no luck within the budget, or new tiles or the
        end arrived meanwhile). After `tries` failures the search widens."""
        k = len(tiles)
        width = min(6 + 2 * tries, 24)
        moot = lambda: (self.pump(), self.over or len(self.tiles) != k)[1]
        budget = self.args.budget
        try:
            if self.base and self.base_k < k:
                try:
                    grid = self.solver.solve(tiles, self.base, budget * 0.3, moot, width)
                    if grid:
                        return grid
                except OutOfTime:
                    if moot():
                        return None
            return self.solver.solve(tiles, None, budget, moot, width)
        except OutOfTime:
            return None

    def play(self):
        threading.Thread(target=self.read_stdin, daemon=True).start()
        self.handle(self.inbox.get())  # the setup
        try:
            words = load_dictionary(self.config.get("dictionary", "scowl-70"))
        except OSError as e:
            sys.stderr.write(f"speed_scrabble_bot: no dictionary ({e}); not playing\n")
            words = None
        if words:
            self.solver = Solver(words, self.rng)
        tries = 0  # failed searches for the current tile count
        while not self.over:
            self.pump()
            tiles = self.tiles
            k = len(tiles)
            if self.over:
                break
            if not self.solver or self.muted or k <= self.done_k or tries >= 30:
                self.handle(self.inbox.get())  # nothing to do until the referee says something
                if len(self.tiles) != k:
                    tries = 0
                continue
            started = time.monotonic()
            grid = self.solve(tiles, tries)
            if len(self.tiles) != k or self.over:
                tries = 0
                continue  # overtaken: more tiles (or the end) arrived while searching
            if grid is None:
                tries += 1
                self.log(f"# no {k}-board found ({tries} tries)")
                continue
            rows = board_rows(grid)
            problem = board_problem(rows, tiles, self.solver.words)
            if problem:  # a bug in the search: never send a board we know is wrong
                sys.stderr.write(f"speed_scrabble_bot: built a bad board {rows}: {problem}\n")
                tries += 1
                continue
            self.log(f"# {k}-board in {time.monotonic() - started:.3f} s")
            self.send(["submit", [rows]])
            self.base, self.base_k, self.done_k = grid, k, k
            tries = 0


def main():
    ap = argparse.ArgumentParser(description="A Speed Scrabble player over stdin/stdout.")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds per search attempt")
    ap.add_argument("--seed", type=int, default=2024, help="seed of the search's tie-breaks")
    ap.add_argument("--transcript", action="store_true", help="log every line to stderr")
    Player(ap.parse_args()).play()


if __name__ == "__main__":
    main()
