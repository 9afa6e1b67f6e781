#!/usr/bin/env python3
"""probe: a Q player that tries to get out of its sandbox, then plays "pass" to the end.

At setup it tries each attack below and writes one JSON line to stderr, "PROBE {...}", saying
for each what it managed ("ok: ...") or why it could not ("no: ..."). A test runs it as a cmd:
player and checks the report and, from outside, that nothing it attacked changed.

    probe.py @PLANTED_FILE HOST_PORT @WRITE_DIR [--reads-only]

@PLANTED_FILE  a file of "another entrant" the probe tries to read and overwrite
HOST_PORT      a port listening on the host's 127.0.0.1 that the probe tries to reach
@WRITE_DIR     a directory of the host the probe tries to create a file in
(The '@' keeps the paths from looking like the probe's own files, which the sandbox shows.)
--reads-only  only the attempts that change nothing (reads, the environment, connecting): for a
              control run WITHOUT the sandbox, where the other attacks would hit the host itself
              (as root they would mount over its /tmp, fill its disk, ...).
Standard library only.
"""
import ctypes
import json
import os
import socket
import subprocess
import sys


def attempt(fn):
    try:
        return "ok: " + str(fn())[:120]
    except Exception as e:  # the point is to record every way it fails
        return f"no: {type(e).__name__}: {e}"[:160]


def attacks(planted, host_port, write_dir):
    libc = ctypes.CDLL(None, use_errno=True)

    def syscall_result(rc):
        if rc != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        return rc

    def listen_port():
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen()
        listen_port.keep = s
        return s.getsockname()[1]

    def fill_scratch():
        with open(os.path.join(os.environ.get("HOME", "/tmp"), "fill"), "wb") as f:
            block = b"x" * (1 << 20)
            for i in range(1024):
                f.write(block)
                f.flush()
        return "1 GiB written"

    def survive():
        # A grandchild that detaches and sleeps: it must not outlive the match.
        subprocess.Popen(["/bin/sh", "-c", "sleep 1000 # probe-survivor"], start_new_session=True,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return "started"

    harmless = {
        "uid": os.getuid(),
        "euid": os.geteuid(),
        "shadow": attempt(lambda: open("/etc/shadow").read(10)),
        "planted_read": attempt(lambda: open(planted).read()),
        "env": sorted(os.environ),
        "host_port": attempt(lambda: socket.create_connection(("127.0.0.1", host_port), timeout=1)),
        "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
    }
    # As root the walls are down (or were never up): the destructive attempts would hit the
    # machine itself, so they are left out and the report's uid tells the test.
    if "--reads-only" in sys.argv or os.getuid() == 0:
        return harmless
    return {
        "uid": os.getuid(),
        "euid": os.geteuid(),
        "shadow": attempt(lambda: open("/etc/shadow").read(10)),
        "planted_read": attempt(lambda: open(planted).read()),
        "planted_write": attempt(lambda: open(planted, "w").write("owned")),
        "write_host_dir": attempt(lambda: open(os.path.join(write_dir, "probe-was-here"), "w").write("x")),
        "write_usr": attempt(lambda: open("/usr/probe-was-here", "w").write("x")),
        "env": sorted(os.environ),
        "host_port": attempt(lambda: socket.create_connection(("127.0.0.1", host_port), timeout=1)),
        "outside": attempt(lambda: socket.create_connection(("192.0.2.1", 80), timeout=1)),
        "listen": attempt(listen_port),
        "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "kill_1": attempt(lambda: os.kill(1, 9)),
        "mount": attempt(lambda: syscall_result(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))),
        "setuid0": attempt(lambda: os.setuid(0)),
        "ptrace": attempt(lambda: syscall_result(libc.ptrace(16, 1, None, None))),
        "unshare_user": attempt(lambda: syscall_result(libc.unshare(0x10000000))),  # CLONE_NEWUSER
        "keyctl": attempt(lambda: libc.syscall(250, 0, -3, 1) if libc.syscall(250, 0, -3, 1) >= 0
                          else syscall_result(-1)),  # KEYCTL_GET_KEYRING_ID, the session keyring
        "raw_socket": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)),
        "packet_socket": attempt(lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW)),
        "fill_scratch": attempt(fill_scratch),
        "survivor": attempt(survive),
    }


def main():
    planted, host_port, write_dir = sys.argv[1][1:], int(sys.argv[2]), sys.argv[3][1:]
    for line in sys.stdin:
        method, _args = json.loads(line)
        if method == "setup":
            report = attacks(planted, host_port, write_dir)
            sys.stderr.write("PROBE " + json.dumps(report) + "\n")
            sys.stderr.flush()
        if method == "ejected":
            return
        sys.stdout.write(json.dumps("pass" if method == "take-turn" else "void") + "\n")
        sys.stdout.flush()
        if method == "win":
            return


if __name__ == "__main__":
    main()
