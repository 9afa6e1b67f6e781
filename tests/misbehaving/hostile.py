#!/usr/bin/env python3
"""hostile: a Q player that attacks the machine once, at setup, then plays "pass" to the end.

    hostile.py MODE [HOST_PID]

It writes "HOSTILE MODE: what happened" on stderr before it plays on (if it still can). The
modes (tests/e2e/sandbox_e2e.py runs each behind the walls and checks the verdict and, from
outside, that the match went on and nothing of it survived):

  fork-bomb     forks sleepers until the kernel refuses          -> process-limit
  memory-bomb   fills 2 GiB of memory                            -> memory-limit
  fd-bomb       opens /dev/null until it may not                 -> plays on
  stderr-flood  writes 100 MB to stderr                          -> output-limit
  cpu-spin      spins the CPU                                    -> cpu-limit (with --cpu-time)
  double-fork   leaves a grandchild sleeping forever (detached)  -> plays on; nothing survives
  kill-all      kill(-1, SIGKILL), then kill(HOST_PID, SIGKILL)  -> plays on; the host is fine
  fill-scratch  writes its scratch /tmp full                     -> plays on
Standard library only.
"""
import json
import os
import signal
import sys
import time


def say(mode, what):
    sys.stderr.write(f"HOSTILE {mode}: {what}\n")
    sys.stderr.flush()


def attack(mode, host_pid):
    if mode == "fork-bomb":
        made = 0
        try:
            for _ in range(2000):
                if os.fork() == 0:
                    time.sleep(600)
                    os._exit(0)
                made += 1
        except OSError as e:
            say(mode, f"{made} forks, then {e}")
            time.sleep(1)  # the referee notices within a moment
            return
        say(mode, f"{made} forks, none refused")
    elif mode == "memory-bomb":
        chunks = []
        for _ in range(2048):
            chunks.append(b"x" * (1 << 20))
        say(mode, f"holds {len(chunks)} MiB")
    elif mode == "fd-bomb":
        files = []
        try:
            while len(files) < 1_000_000:
                files.append(open("/dev/null"))
        except OSError as e:
            say(mode, f"{len(files)} files, then {e.strerror}")
        for f in files:
            f.close()
    elif mode == "stderr-flood":
        block = "z" * (1 << 20) + "\n"
        for _ in range(100):
            sys.stderr.write(block)
        sys.stderr.flush()
        say(mode, "wrote 100 MB")
    elif mode == "cpu-spin":
        while True:
            pass
    elif mode == "double-fork":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)",
                                          "hostile-survivor"])
            os._exit(0)
        os.wait()
        say(mode, "left a grandchild")
    elif mode == "kill-all":
        results = []
        for pid in (-1, host_pid):
            try:
                os.kill(pid, signal.SIGKILL)
                results.append(f"kill({pid}) ok")
            except OSError as e:
                results.append(f"kill({pid}): {e.strerror}")
        say(mode, "; ".join(results))
    elif mode == "fill-scratch":
        written = 0
        try:
            with open("/tmp/fill", "wb") as f:
                while written < (1 << 30):
                    f.write(b"\0" * (1 << 20))
                    f.flush()
                    written += 1 << 20
        except OSError as e:
            say(mode, f"{written >> 20} MiB, then {e.strerror}")
            os.remove("/tmp/fill")
            return
        say(mode, f"{written >> 20} MiB, never full")
    else:
        say(mode, "unknown mode")


def main():
    mode = sys.argv[1]
    host_pid = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    attacked = False
    for line in sys.stdin:
        method, args = json.loads(line)
        if method == "ejected":
            return
        if not attacked:
            attacked = True
            attack(mode, host_pid)
        sys.stdout.write(json.dumps("pass" if method == "take-turn" else "void") + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
