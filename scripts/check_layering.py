#!/usr/bin/env python3
"""The dependency rule of docs/architecture.md, checked on every build with no exemptions: every
file under src/ and bots/ may include only the folders below its own (arrows point down), and
rules code (core, games) no socket, thread or future header.

  core                  links nothing of ours
  lua, referee, remote  core (and themselves)
  games/G               core, lua and its own folder: no other game, no referee, no transport
  arena                 core, lua, referee, remote, games
  tournament            arena and everything below it
  league                tournament and everything below it
  server                league and everything below it
  apps                  everything
  bots (C++ bots)       core, lua, remote, games

A test beside the code (*_test.cpp, *_test.h) follows its folder's rule, except that it may start
threads. tests/, bench/ and fuzz/ sit on top and may include anything. A folder under src/ that is
not in the table is an error, so that a new layer has to be placed in it.

Usage: check_layering.py [PROJECT_ROOT]   (default: the repository this script is in)
Exit status: 0 clean, 1 violations (each printed on one line), 2 no src/ folder."""
import pathlib
import re
import sys

BELOW = {
    "core": ["core"],
    "lua": ["core", "lua"],
    "referee": ["core", "referee"],
    "remote": ["core", "remote"],
    "arena": ["core", "lua", "referee", "remote", "games", "arena"],
    "tournament": ["core", "lua", "referee", "remote", "games", "arena", "tournament"],
    "league": ["core", "lua", "referee", "remote", "games", "arena", "tournament", "league"],
    "server": ["core", "lua", "referee", "remote", "games", "arena", "tournament", "league", "server"],
    "apps": ["core", "lua", "referee", "remote", "games", "arena", "tournament", "league", "server",
             "apps"],
    "bots": ["core", "lua", "remote", "games"],
}
OURS = re.compile(r"^(core|lua|referee|remote|games|arena|tournament|league|server|apps)/")
RULES_CODE_MAY_NOT = re.compile(r"^(sys/socket\.h|netinet/|arpa/inet\.h|asio|boost/asio|thread$|future$)")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
SOURCES = {".h", ".hpp", ".cpp", ".cc", ".in"}


def layer_of(rel: pathlib.PurePosixPath):
    parts = rel.parts
    if parts[0] == "bots":
        return "bots"
    if parts[0] == "src" and len(parts) >= 3:
        if parts[1] == "games" and len(parts) >= 4:
            return f"games/{parts[2]}"
        return parts[1]
    return None


def allowed_for(layer: str):
    if layer.startswith("games/"):
        return ["core", "lua", layer]
    return BELOW.get(layer)


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    if not (root / "src").is_dir():
        print(f"check_layering: {root} has no src/ folder", file=sys.stderr)
        return 2
    violations = []
    files = sorted(p for d in ("src", "bots") if (root / d).is_dir()
                   for p in (root / d).rglob("*") if p.is_file() and p.suffix in SOURCES)
    for path in files:
        rel = pathlib.PurePosixPath(path.relative_to(root).as_posix())
        layer = layer_of(rel)
        allowed = allowed_for(layer) if layer else None
        if allowed is None:
            violations.append(f"{rel}: the folder is in no layer of scripts/check_layering.py")
            continue
        is_test = rel.name.endswith(("_test.cpp", "_test.h"))
        text = path.read_text(encoding="utf-8", errors="replace")
        for lineno, line in enumerate(text.splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            if OURS.match(target):
                if not any(target.startswith(a + "/") for a in allowed):
                    violations.append(f"{rel}:{lineno}: {layer} may not include {target} "
                                      f"(it may include: {' '.join(allowed)})")
            elif not is_test and (layer == "core" or layer.startswith("games/")) \
                    and RULES_CODE_MAY_NOT.match(target):
                violations.append(f"{rel}:{lineno}: {layer} is rules code and may not include <{target}>")
    if violations:
        print("layering violation (docs/architecture.md, Folders and dependencies):", file=sys.stderr)
        for v in violations:
            print("  " + v, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
