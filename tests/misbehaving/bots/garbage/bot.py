#!/usr/bin/env python3
"""Fails `bot check`'s "answers": sets up a legal fleet, then answers its first turn with text
that is not JSON."""
import json
import sys

FLEET = [{"length": n, "row": 2 * i, "col": 0, "dir": "h"} for i, n in enumerate([5, 4, 3, 3, 2])]
for line in sys.stdin:
    method = json.loads(line)[0]
    if method == "ejected":
        break
    print(json.dumps(FLEET) if method == "setup" else "here is my shot: B4", flush=True)
