#!/usr/bin/env python3
"""speed_scrabble_zoo: a Speed Scrabble player (standard library only) on arbiter's wire protocol
over stdin/stdout (docs/games/speed_scrabble.md §3) that misbehaves in one chosen way, picked
with --mode. tests/e2e/speed_scrabble_e2e.py sets it loose against house bots.

It never builds a board of its own: apart from its misbehaviour it reads every line the referee
sends (so the referee's notices never back up) and exits after ["win", [...]] or at the end of
its input. Modes, with the ejection arbiter should answer them with:

  garbage      a line that is not JSON                             malformed
  not-submit   well-formed JSON that is not a "submit" message     malformed
  bad-board    a "submit" whose board is not a board (a number)    malformed
  flood        1000 messages at once (valid but stale one-letter   foul "flood"
               boards, so only the rate is wrong)
  invalid      --count invalid boards, 20 ms apart (letters it     foul "too-many-invalid"
               does not hold)
  oversized    one message of --size bytes                         malformed
  exit         exits at once, before reading anything              hang-up
  close-stdout closes its stdout and keeps reading                 hang-up
  quiet        nothing at all (a control: never ejected)           -
  stale        a few stale one-letter boards, 0.1 s apart (a       -
               control: stale boards are not invalid)

--pid-file PATH appends this process's PID (as the machine sees it) so that a test can check
that it did not outlive the referee. `--list` prints every mode with the ejection it expects
("-": none).
"""
import argparse
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from zoo_io import machine_pid  # noqa: E402

MODES = {
    "garbage": "malformed",
    "not-submit": "malformed",
    "bad-board": "malformed",
    "flood": "foul",
    "invalid": "foul",
    "oversized": "malformed",
    "exit": "hang-up",
    "close-stdout": "hang-up",
    "quiet": "-",
    "stale": "-",
}


def send_raw(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def send(message):
    send_raw(json.dumps(message, separators=(",", ":")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=sorted(MODES))
    ap.add_argument("--count", type=int, default=4, help="invalid: how many invalid boards")
    ap.add_argument("--size", type=int, default=2000, help="oversized: bytes in the message")
    ap.add_argument("--pid-file")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        for mode, why in MODES.items():
            print(mode, why)
        return
    if args.pid_file:
        with open(args.pid_file, "a") as f:
            f.write(f"{machine_pid()}\n")
    if args.mode == "exit":
        os._exit(0)

    setup = json.loads(sys.stdin.readline())
    first = setup[1][1][0]  # the first tile: ["setup", [Config, [Letter...]]]
    # Keep reading in the background until the win (or the end of input).
    done = threading.Event()

    def drain():
        for line in sys.stdin:
            if line.startswith('["win"'):
                break
        done.set()

    threading.Thread(target=drain, daemon=True).start()

    try:
        if args.mode == "garbage":
            send_raw("this is not JSON {")
        elif args.mode == "not-submit":
            send(["hello", [["CAT"]]])
        elif args.mode == "bad-board":
            send(["submit", [42]])
        elif args.mode == "flood":
            # One write of 1000 lines: a board of the first tile alone is valid for 1 tile but
            # stale (7 are held), so each one is answered "stale" and none counts as invalid.
            line = json.dumps(["submit", [[first]]], separators=(",", ":")) + "\n"
            sys.stdout.write(line * 1000)
            sys.stdout.flush()
        elif args.mode == "invalid":
            for _ in range(args.count):
                send(["submit", [["QQ"] if first != "Q" else ["ZZ"]]])
                time.sleep(0.02)
        elif args.mode == "oversized":
            padding = max(0, args.size - len('["submit",[[""]]]'))
            send(["submit", [["A" * padding]]])
        elif args.mode == "close-stdout":
            sys.stdout.close()
            os.close(1)
        elif args.mode == "stale":
            for _ in range(3):
                send(["submit", [[first]]])
                time.sleep(0.1)
    except (BrokenPipeError, OSError):
        pass  # ejected and cut off meanwhile
    done.wait()


if __name__ == "__main__":
    main()
