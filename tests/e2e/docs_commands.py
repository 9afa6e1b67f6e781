#!/usr/bin/env python3
"""Runs every command of the bot author's documentation, so that the docs cannot rot.

It extracts every ```sh block of docs/writing-a-bot.md and examples/README.md (and of the SPRT
walk-through of docs/tournaments.md) and runs each
command in order with bash (set -e -o pipefail, one bash per command; a line ending in `\\`
continues the command on the next line). Each document runs in a fresh temporary directory that
holds copies of `bots`, `examples` and `tests` from the repository (--root), so the docs' relative
paths work and nothing is written into the repository; the commands of one document share that
directory, so later commands see the files earlier ones wrote. `arbiter` (--arbiter) is first on
PATH, then /usr/bin (the system's python3). Each command has a time limit (--timeout, default
60 s).

It also runs every examples/*.toml through `arbiter tournament run -f FILE --store
sqlite:TMP/x.db -q`.

Prints one line per failure (document, line, command, and why) and a summary; exits 0 only if
everything passed. Python 3 standard library only.
"""
import argparse
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DOCS = ["docs/writing-a-bot.md", "examples/README.md", "docs/tournaments.md", "docs/bots.md",
        "docs/ladder.md", "docs/competition.md"]
# Documents of which only one section is a walk-through to run (the rest shows commands that need
# a store or a server set up elsewhere).
SECTIONS = {"docs/tournaments.md": "## Test a change with SPRT"}
LINKS = ["bots", "examples", "tests"]
FENCE = re.compile(r"^\s*```(\S*)\s*$")


def sh_commands(path: pathlib.Path, section=None, kinds=("sh",)):
    """[(line number, command)] of every ```sh block of a Markdown file (or only of the section
    under the heading `section`, up to the next heading of its level), in order. Blank lines
    and lines that are only a comment are skipped; a line ending in a backslash continues.
    `kinds`: the fences run (```sh-postgres blocks need a PostgreSQL server: --postgres)."""
    if section is not None:
        lines = path.read_text(encoding="utf-8").splitlines()
        level = section.split(" ")[0] + " "
        inside = False
        kept = []
        for line in lines:
            if line.strip() == section:
                inside = True
            elif inside and line.startswith(level):
                inside = False
            kept.append(line if inside else "")
        return _sh_commands(kept, kinds)
    return _sh_commands(path.read_text(encoding="utf-8").splitlines(), kinds)


def _sh_commands(lines, kinds=("sh",)):
    out = []
    in_sh = False
    in_block = False
    pending, start = None, 0
    for number, line in enumerate(lines, 1):
        fence = FENCE.match(line)
        if fence:
            if in_block:
                if pending is not None:  # a continuation that ran into the end of the block
                    out.append((start, pending))
                    pending = None
                in_block = in_sh = False
            else:
                in_block = True
                in_sh = fence.group(1) in kinds
            continue
        if not in_sh:
            continue
        if pending is None:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            start, pending = number, ""
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + "\n"
            continue
        out.append((start, pending + line))
        pending = None
    if in_block:
        out.append((0, None))  # an unclosed fence: reported as a failure
    return out


def workdir(root: pathlib.Path, parent: pathlib.Path, name: str) -> pathlib.Path:
    d = parent / name
    d.mkdir()
    for link in LINKS:
        # Copies, not links: the walls refuse a program or argument reached through a link out
        # of its directory (docs/security.md), as a bot author's planted link would be.
        shutil.copytree(root / link, d / link, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return d


def run(command, cwd, env, timeout):
    """(problem or None, seconds, output tail) of one command under bash. The command runs in a
    process group of its own, and the whole group is killed when it times out (so that nothing
    it started in the background outlives it or holds its output open)."""
    started = time.monotonic()
    p = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", command], cwd=cwd, env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = p.communicate()
        tail = out.decode("utf-8", "replace")[-400:]
        return f"timed out after {timeout:g} s", time.monotonic() - started, tail
    tail = out.decode("utf-8", "replace")[-400:]
    if p.returncode != 0:
        return f"exit {p.returncode}", time.monotonic() - started, tail
    return None, time.monotonic() - started, tail


def one_line(text: str) -> str:
    return " ".join(text.split())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arbiter", required=True, help="the arbiter binary")
    ap.add_argument("--root", required=True, help="the repository root")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per command (default 60)")
    ap.add_argument("--doc", action="append",
                    help="only these documents (paths relative to --root; default: "
                         + ", ".join(DOCS) + ")")
    ap.add_argument("--no-toml", action="store_true", help="skip the examples/*.toml runs")
    ap.add_argument("--postgres", action="store_true",
                    help="also run the ```sh-postgres blocks, with $STORE the server that "
                         "ARBITER_TEST_POSTGRES_URL names (scripts/with_postgres.sh sets it)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every command as it runs")
    args = ap.parse_args()

    root = pathlib.Path(args.root).resolve()
    arbiter = pathlib.Path(args.arbiter).resolve()
    if not arbiter.is_file() or not os.access(arbiter, os.X_OK):
        print(f"FAIL --arbiter {arbiter}: not an executable file")
        return 1
    env = dict(os.environ)
    # The docs say python3: the system's, which starts behind the sandbox's walls (an
    # interpreter reached through a shim such as pyenv's cannot, and its players would only be
    # ejected, with nothing to fail the command).
    system = [d for d in ("/usr/bin",) if os.access(os.path.join(d, "python3"), os.X_OK)]
    env["PATH"] = os.pathsep.join([str(arbiter.parent), *system, env.get("PATH", "")])
    env.pop("PYTHONPATH", None)
    # Stored bots' files are unpacked in a cache of the run's own, removed at the end.
    cache = tempfile.TemporaryDirectory(prefix="arbiter-docs-cache-")
    env["XDG_CACHE_HOME"] = cache.name
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the bots' imports leave no __pycache__ in the repository
    kinds = ("sh",)
    if args.postgres:
        if not os.environ.get("ARBITER_TEST_POSTGRES_URL"):
            print("FAIL --postgres: no ARBITER_TEST_POSTGRES_URL (run under scripts/with_postgres.sh)")
            return 1
        env["STORE"] = os.environ["ARBITER_TEST_POSTGRES_URL"]
        kinds = ("sh", "sh-postgres")

    failures = []
    ran = passed = 0

    def attempt(label, command, cwd):
        """Runs one command, counting it and reporting a failure under `label`."""
        nonlocal ran, passed
        if args.verbose:
            print(f"RUN  {label}", flush=True)
        problem, seconds, tail = run(command, cwd, env, args.timeout)
        ran += 1
        if problem:
            failures.append(f"FAIL {label}: {problem}; output ends: {one_line(tail)[-300:]}")
            print(failures[-1], flush=True)
        else:
            passed += 1
            if args.verbose:
                print(f"ok   {seconds:.2f} s", flush=True)
    started = time.monotonic()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="arbiter-docs-"))
    try:
        for i, doc in enumerate(args.doc or DOCS):
            path = root / doc
            if not path.is_file():
                failures.append(f"FAIL {doc}: no such document")
                print(failures[-1])
                continue
            commands = sh_commands(path, SECTIONS.get(doc), kinds)
            if not commands:
                failures.append(f"FAIL {doc}: no ```sh commands found")
                print(failures[-1])
                continue
            cwd = workdir(root, tmp, f"doc{i}")
            for line, command in commands:
                if command is None:
                    failures.append(f"FAIL {doc}: a ``` fence is never closed")
                    print(failures[-1])
                    continue
                attempt(f"{doc}:{line}: {one_line(command)}", command, cwd)

        if not args.no_toml:
            tomls = sorted((root / "examples").glob("*.toml"))
            if not tomls:
                failures.append("FAIL examples/*.toml: no tournament files found")
                print(failures[-1])
            cwd = workdir(root, tmp, "toml")
            for toml in tomls:
                rel = toml.relative_to(root)
                store = cwd / f"{toml.stem}.db"
                command = (f"arbiter tournament run -f {rel} --store sqlite:{store} -q")
                attempt(f"{rel}: {command}", command, cwd)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    elapsed = time.monotonic() - started
    print(f"docs_commands: {passed} of {ran} commands passed, {len(failures)} failure(s), "
          f"{elapsed:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
