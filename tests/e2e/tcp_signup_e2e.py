#!/usr/bin/env python3
"""TCP sign-up is concurrent: 100 idle connections opened before the real clients neither delay
nor displace them. For `arbiter play q` with two tcp seats and for `arbiter q xserver` (the
course's server, with four clients speaking the course protocol and then with the course's own
`xclients`), each first without and then with the idle connections; a wrong token is refused
at once all the same. A real client's match-start
delay is the time from its connecting to its first call (`setup`); it must stay under a second.
Prints the delays measured."""
import argparse
import json
import pathlib
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import os

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import procs  # noqa: E402

ARGS = None
IDLE = 100
MAX_START = 1.0  # seconds from connecting to the first call


def open_idle(port, n):
    """n connected sockets that never send a byte."""
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        socks.append(s)
    return socks


def connect(port, until):
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=5)
        except ConnectionRefusedError:
            if time.monotonic() > until:
                raise
            time.sleep(0.02)


class Client(threading.Thread):
    """A client that signs up with `hello` and then plays by passing: answers every call until
    the server closes. Records when it connected and when its first call came."""

    ANSWERS = {"setup": "void", "take-turn": "pass", "new-tiles": "void", "win": "void"}

    def __init__(self, sock, hello):
        super().__init__(daemon=True)
        self.sock, self.hello = sock, hello
        self.connected = time.monotonic()
        self.first_call = None
        self.calls = []
        self.problem = None

    def run(self):
        try:
            self.sock.settimeout(30)
            self.sock.sendall((json.dumps(self.hello) + "\n").encode())
            buf = b""
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if not line.strip():
                        continue
                    msg = json.loads(line)
                    if self.first_call is None:
                        self.first_call = time.monotonic()
                    self.calls.append(msg[0] if isinstance(msg, list) and msg else msg)
                    if not (isinstance(msg, list) and msg and msg[0] in self.ANSWERS):
                        self.problem = f"unexpected message {line[:100]!r}"
                        return
                    self.sock.sendall((json.dumps(self.ANSWERS[msg[0]]) + "\n").encode())
        except (OSError, ValueError) as e:
            self.problem = f"{type(e).__name__}: {e}"
        finally:
            self.sock.close()

    def delay(self):
        return None if self.first_call is None else self.first_call - self.connected


def check_clients(clients, problems):
    delays = []
    for c in clients:
        c.join(timeout=30)
        if c.problem:
            problems.append(f"client {c.hello!r}: {c.problem}")
        d = c.delay()
        if d is None:
            problems.append(f"client {c.hello!r} never got a call (calls: {c.calls})")
        else:
            delays.append(d)
            if d > MAX_START:
                problems.append(f"client {c.hello!r}: first call {d:.3f} s after connecting")
    return delays


def play_case(idle):
    """`arbiter play q` with two tcp seats; `idle` connections opened before the clients."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        tokens_file = pathlib.Path(tmp) / "tokens.json"
        proc = subprocess.Popen(
            [ARGS.arbiter, "play", "q", "-p", "a:tcp", "-p", "b:tcp", "--listen", "127.0.0.1:0",
             "--tokens", str(tokens_file), "--accept-timeout", "20", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        port = None
        for line in proc.stderr:
            if m := re.search(r"waiting for \d+ tcp player\(s\) on port (\d+)", line):
                port = int(m.group(1))
                break
        if port is None:
            proc.kill()
            return [f"arbiter did not say where it listens: {proc.communicate()}"], []
        tokens = json.loads(tokens_file.read_text())
        hold = open_idle(port, idle)
        time.sleep(0.3)  # the idle connections are in before the real clients
        # A wrong token is refused at once, not after the idle connections' waits.
        with connect(port, time.monotonic() + 5) as wrong:
            start = time.monotonic()
            wrong.sendall(b'"a-00000000000000000000000000000000"\n')
            wrong.settimeout(5)
            try:
                answer = wrong.recv(4096)
            except TimeoutError:
                answer = b"nothing"
            took = time.monotonic() - start
            if answer != b'["refused",["no tcp seat has this token"]]\n' or took > MAX_START:
                problems.append(f"a wrong token got {answer!r} after {took:.3f} s")
        clients = [Client(connect(port, time.monotonic() + 5), tokens[seat]) for seat in "ab"]
        for c in clients:
            c.start()
        delays = check_clients(clients, problems)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            problems.append("arbiter play did not finish")
        for s in hold:
            s.close()
        if proc.returncode != 0:
            problems.append(f"arbiter play exit {proc.returncode}: {err.strip()[-300:]}")
        else:
            result = json.loads(out)
            if result.get("ejections"):
                problems.append(f"ejections: {result['ejections']}")
            if result.get("names") != ["a", "b"]:
                problems.append(f"names: {result.get('names')}")
    return problems, delays


def server_config():
    return ARGS.data / "mfelleisen__Qwirkle/10/Tests/0-server-config.json"


def xserver(port):
    with server_config().open("rb") as cfg:
        return subprocess.Popen([ARGS.arbiter, "q", "xserver", str(port), "--time-scale", "0.1"],
                                stdin=cfg, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish_server(proc, problems):
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        problems.append("xserver did not finish")
    if proc.returncode != 0:
        problems.append(f"xserver exit {proc.returncode}: {err.decode(errors='replace')[-300:]}")
        return None
    return json.loads(out)


def xserver_case(idle):
    """xserver with four clients speaking the course protocol (names as JSON strings)."""
    problems = []
    port = procs.free_port()
    proc = xserver(port)
    hold = open_idle_when_up(port, idle)
    time.sleep(0.3)
    client_config = server_config().with_name("0-client-config.json")
    names = [actor[0] for actor in json.loads(client_config.read_text())["players"]]
    clients = []
    for name in names:
        c = Client(connect(port, time.monotonic() + 5), name)
        c.start()
        clients.append(c)
        time.sleep(0.01)  # sign-up order is the list's
    delays = check_clients(clients, problems)
    result = finish_server(proc, problems)
    for s in hold:
        s.close()
    if result is not None:
        if result == [[], []] or result[1]:
            problems.append(f"result {result}: the four clients did not all play")
    return problems, delays


def open_idle_when_up(port, n):
    """Waits until the server listens, then opens n idle connections."""
    first = connect(port, time.monotonic() + 5)
    if n == 0:
        first.close()
        return []
    return [first] + open_idle(port, n - 1)


def xclients_case(idle):
    """xserver and the course's clients (xclients) on milestone 10's case 0, whose expected
    Result is known."""
    problems = []
    case = server_config()
    expected = json.loads(case.with_name("0-out.json").read_text())
    port = procs.free_port()
    proc = xserver(port)
    hold = open_idle_when_up(port, idle)
    time.sleep(0.3)
    start = time.monotonic()
    with case.with_name("0-client-config.json").open("rb") as cfg:
        clients = subprocess.run(
            [ARGS.arbiter, "q", "xclients", str(port), "--time-scale", "0.1"], stdin=cfg,
            capture_output=True, timeout=30)
    result = finish_server(proc, problems)
    took = time.monotonic() - start
    for s in hold:
        s.close()
    if clients.returncode != 0:
        problems.append(f"xclients exit {clients.returncode}: {clients.stderr[-300:]!r}")
    if result is not None and result != expected:
        problems.append(f"expected {expected}, got {result}")
    return problems, [took]


def main() -> int:
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--data", required=True, type=pathlib.Path)
    ap.add_argument("--idle", type=int, default=IDLE)
    ARGS = ap.parse_args()
    failed = 0
    for name, case, what in (("play q", play_case, "first call after connecting"),
                             ("xserver", xserver_case, "first call after connecting"),
                             ("xserver+xclients", xclients_case, "clients start to result")):
        for idle in (0, ARGS.idle):
            problems, seconds = case(idle)
            shown = ", ".join(f"{s * 1000:.0f} ms" for s in seconds)
            label = f"{name} with {idle} idle connections"
            if problems:
                failed += 1
                print(f"FAIL {label}: {'; '.join(problems)} ({what}: {shown})", flush=True)
            else:
                print(f"ok   {label}: {what}: {shown}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
