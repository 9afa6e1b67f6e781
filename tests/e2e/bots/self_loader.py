#!/usr/bin/env python3
"""A Q bot that, on its first move, forks spinners of its own in step (12 ms on, 28 off) to
raise the host's CPU pressure, and never answers: it tries to have its own timeout excused as
timeout-under-load (tests/e2e/load_e2e.py)."""
import json
import os
import sys
import time


def spin(until):
    while time.monotonic() < until:
        t = time.monotonic()
        while time.monotonic() - t < 0.012:
            pass
        time.sleep(0.028)


for line in sys.stdin:
    message = json.loads(line)
    method = message[0] if isinstance(message, list) and message else ""
    if method == "take-turn":
        end = time.monotonic() + 3
        for _ in range(4):
            if os.fork() == 0:
                spin(end)
                os._exit(0)
        spin(end)
        sys.exit(0)
    print(json.dumps("void"), flush=True)
