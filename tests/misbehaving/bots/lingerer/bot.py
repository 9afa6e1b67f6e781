#!/usr/bin/env python3
"""Fails `bot check`'s "exits": plays legally (row by row), then stays after its match is over."""
import json
import sys
import time

FLEET = [{"length": n, "row": 2 * i, "col": 0, "dir": "h"} for i, n in enumerate([5, 4, 3, 3, 2])]
shot = 0
for line in sys.stdin:
    method, args = json.loads(line)
    if method == "ejected":
        break
    if method == "setup":
        answer = FLEET
    elif method == "take-turn":
        cols = args[0]["config"]["cols"]
        answer = {"row": shot // cols, "col": shot % cols}
        shot += 1
    else:
        answer = "void"
    print(json.dumps(answer), flush=True)
    if method == "win":
        break
time.sleep(60)
