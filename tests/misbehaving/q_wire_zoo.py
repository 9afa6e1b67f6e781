#!/usr/bin/env python3
"""q_wire_zoo: a Q player that breaks the framing rules, over stdio or arbiter's TCP seats.

    q_wire_zoo.py --mode early|nul|trailing|good [--tcp HOST:PORT --token TOKEN]

It answers setup and new-tiles with "void" and every take-turn with "pass", except:
  early     answers setup with "void" and, in the same write, an unasked "pass": the line is
            waiting when its first take-turn is due (foul "unsolicited")
  nul       answers its first take-turn with "pass", a NUL byte and junk on one line (malformed)
  trailing  answers its first take-turn with "pass" and a second JSON value on one line
            (malformed)
  good      plays by the rules (a control)
It exits at "win", at the ejection notice or at the end of its input. Standard library only.
"""
import argparse
import json
import socket
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", required=True, choices=["early", "nul", "trailing", "good"])
    ap.add_argument("--tcp", help="HOST:PORT of the referee (default: stdio)")
    ap.add_argument("--token", help="the seat's token (tcp)")
    args = ap.parse_args()
    if args.tcp:
        host, port = args.tcp.rsplit(":", 1)
        sock = socket.create_connection((host, int(port)), timeout=30)
        sock.sendall((json.dumps(args.token) + "\n").encode())
        reader = sock.makefile("rb")

        def write(data):
            sock.sendall(data)
    else:
        reader = sys.stdin.buffer

        def write(data):
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    turns = 0
    for line in reader:
        if not line.strip():
            continue
        method = json.loads(line)[0]
        if method in ("ejected", "refused"):
            sys.stderr.write("q_wire_zoo: " + line.decode(errors="replace"))
            return 0
        if method == "setup":
            write(b'"void"\n"pass"\n' if args.mode == "early" else b'"void"\n')
        elif method == "take-turn":
            turns += 1
            if turns == 1 and args.mode == "nul":
                write(b'"pass"\x00 junk {{{\n')
            elif turns == 1 and args.mode == "trailing":
                write(b'"pass" "pass"\n')
            else:
                write(b'"pass"\n')
        elif method == "win":
            write(b'"void"\n')
            return 0
        else:
            write(b'"void"\n')
    return 0


if __name__ == "__main__":
    sys.exit(main())
