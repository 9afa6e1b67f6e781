#!/usr/bin/env python3
"""Every file the repository's comments, docs and build files name is there: a path into one of
our folders (src/, tests/, docs/, ..., or an include root such as core/ or arena/), read from the
repository's root, src/, tests/ or the naming file's folder; a bare C++ file name (foo.h,
bar.cpp) outside an #include, somewhere in the repository; and in a README under src/ or tests/,
in its own folder. Prints each stale reference as
"FILE: NAME" and exits 1 if there is one. Names meant not to exist (examples of what a reader
would write) are listed in EXAMPLES below.

Usage: check_references.py REPO
"""
import pathlib
import re
import subprocess
import sys

OURS = ("src/", "tests/", "docs/", "scripts/", "bench/", "web/", "bots/", "examples/", "fuzz/",
        "cmake/", "core/", "referee/", "remote/", "lua/", "games/", "arena/", "tournament/",
        "server/", "apps/", "league/")
# Names that stand for what a reader writes, or that a test plants on purpose.
EXAMPLES = {"games/mygame/game.h", "web/games/mygame.js", "bots/python/no_such_bot.py",
            "src/viewer/page.cpp", "mygame.h", "foo.h", "bar.cpp"}
PATH = re.compile(r"(?<![\w./-])((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_-]+\.(?:h|cpp|md|py|sh|toml|js|css|"
                  r"html|lua|awk|cmake))(?![\w/])")
BARE = re.compile(r"(?<![\w./*-])([A-Za-z0-9][A-Za-z0-9_]*\.(?:h|cpp))(?![\w/]|\.\w)")


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    files = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
    names = {pathlib.Path(f).name for f in files}
    stale = []
    for f in files:
        if f.startswith("tests/data/") or not re.search(r"\.(h|cpp|md|txt|py|sh|cmake)$|CMakeLists", f):
            continue
        here = (root / f).parent
        seen = set()
        for line in (root / f).read_text(errors="replace").splitlines():
            if line.lstrip().startswith("#include"):
                continue
            for m in PATH.finditer(line):
                ref = m.group(1)
                if ref in EXAMPLES or not ref.startswith(OURS) or ref in seen:
                    continue
                seen.add(ref)
                if not any((base / ref).exists() for base in (root, root / "src", here, root / "tests")):
                    stale.append(f"{f}: {ref}")
            # A folder's README names its own files; code and build files name files anywhere.
            readme = f.endswith("README.md") and f.startswith(("src/", "tests/"))
            if f.endswith((".h", ".cpp")) or "CMakeLists" in f or readme:
                for m in BARE.finditer(line):
                    ref = m.group(1)
                    if ref in EXAMPLES or ref in seen:
                        continue
                    if (readme and (here / ref).exists()) or (not readme and ref in names):
                        continue
                    seen.add(ref)
                    stale.append(f"{f}: {ref}")
    for s in stale:
        print(s)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
