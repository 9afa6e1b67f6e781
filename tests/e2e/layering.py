#!/usr/bin/env python3
"""The layering check (scripts/check_layering.py) passes on the tree as it is and refuses every
include that points up or sideways, planted one at a time in a copy of the tree: a game including
the referee, the arena, another game or <thread>; core including the referee; the referee
including a transport; remote including a game; lua including a game; arena including the
tournament; the tournament including the league; a bot including the arena; a new folder under src/ that is in no layer."""
import argparse
import pathlib
import shutil
import subprocess
import sys
import tempfile

PLANTS = [
    ("src/games/q/state.h", '#include "arena/registry.h"', "games/q may not include arena/registry.h"),
    ("src/games/q/state.cpp", '#include "referee/turn_based.h"', "games/q may not include referee/turn_based.h"),
    ("src/games/battleship/state.cpp", '#include "games/q/tile.h"', "games/battleship may not include games/q/tile.h"),
    ("src/games/dominosa/solver.h", "#include <thread>", "games/dominosa is rules code and may not include <thread>"),
    ("src/games/abalone/world.cpp", "#include <sys/socket.h>", "may not include <sys/socket.h>"),
    ("src/core/json.h", '#include "referee/match.h"', "core may not include referee/match.h"),
    ("src/referee/match.cpp", '#include "remote/tcp.h"', "referee may not include remote/tcp.h"),
    ("src/remote/tcp.cpp", '#include "games/q/state.h"', "remote may not include games/q/state.h"),
    ("src/lua/sandbox.h", '#include "games/abalone/world.h"', "lua may not include games/abalone/world.h"),
    ("src/arena/seating.cpp", '#include "tournament/store.h"', "arena may not include tournament/store.h"),
    ("src/tournament/worker.cpp", '#include "league/bots.h"', "tournament may not include league/bots.h"),
    ("bots/cpp/q_bot.cpp", '#include "arena/registry.h"', "bots may not include arena/registry.h"),
]


def run(root: pathlib.Path):
    return subprocess.run([sys.executable, str(root / "scripts" / "check_layering.py"), str(root)],
                          capture_output=True, text=True, timeout=120)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", required=True, type=pathlib.Path)
    args = ap.parse_args()
    failures = []
    with tempfile.TemporaryDirectory(prefix="arbiter-layering-") as tmp:
        root = pathlib.Path(tmp)
        for d in ("src", "bots", "scripts"):
            shutil.copytree(args.root / d, root / d)
        clean = run(root)
        print(("ok   " if clean.returncode == 0 else "FAIL ") + "the tree as it is passes")
        if clean.returncode != 0:
            failures.append("clean tree: " + clean.stderr)
        for rel, line, expected in PLANTS:
            path = root / rel
            original = path.read_text()
            path.write_text(original + "\n" + line + "\n")
            r = run(root)
            ok = r.returncode == 1 and expected in r.stderr and rel in r.stderr
            print(("ok   " if ok else "FAIL ") + f"{rel}: {line} is refused")
            if not ok:
                failures.append(f"{rel}: {line}: exit {r.returncode}: {r.stderr.strip()}")
            path.write_text(original)
        stray = root / "src" / "viewer" / "page.cpp"
        stray.parent.mkdir()
        stray.write_text('#include "core/json.h"\n')
        r = run(root)
        ok = r.returncode == 1 and "src/viewer/page.cpp: the folder is in no layer" in r.stderr
        print(("ok   " if ok else "FAIL ") + "a folder in no layer is refused")
        if not ok:
            failures.append("stray folder: " + r.stderr)
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
