#!/usr/bin/env python3
"""The unity-build check (scripts/check_unity.py) passes on the tree as it is and refuses, planted
one at a time in a copy of the tree, a helper in a file's anonymous namespace that could stand in
for another file's function in a unity batch: one named like a free function of core (the
`only_keys` that once changed Q's error messages in the test build only), one named like a free
function of a header another file of the folder includes, and one defined in two files of a
folder. A line of SQL in a raw string that looks like such a helper, and a uniquely named helper, pass."""
import argparse
import pathlib
import shutil
import subprocess
import sys
import tempfile

HELPER = "int {name}(int x) {{\n  return x;\n}}\n"
# (file, helper name, what the refusal must say; empty: the plant must pass)
PLANTS = [
    ("src/games/q/codec.cpp", "only_keys", "codec.cpp defines only_keys"),
    ("src/apps/arbiter.cpp", "reproduce_command", "arbiter.cpp defines reproduce_command"),
    ("src/games/q/state.cpp", "kept_apart", ""),
]
TWICE = ("src/games/battleship/state.cpp", "src/games/battleship/codec.cpp", "twice_defined",
         "twice_defined is defined in the anonymous namespaces of codec.cpp, state.cpp")
RAW = ("src/games/q/state.cpp", 'constexpr const char* kSql = R"sql(\nonly_keys(id)\n)sql";\n')


def run(root: pathlib.Path):
    return subprocess.run([sys.executable, str(root / "scripts" / "check_unity.py"), str(root)],
                          capture_output=True, text=True, timeout=120)


def plant(path: pathlib.Path, text: str):
    """Puts `text` right after the first `namespace {` line of `path`."""
    original = path.read_text()
    head, sep, tail = original.partition("namespace {\n")
    assert sep, f"{path} has no anonymous namespace"
    path.write_text(head + sep + "\n" + text + "\n" + tail)
    return original


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", required=True, type=pathlib.Path)
    args = ap.parse_args()
    failures = []

    def expect(label, r, said):
        ok = (r.returncode == 0 and not r.stdout) if not said else (r.returncode == 1 and said in r.stdout)
        print(("ok   " if ok else "FAIL ") + label)
        if not ok:
            failures.append(f"{label}: exit {r.returncode}: {r.stdout.strip()} {r.stderr.strip()}")

    with tempfile.TemporaryDirectory(prefix="arbiter-unity-") as tmp:
        root = pathlib.Path(tmp)
        for d in ("src", "tests", "bench", "bots", "fuzz", "scripts"):
            shutil.copytree(args.root / d, root / d)
        expect("the tree as it is passes", run(root), "")
        for rel, name, said in PLANTS:
            original = plant(root / rel, HELPER.format(name=name))
            expect(f"{rel}: a helper {name}() " + ("is refused" if said else "passes"), run(root), said)
            (root / rel).write_text(original)
        a, b, name, said = TWICE
        originals = [plant(root / a, HELPER.format(name=name)), plant(root / b, HELPER.format(name=name))]
        expect(f"{name}() in two files of one folder is refused", run(root), said)
        (root / a).write_text(originals[0])
        (root / b).write_text(originals[1])
        rel, text = RAW
        original = plant(root / rel, text)
        expect("a call-like line inside a raw string passes", run(root), "")
        (root / rel).write_text(original)
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
