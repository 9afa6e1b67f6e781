#!/usr/bin/env python3
"""Fails `bot check`'s "limits": takes 1.5 GiB (the default cap is 1 GiB) on its first turn."""
import json
import sys

FLEET = [{"length": n, "row": 2 * i, "col": 0, "dir": "h"} for i, n in enumerate([5, 4, 3, 3, 2])]
for line in sys.stdin:
    method = json.loads(line)[0]
    if method == "ejected":
        break
    if method == "take-turn":
        hoard = b"x" * (1536 << 20)
    print(json.dumps(FLEET if method == "setup" else {"row": 0, "col": 0}), flush=True)
