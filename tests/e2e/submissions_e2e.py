#!/usr/bin/env python3
"""Authors and their bots from the command line (docs/competition.md): `author add` prints a
token once (or writes it to a 0600 file) and the store holds no copy of it; names and roles are
checked before anything is made; `author list` and `author revoke`; `bot add --author` makes the
bot's name the author's: another author, or an author on the organizer's bot, is refused and
nothing is stored, a revoked or unknown author is refused, the organizer may add to any name."""
import argparse
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from procs import Tally  # noqa: E402

ARGS = None
TALLY = Tally()


def arbiter(*args, timeout=300):
    return subprocess.run([ARGS.arbiter, *args], capture_output=True, text=True, timeout=timeout)


def kit_bot(work, name, folder):
    """The Python battleship kit bot under another name, in a folder of its own."""
    d = os.path.join(work, folder)
    shutil.copytree(os.path.join(ROOT, "bots", "kits", "python", "battleship"), d)
    with open(os.path.join(d, "arbiter-bot.toml"), "w") as f:
        f.write(f'name = "{name}"\ngame = "battleship"\nlanguage = "python"\n'
                'run = ["python3", "bot.py"]\n')
    return d


def one_error_line(r, code, words):
    """Exit `code` and one error line saying `words` (bot add may say what it read first)."""
    lines = r.stderr.strip().splitlines()
    problems = []
    if r.returncode != code:
        problems.append(f"exit {r.returncode}, expected {code}")
    errors = [l for l in lines if l.startswith("arbiter: ")]
    if len(errors) != 1 or errors[0] != lines[-1] or words not in errors[0]:
        problems.append(f"stderr has not one error line saying {words!r}: {r.stderr.strip()[:300]!r}")
    return problems


def blobs(db):
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM blobs").fetchone()[0]


def authors(work, store, db):
    problems = []
    ann = arbiter("author", "add", "ann", "--store", store)
    token = ann.stdout.strip().rsplit(" ", 1)[-1]
    if ann.returncode != 0 or not token.startswith("ann.") or len(token) != 68:
        problems.append(f"author add: exit {ann.returncode}: {ann.stdout!r} {ann.stderr!r}")
    tok_file = os.path.join(work, "org.token")
    org = arbiter("author", "add", "org", "--role", "organizer", "--token-file", tok_file,
                  "--store", store)
    if org.returncode != 0 or "ann." in org.stdout or not os.path.exists(tok_file):
        problems.append(f"author add --token-file: {org.stdout!r} {org.stderr!r}")
    else:
        mode = stat.S_IMODE(os.stat(tok_file).st_mode)
        if mode != 0o600:
            problems.append(f"the token file has mode {oct(mode)}")
        if not open(tok_file).read().startswith("org."):
            problems.append("the token file holds no org token")
    # The store holds neither token (only salted hashes).
    with sqlite3.connect(db) as conn:
        rows = " ".join(str(r) for r in conn.execute("SELECT * FROM authors"))
    for t in (token[4:], open(tok_file).read().strip()[4:] if os.path.exists(tok_file) else ""):
        if t and t in rows:
            problems.append("a token's secret is in the store")
    problems += one_error_line(arbiter("author", "add", "ann", "--store", store), 2, "exists already")
    fresh = os.path.join(work, "fresh.db")
    problems += one_error_line(arbiter("author", "add", "a.b", "--store", "sqlite:" + fresh), 2,
                               "1 to 20 ASCII letters or digits")
    bad_role = arbiter("author", "add", "zed", "--role", "admin", "--store", "sqlite:" + fresh)
    if bad_role.returncode != 2:
        problems.append(f"--role admin: exit {bad_role.returncode}")
    if os.path.exists(fresh):
        problems.append("a refused author add made a store")
    listed = arbiter("author", "list", "--store", store)
    if listed.returncode != 0 or "ann" not in listed.stdout or "organizer" not in listed.stdout:
        problems.append(f"author list: {listed.stdout!r}")
    TALLY.report("authors are made once, with a token shown once", problems,
                 f"token {token[:8]}..., file mode 0600, none in the store")
    return token


def ownership(work, store, db):
    problems = []
    arbiter("author", "add", "ben", "--store", store)
    gate = ["--matches", "2"]
    a1 = arbiter("bot", "add", kit_bot(work, "annbot", "a1"), "--author", "ann", *gate, "--store", store)
    if a1.returncode != 0 or "annbot@1" not in a1.stdout:
        problems.append(f"ann's first version: exit {a1.returncode}: {a1.stdout!r} {a1.stderr[-300:]!r}")
    stored = blobs(db)
    stolen = arbiter("bot", "add", kit_bot(work, "annbot", "b1"), "--author", "ben", *gate,
                     "--store", store)
    problems += one_error_line(stolen, 2, "belongs to another author")
    if blobs(db) != stored:
        problems.append("a refused version's files were stored")
    house = arbiter("bot", "add", kit_bot(work, "house", "h1"), *gate, "--store", store)
    if house.returncode != 0:
        problems.append(f"the organizer's bot: exit {house.returncode}: {house.stderr[-300:]!r}")
    claimed = arbiter("bot", "add", kit_bot(work, "house", "h2"), "--author", "ann", *gate,
                      "--store", store)
    problems += one_error_line(claimed, 2, "belongs to the organizer")
    by_org = arbiter("bot", "add", kit_bot(work, "annbot", "o1"), *gate, "--store", store)
    if by_org.returncode != 0 or "annbot@2" not in by_org.stdout:
        problems.append(f"the organizer adding to ann's bot: {by_org.stdout!r} {by_org.stderr[-300:]!r}")
    problems += one_error_line(arbiter("bot", "add", kit_bot(work, "zbot", "z1"), "--author", "zed",
                                       *gate, "--store", store), 2, "no author zed")
    versions = arbiter("bot", "versions", "annbot", "--store", store).stdout.splitlines()
    if len(versions) != 2:
        problems.append(f"annbot has {len(versions)} versions, expected 2: {versions}")
    shown = arbiter("bot", "show", "annbot@2", "--store", store).stdout
    if "author:   ann" not in shown:
        problems.append(f"bot show does not name ann: {shown!r}")
    listed = arbiter("author", "list", "--store", store).stdout
    if not any(l.startswith("ann ") and l.rstrip().endswith("annbot") for l in listed.splitlines()):
        problems.append(f"author list does not give ann's bots: {listed!r}")
    TALLY.report("a bot's name belongs to its first author", problems,
                 "ben and ann refused on others' names; the organizer may add")


def revoking(work, store, token):
    problems = []
    r = arbiter("author", "revoke", "ann", "--store", store)
    if r.returncode != 0 or "revoked" not in r.stdout:
        problems.append(f"revoke: exit {r.returncode}: {r.stdout!r} {r.stderr!r}")
    problems += one_error_line(arbiter("author", "revoke", "ann", "--store", store), 2,
                               "revoked already")
    problems += one_error_line(arbiter("author", "revoke", "nobody", "--store", store), 2,
                               "no author nobody")
    problems += one_error_line(arbiter("bot", "add", kit_bot(work, "annbot", "a3"), "--author", "ann",
                                       "--matches", "2", "--store", store), 2, "was revoked")
    TALLY.report("a revoked author adds nothing more", problems, "")


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--arbiter", required=True)
    ARGS = p.parse_args()
    ARGS.arbiter = os.path.abspath(ARGS.arbiter)
    work = tempfile.mkdtemp(prefix="arbiter-submissions-")
    os.environ["XDG_CACHE_HOME"] = os.path.join(work, "xdg")
    db = os.path.join(work, "league.db")
    store = "sqlite:" + db
    state = {}
    checks = [lambda: state.update(token=authors(work, store, db)),
              lambda: ownership(work, store, db),
              lambda: revoking(work, store, state.get("token", ""))]
    return TALLY.run_all(checks, tmp=work)


if __name__ == "__main__":
    sys.exit(main())
