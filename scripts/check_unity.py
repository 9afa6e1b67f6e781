#!/usr/bin/env python3
"""Keeps unity builds honest, checked on every build with no exemptions. The dev preset compiles
each target's files in batches (CMAKE_UNITY_BUILD), so a helper in one file's anonymous
namespace is in scope in the files after it in the batch. Two helpers of the same name then
overload each other, and a helper can hide a function of the same name that another file of the
folder means (a file's own `only_keys` once replaced core's for every later file of its game:
a different error message, in the test build only). A redefinition with the same signature is a
compile error already; what is left, and what this finds, is:

  - a function defined in the anonymous namespaces of two files of one folder;
  - a function defined in a file's anonymous namespace under the name of a free function that a
    header declares, when another file of the same folder includes that header (or the header
    is core's, which every file sees).

It reads definitions the way the project formats them (clang-format: namespaces do not indent,
so a definition inside `namespace {` starts at column 0). ALL-CAPS names (macros) are skipped.

Usage: check_unity.py [PROJECT_ROOT]   (default: the repository this script is in)
Exit status: 0 clean, 1 clashes (each printed on one line)."""
import collections
import pathlib
import re
import sys

FOLDERS = ("src", "tests", "bench", "bots", "fuzz")
DEFINITION = re.compile(
    r"^(?!(?:return|if|for|while|switch|using|struct|class|enum|template|namespace|"
    r"static_assert|typedef|friend|else|do|case|default)\b)[\w:<>,*&\s]*?\b(\w+)\s*\(")
INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def without_raw_strings(text):
    """`text` with the contents of its raw string literals (SQL, JSON) removed."""
    return re.sub(r'R"(\w*)\((?:.|\n)*?\)\1"', 'R""', text)


def anonymous_functions(text):
    """Names of the functions defined at column 0 inside `namespace {` ... `}  // namespace`."""
    names, inside = set(), False
    for line in without_raw_strings(text).split("\n"):
        if line.startswith("namespace {"):
            inside = True
        elif inside and line.startswith("}  // namespace"):
            inside = False
        elif inside and line[:1] not in ("", " ", "\t", "/", "#", "}", ")", ":"):
            m = DEFINITION.match(line)
            if m and not m.group(1).isupper():
                names.add(m.group(1))
    return names


def header_functions(text):
    """Names of the free functions a header declares or defines (at column 0)."""
    names = set()
    for line in text.split("\n"):
        if line[:1] not in ("", " ", "\t", "/", "#", "}", ")", ":"):
            m = DEFINITION.match(line)
            if m:
                names.add(m.group(1))
    return names


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
    headers = {}
    for h in (root / "src").glob("**/*.h"):
        headers[str(h.relative_to(root / "src"))] = header_functions(h.read_text())
    folders = collections.defaultdict(list)
    for top in FOLDERS:
        for f in (root / top).glob("**/*.cpp"):
            folders[f.parent].append(f)
    clashes = []
    for folder, files in sorted(folders.items()):
        texts = {f: f.read_text() for f in sorted(files)}
        defined = collections.defaultdict(list)
        for f, text in texts.items():
            for name in anonymous_functions(text):
                defined[name].append(f.name)
        for name, where in sorted(defined.items()):
            if len(where) > 1:
                clashes.append(f"{folder.relative_to(root)}: {name} is defined in the anonymous "
                               f"namespaces of {', '.join(sorted(where))}")
                continue
            for f, text in texts.items():
                if f.name == where[0]:
                    continue
                seen = INCLUDE.findall(text) + [h for h in headers if h.startswith("core/")]
                meant = [h for h in seen if name in headers.get(h, ())]
                if meant:
                    clashes.append(f"{folder.relative_to(root)}: {where[0]} defines {name} in its "
                                   f"anonymous namespace, and {f.name} includes {meant[0]}, "
                                   f"which declares {name}")
                    break
    for c in clashes:
        print(c)
    return 1 if clashes else 0


if __name__ == "__main__":
    sys.exit(main())
