#!/usr/bin/env python3
"""Stored bots end to end, through the CLI and real processes:
  kits     every starter kit (bots/kits/LANG/GAME) added with `bot add`: built behind the walls,
           through the gate (bot check), active;
  zoo      five broken bots (tests/misbehaving/bots) each fail the one check they should, by name;
  crafted  hostile uploads (traversal, absolute paths, links out, devices, set-uid, duplicates,
           non-UTF-8 names, bombs, too many files, bad manifests) refused in one line, exit 2,
           nothing stored and nothing written outside;
  builds   a build that runs forever, one that prints 100 MB and one that tries the network end
           build-failed with the reason within the build cap plus 2 s;
  ladder   a round robin of the seven Q kits played by two worker processes started in another
           directory (own caches): every match stored once, each entrant pinned to its version
           and hash.
With --postgres-from-env the kits and the round robin run on that PostgreSQL server too."""
import argparse
import io
import json
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from procs import Tally  # noqa: E402

ARGS = None
TALLY = Tally()
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LANGUAGES = ["python", "cpp", "java", "javascript", "rust", "go", "racket"]
Q_KITS = {"python": "pyq", "cpp": "cppq", "java": "javaq", "javascript": "jsq", "rust": "rustq",
          "go": "goq", "racket": "rktq"}


def arbiter(*args, cwd=None, timeout=600):
    return subprocess.run([ARGS.arbiter, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd)


def add_kits(store, work):
    """Every kit through `bot add`; the Q kits' versions by name."""
    for lang in LANGUAGES:
        for game in ("q", "battleship"):
            path = os.path.join(ROOT, "bots", "kits", lang, game)
            r = arbiter("bot", "add", path, "--store", store, "--bot-cache",
                        os.path.join(work, "cache-add"), cwd=work)
            problems = []
            if r.returncode != 0:
                problems.append(f"exit {r.returncode}: {r.stdout[-600:]} {r.stderr[-300:]}")
            if not re.search(r"@\d+ sha256:[0-9a-f]{64} active", r.stdout):
                problems.append(f"not active: {r.stdout.strip()[-300:]}")
            if "every check passed" not in r.stdout:
                problems.append("the gate did not say every check passed")
            TALLY.report(f"kit {lang}/{game} on {store.split(':')[0]}", problems,
                         r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "")


def zoo():
    expected = {"silent": "starts", "garbage": "answers", "cheater": "legal", "hog": "limits",
                "lingerer": "exits"}
    for bot, check in expected.items():
        path = os.path.join(ROOT, "tests", "misbehaving", "bots", bot)
        # The hog's 1.5 GiB takes a while to fill on a busy machine: a longer call, so that
        # what stops it is the memory cap and not the clock.
        per_call = "5" if bot == "hog" else "1"
        r = arbiter("bot", "check", path, "--matches", "2", "--per-call", per_call)
        fails = re.findall(r"^FAIL (\w+)", r.stdout, re.M)
        problems = []
        if r.returncode != 1:
            problems.append(f"exit {r.returncode}, expected 1: {r.stderr.strip()[-300:]}")
        if fails != [check]:
            problems.append(f"failed {fails}, expected exactly [{check}]: {r.stdout[-500:]}")
        TALLY.report(f"zoo {bot} fails {check}", problems,
                     next((line for line in r.stdout.splitlines() if line.startswith("FAIL")), ""))


MANIFEST = b'name = "evil"\ngame = "battleship"\nrun = ["python3", "bot.py"]\n'


def tar_bytes(entries, mode="w:gz"):
    """entries: (TarInfo fields dict, data bytes or None)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode, format=tarfile.GNU_FORMAT) as t:
        for info, data in entries:
            ti = tarfile.TarInfo(info.pop("name"))
            for k, v in info.items():
                setattr(ti, k, v)
            if data is not None:
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
            else:
                t.addfile(ti)
    return buf.getvalue()


def manifest_entry(text=MANIFEST):
    return ({"name": "arbiter-bot.toml"}, text)


def zip_bytes(files):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            z.writestr(name, data)
    return buf.getvalue()


def sparse_tar():
    """A tar holding a GNU sparse file (a 250 MiB hole), as `tar --sparse` writes it."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "arbiter-bot.toml"), "wb") as f:
            f.write(MANIFEST)
        with open(os.path.join(d, "hole"), "wb") as f:
            f.truncate(250 << 20)
        out = os.path.join(d, "..", os.path.basename(d) + ".tar")
        subprocess.run(["tar", "--sparse", "-cf", out, "-C", d, "."], check=True)
        with open(out, "rb") as f:
            data = f.read()
        os.remove(out)
        return data


def crafted(work):
    outside = os.path.join(work, "escape.txt")
    absolute = os.path.join(work, "abs-escape.txt")
    zeros = b"\0" * (20 << 20)
    cases = {
        "no manifest": tar_bytes([({"name": "bot.py"}, b"print(1)\n")]),
        "unknown game": tar_bytes([manifest_entry(b'name = "evil"\ngame = "chess"\nrun = ["x"]\n')]),
        "no run command": tar_bytes([manifest_entry(b'name = "evil"\ngame = "q"\n')]),
        "bad TOML": tar_bytes([manifest_entry(b'name = "evil\ngame = q\n')]),
        "a run word climbing out": tar_bytes(
            [manifest_entry(b'name = "evil"\ngame = "q"\nrun = ["python3", "../other/bot.py"]\n')]),
        "over the size cap": tar_bytes([manifest_entry(), ({"name": "big"}, os.urandom(4096))]),
        "a gzip bomb": tar_bytes([manifest_entry(), ({"name": "zeros"}, zeros)]),
        "a zip bomb": zip_bytes([("arbiter-bot.toml", MANIFEST), ("zeros", zeros)]),
        "too many files": tar_bytes([manifest_entry()] +
                                    [({"name": f"f{i}"}, b"") for i in range(10_001)]),
        "a .. path": tar_bytes([manifest_entry(), ({"name": "../escape.txt"}, b"x")]),
        "a .. path in a zip": zip_bytes([("arbiter-bot.toml", MANIFEST), ("../escape.txt", b"x")]),
        "an absolute path": tar_bytes([manifest_entry(), ({"name": absolute}, b"x")]),
        "a symlink out": tar_bytes([manifest_entry(), ({"name": "out", "type": tarfile.SYMTYPE,
                                                        "linkname": "../../../etc/passwd"}, None)]),
        "a write through a symlink": tar_bytes([
            manifest_entry(), ({"name": "lnk", "type": tarfile.SYMTYPE, "linkname": "."}, None),
            ({"name": "lnk/escape.txt"}, b"x")]),
        "a hard link out": tar_bytes([manifest_entry(), ({"name": "pw", "type": tarfile.LNKTYPE,
                                                          "linkname": "/etc/passwd"}, None)]),
        "a device": tar_bytes([manifest_entry(), ({"name": "null", "type": tarfile.CHRTYPE,
                                                   "devmajor": 1, "devminor": 3}, None)]),
        "a fifo": tar_bytes([manifest_entry(), ({"name": "pipe", "type": tarfile.FIFOTYPE}, None)]),
        "a set-uid file": tar_bytes([manifest_entry(), ({"name": "suid", "mode": 0o4755}, b"x")]),
        "a duplicate name": tar_bytes([manifest_entry(), ({"name": "a"}, b"1"), ({"name": "a"}, b"2")]),
        "a non-UTF-8 name": tar_bytes([manifest_entry(),
                                       ({"name": b"\xff\xfe.txt".decode("utf-8", "surrogateescape")}, b"x")]),
        "not an archive": b"this is not an archive at all\n" * 10,
        # Found by the red-team pass on stored bots:
        "a name no ustar header holds": tar_bytes([manifest_entry(), ({"name": "B" * 200}, b"x")]),
        "a link out once the top directory is taken off": tar_bytes([
            ({"name": "top/arbiter-bot.toml"}, MANIFEST),
            ({"name": "top/up", "type": tarfile.SYMTYPE, "linkname": ".."}, None)]),
        "hard links to one file of zeros": tar_bytes(
            [manifest_entry(), ({"name": "big0"}, b"\0" * (1000 << 10))] +
            [({"name": f"big{i}", "type": tarfile.LNKTYPE, "linkname": "big0"}, None)
             for i in range(1, 255)]),
        "a sparse file": sparse_tar(),
    }
    store_file = os.path.join(work, "crafted.db")
    store = "sqlite:" + store_file
    arbiter("bot", "list", "--store", store)  # nothing there yet: refused, creates nothing
    for name, data in cases.items():
        path = os.path.join(work, "upload" + (".zip" if data.startswith(b"PK") else ".tar.gz"))
        with open(path, "wb") as f:
            f.write(data)
        before = set(os.listdir(work))
        extra = ["--max-size", "2K"] if name == "over the size cap" else []
        r = arbiter("bot", "add", path, "--store", store, *extra, cwd=work)
        problems = []
        lines = r.stderr.strip().splitlines()
        errors = [line for line in lines if line.startswith("arbiter:")]
        if r.returncode != 2:
            problems.append(f"exit {r.returncode}, expected 2: {r.stdout} {r.stderr}")
        if len(errors) != 1:
            problems.append(f"{len(errors)} error lines: {r.stderr!r}")
        for path_out in (outside, absolute, "/etc/escape.txt"):
            if os.path.exists(path_out):
                problems.append(f"{path_out} was written")
                os.remove(path_out)
        new = set(os.listdir(work)) - before - {"crafted.db", "crafted.db-wal", "crafted.db-shm"}
        if new:
            problems.append(f"new files beside the upload: {sorted(new)}")
        if os.path.exists(store_file):
            db = sqlite3.connect(store_file)
            for table in ("blobs", "bot_versions"):
                n = db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                if n:
                    problems.append(f"{n} rows stored in {table}")
            db.close()
        TALLY.report(f"crafted: {name}", problems, errors[0][:150] if errors else "")


def gate(work):
    """The gate's time cap, what it lets play, and a bot that packs far beyond the ratio cap."""
    store = "sqlite:" + os.path.join(work, "gate.db")
    slow = os.path.join(work, "slowbot")
    os.makedirs(slow)
    with open(os.path.join(ROOT, "bots", "kits", "python", "battleship", "bot.py")) as f:
        source = f.read()
    with open(os.path.join(slow, "bot.py"), "w") as f:
        f.write(source.replace("        print(json.dumps(answer), flush=True)",
                               "        __import__('time').sleep(1.5)\n"
                               "        print(json.dumps(answer), flush=True)"))
    with open(os.path.join(slow, "arbiter-bot.toml"), "w") as f:
        f.write('name = "slow"\ngame = "battleship"\nrun = ["python3", "bot.py"]\n')
    start = time.monotonic()
    r = arbiter("bot", "add", slow, "--store", store, "--check-time", "4", cwd=work)
    took = time.monotonic() - start
    problems = []
    if r.returncode != 1 or "check-failed: answers: the check took over 4 s" not in r.stdout:
        problems.append(f"exit {r.returncode}: {r.stdout[-400:]}")
    if took > 4 + 5:
        problems.append(f"took {took:.1f} s")
    play = arbiter("play", "battleship", "-p", "a:bot:slow@1", "-p", "b:hunt", "--store", store)
    if play.returncode != 2 or "cannot play: it is check-failed" not in play.stderr:
        problems.append(f"a check-failed version played: {play.returncode} {play.stderr[-200:]}")
    TALLY.report("the gate stops at its time cap; a failed version never plays", problems,
                 f"{took:.1f} s")

    # A version left in "checking" (its bot add was killed in the gate) does not play either.
    kit = os.path.join(ROOT, "bots", "kits", "python", "battleship")
    r = arbiter("bot", "add", kit, "--store", store, "--matches", "2", cwd=work)
    db = sqlite3.connect(os.path.join(work, "gate.db"))
    db.execute("UPDATE bot_versions SET status = 'checking' WHERE name = 'pyship'")
    db.commit()
    db.close()
    play = arbiter("play", "battleship", "-p", "a:bot:pyship@1", "-p", "b:hunt", "--store", store)
    problems = []
    if r.returncode != 0:
        problems.append(f"the kit was not added: {r.stdout[-300:]}")
    if play.returncode != 2 or "it is checking" not in play.stderr:
        problems.append(f"a version in checking played: {play.returncode} {play.stderr[-200:]}")
    TALLY.report("a version that never passed the gate does not play", problems, "refused")

    # Zeros compress far beyond the ratio cap; stored whole, they play.
    padded = os.path.join(work, "padded")
    shutil.copytree(kit, padded)
    with open(os.path.join(padded, "table.bin"), "wb") as f:
        f.write(b"\0" * (3 << 20))
    with open(os.path.join(padded, "arbiter-bot.toml"), "w") as f:
        f.write('name = "padded"\ngame = "battleship"\nrun = ["python3", "bot.py"]\n')
    r = arbiter("bot", "add", padded, "--store", store, "--matches", "2", cwd=work)
    play = arbiter("play", "battleship", "-p", "a:bot:padded", "-p", "b:hunt", "--store", store)
    problems = []
    if r.returncode != 0 or " active" not in r.stdout:
        problems.append(f"not active: {r.stdout[-300:]} {r.stderr[-300:]}")
    if play.returncode != 0:
        problems.append(f"does not play: {play.stderr[-300:]}")
    TALLY.report("a bot of 3 MiB of zeros is stored whole and plays", problems, "active, played")


def builds(work):
    cases = {
        "runs forever": (['sh', '-c', 'while :; do :; done'], 5, r"timed out after 5 s"),
        "prints 100 MB": (['sh', '-c', "head -c 100000000 /dev/zero | tr '\\\\0' x"], 300,
                          r"output-limit"),
        "tries the network": (["python3", "-c", "import socket; socket.create_connection(("
                               "'1.1.1.1', 80), timeout=3)"], 300, r"exit 1.*(unreachable|Network|refused|timed out)"),
    }
    store = "sqlite:" + os.path.join(work, "builds.db")
    for number, (name, (command, cap, reason)) in enumerate(cases.items()):
        bot = os.path.join(work, "build-" + name.replace(" ", "-"))
        os.makedirs(bot)
        with open(os.path.join(bot, "arbiter-bot.toml"), "w") as f:
            f.write(f'name = "build{number}"\ngame = "battleship"\n'
                    f"build = {json.dumps(command)}\nrun = [\"./bot\"]\n")
        start = time.monotonic()
        r = arbiter("bot", "add", bot, "--store", store, "--build-time", str(cap), cwd=work)
        took = time.monotonic() - start
        problems = []
        if r.returncode != 1 or "build-failed" not in r.stdout:
            problems.append(f"exit {r.returncode}: {r.stdout} {r.stderr[-300:]}")
        if not re.search(reason, r.stdout):
            problems.append(f"the reason does not match /{reason}/: {r.stdout.strip()}")
        if took > (cap if name == "runs forever" else 10) + 2:
            problems.append(f"took {took:.1f} s")
        TALLY.report(f"build that {name}", problems, f"{took:.1f} s: {r.stdout.strip()[:160]}")


def round_robin(store, work):
    elsewhere = os.path.join(work, "elsewhere")
    os.makedirs(elsewhere, exist_ok=True)
    players = []
    for lang, name in Q_KITS.items():
        players += ["-p", f"{name}:bot:{name}"]
    r = arbiter("tournament", "create", "--game", "q", *players, "--store", store,
                "--name", "kits", cwd=work)
    m = re.search(r"tournament (\d+)", r.stdout + r.stderr)
    if r.returncode != 0 or not m:
        TALLY.report(f"round robin on {store.split(':')[0]}", [f"create: {r.stdout} {r.stderr}"], "")
        return
    tid = m.group(1)
    workers = [subprocess.Popen([ARGS.arbiter, "worker", "--store", store, "--tournament", tid,
                                 "--until-finished", "--workers", "1", "--bot-cache",
                                 os.path.join(elsewhere, f"cache{i}")],
                                cwd=elsewhere, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True) for i in range(2)]
    outs = [w.communicate(timeout=900) for w in workers]
    problems = [f"worker exit {w.returncode}: {o[1][-300:]}" for w, o in zip(workers, outs)
                if w.returncode != 0]
    status = arbiter("tournament", "status", tid, "--store", store).stdout
    done = re.search(r"(\d+)/(\d+)\s+done", status)
    if not done or done.group(1) != done.group(2) or done.group(2) != "42":
        problems.append(f"status: {status.strip()}")
    if "duplicate" in status and not re.search(r"\(0 duplicate", status):
        problems.append(f"duplicates: {status.strip()}")
    rows = arbiter("tournament", "results", tid, "--matches", "--store", store).stdout
    if rows.count("\n") != 43:
        problems.append(f"{rows.count(chr(10)) - 1} result rows")
    played = [o[0] for o in outs]
    if not all(re.search(r"played [1-9]\d* matches", p) for p in played):
        problems.append(f"a worker played nothing: {played}")
    printed = arbiter("tournament", "results", tid, "--store", store, "--print-json").stdout
    try:
        results = json.loads(printed)
        bots = sorted(row["bot"] for row in results["standings"])
        want = sorted(f"bot:{n}@1" for n in Q_KITS.values())
        if bots != want:
            problems.append(f"entrants {bots}, expected {want}")
        if results["errors"] or results["damaged"] or results["done"] != 42:
            problems.append(f"{results['done']} done, {results['errors']} errors, "
                            f"{results['damaged']} damaged")
        pinned = [e for e in results["spec"]["players"]
                  if re.fullmatch(r"sha256:[0-9a-f]{64}", e.get("artifact", ""))]
        if len(pinned) != 7:
            problems.append(f"{len(pinned)} entrants pinned to a hash")
    except (ValueError, KeyError, TypeError) as e:
        problems.append(f"results --print-json: {e}: {printed[:200]}")
    if "bot:pyq@1" not in rows or "--store" not in rows:
        problems.append("the reproduce commands do not name bot:NAME@V and the store")
    for i in range(2):
        cache = os.path.join(elsewhere, f"cache{i}")
        if not os.path.isdir(cache) or stat.S_IMODE(os.stat(cache).st_mode) != 0o700:
            problems.append(f"{cache} is not a private cache")
    TALLY.report(f"round robin of the seven Q kits on {store.split(':')[0]}, two workers elsewhere",
                 problems, status.strip().splitlines()[0] if status.strip() else "")


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--arbiter", required=True)
    p.add_argument("--postgres-from-env", action="store_true",
                   help="also on the server in ARBITER_TEST_POSTGRES_URL (scripts/with_postgres.sh)")
    p.add_argument("--only", help="one part: kits, zoo, crafted, gate, builds, ladder")
    ARGS = p.parse_args()
    ARGS.arbiter = os.path.abspath(ARGS.arbiter)
    with tempfile.TemporaryDirectory(prefix="arbiter-bots-") as work:
        os.environ["XDG_CACHE_HOME"] = os.path.join(work, "xdg")
        if ARGS.postgres_from_env:
            url = os.environ.get("ARBITER_TEST_POSTGRES_URL")
            if not url:
                sys.exit("--postgres-from-env: ARBITER_TEST_POSTGRES_URL is not set")
            add_kits(url, work)
            round_robin(url, work)
        else:
            parts = [ARGS.only] if ARGS.only else ["zoo", "crafted", "gate", "builds", "kits",
                                                   "ladder"]
            store = "sqlite:" + os.path.join(work, "league.db")
            for part in parts:
                if part == "zoo":
                    zoo()
                elif part == "crafted":
                    crafted(work)
                elif part == "builds":
                    builds(work)
                elif part == "gate":
                    gate(work)
                elif part == "kits":
                    add_kits(store, work)
                elif part == "ladder":
                    if "kits" not in parts:
                        add_kits(store, work)
                    round_robin(store, work)
    print(f"{TALLY.passed} passed, {TALLY.failed} failed")
    return 1 if TALLY.failed else 0


if __name__ == "__main__":
    sys.exit(main())
