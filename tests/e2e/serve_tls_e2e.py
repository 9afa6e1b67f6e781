#!/usr/bin/env python3
"""`arbiter serve` beyond loopback (docs/competition.md): TLS of its own, or a reverse proxy's.

- The flags: --tls-cert without --tls-key, a key that is not the certificate's, a file that is
  not PEM, --behind-proxy that is not an address, --submissions on 0.0.0.0 without TLS: each one
  clear line, exit 2, nothing listening.
- `serve --submissions --tls-cert --tls-key` (a self-signed certificate made here by openssl):
  pages and the API over HTTPS (verified against that certificate), HSTS, a Secure session
  cookie, an Origin of plain http refused, an upload of a kit bot bigger than a plain request
  body (so it passes the gate) built and checked, its build log streamed over TLS; plain HTTP,
  garbage and 100 connections that never finish their handshake refused or dropped while a real
  client is served at once; the half-shaken ones closed by the server after the head's time.
- `serve --submissions --behind-proxy 127.0.0.1 --listen 127.0.0.1:0`: a connection from
  another address (127.0.0.2, a loopback alias) is closed unanswered; from the proxy, served,
  with a Secure cookie; the throttle and --uploads-per-address count the client the proxy names
  in its own (last) X-Forwarded-For line, not the proxy nor what the client wrote
  (and server_test checks that the caps on requests at once do the same)."""
import argparse
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
from procs import Tally  # noqa: E402
import submissions_e2e as sub  # noqa: E402  (archives and forms of the submissions test)

ARGS = None
TALLY = Tally()


def arbiter(*args, timeout=120):
    return subprocess.run([ARGS.arbiter, *args], capture_output=True, text=True, timeout=timeout)


def make_cert(work, name):
    cert, key = os.path.join(work, name + ".pem"), os.path.join(work, name + ".key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)
    return cert, key


class Server:
    """`arbiter serve` on a free port of 127.0.0.1 with `extra` flags, stopped by stop()."""

    def __init__(self, store, *extra, cafile=None):
        self.proc = subprocess.Popen([ARGS.arbiter, "serve", "--store", store, "--listen",
                                      "127.0.0.1:0", *extra], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"(https?)://127\.0\.0\.1:(\d+)/", line)
        if not m:
            self.stop()
            raise RuntimeError(f"serve did not start: {line!r} {self.proc.stderr.read()[-500:]!r}")
        self.scheme, self.port = m.group(1), int(m.group(2))
        self.base = f"{self.scheme}://127.0.0.1:{self.port}"
        self.context = ssl.create_default_context(cafile=cafile) if cafile else None

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def call(self, method, path, body=None, headers=None):
        """(status, headers, parsed JSON or raw bytes)."""
        req = urllib.request.Request(self.base + path, data=body, method=method,
                                     headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=60, context=self.context) as r:
                status, h, raw = r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            status, h, raw = e.code, e.headers, e.read()
        try:
            return status, h, json.loads(raw)
        except ValueError:
            return status, h, raw


def flag_errors(work, store, cert, key, other_key):
    problems = []

    def refused(what, args, words):
        r = arbiter("serve", "--store", store, "--listen", "127.0.0.1:0", *args, timeout=20)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 2 or len(lines) != 1 or words not in lines[0]:
            problems.append(f"{what}: exit {r.returncode}, {r.stderr.strip()[-300:]!r}")

    refused("--tls-cert alone", ["--tls-cert", cert], "go together")
    refused("a key of another certificate", ["--tls-cert", cert, "--tls-key", other_key],
            "not the key of the certificate")
    garbage = os.path.join(work, "garbage.pem")
    with open(garbage, "w") as f:
        f.write("not a certificate\n")
    refused("a certificate that is not PEM", ["--tls-cert", garbage, "--tls-key", key],
            "not a PEM certificate")
    refused("--behind-proxy nonsense", ["--behind-proxy", "proxy.example"], "IP address")
    r = arbiter("serve", "--store", store, "--listen", "0.0.0.0:0", "--submissions", timeout=20)
    if r.returncode != 2 or "--tls-cert" not in r.stderr:
        problems.append(f"--submissions on 0.0.0.0 without TLS: exit {r.returncode}, "
                        f"{r.stderr.strip()[-300:]!r}")
    TALLY.report("serve's TLS and proxy flags refuse what cannot work", problems, "")


def handshake_ok(port, cafile):
    context = ssl.create_default_context(cafile=cafile)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as s:
            s.sendall(b"GET /api/tournaments HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return s.recv(100).startswith(b"HTTP/1.1 200")


def tls(work, store, cert, key, token):
    problems = []
    srv = Server(store, "--submissions", "--check-matches", "2", "--tls-cert", cert, "--tls-key",
                 key, cafile=cert)
    try:
        if srv.scheme != "https":
            problems.append(f"serve printed {srv.base}, not an https address")
        status, h, body = srv.call("GET", "/api/tournaments")
        if status != 200 or "tournaments" not in body:
            problems.append(f"GET /api/tournaments over TLS: {status} {body!r:.200}")
        if "max-age" not in (h.get("Strict-Transport-Security") or ""):
            problems.append(f"no HSTS header: {dict(h)}")
        origin = {"Content-Type": "application/json", "Origin": srv.base.replace("https", "http")}
        status, _, _ = srv.call("POST", "/api/login", json.dumps({"token": token}).encode(), origin)
        if status != 403:
            problems.append(f"a login from http:// (not this TLS origin): {status}")
        status, h, body = srv.call("POST", "/api/login", json.dumps({"token": token}).encode(),
                                   {"Content-Type": "application/json", "Origin": srv.base})
        cookie = h.get("Set-Cookie") or ""
        if status != 200 or "; Secure" not in cookie or "HttpOnly" not in cookie:
            problems.append(f"login over TLS: {status}, cookie {cookie!r}")
        # Bigger than a plain request body: it waits at the gate, then is read over TLS.
        archive = sub.kit_archive("tlsbot", noise="tls stderr") + os.urandom(300 << 10)
        form_body, form = sub.multipart("archive", "tlsbot.tar.gz", archive)
        status, _, body = srv.call("POST", "/api/bots", form_body, {**sub.bearer(token), **form})
        if status != 202:
            problems.append(f"an upload of {len(form_body)} bytes over TLS: {status} {body!r:.300}")
        else:
            sub.ARGS = ARGS
            status, body = sub.wait_status(srv, token, body["bot"], body["version"])
            if body.get("status") != "active":
                problems.append(f"the TLS upload was not built and checked: {body!r:.400}")
            elif "== bot check ==" not in (body.get("build_log") or ""):
                problems.append(f"no check report in the build log: {body!r:.400}")
        # What is not TLS, or never finishes its handshake, holds nothing.
        with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as plain:
            plain.sendall(b"GET /api/tournaments HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            try:
                got = plain.recv(100)
            except OSError:
                got = b""
            if got.startswith(b"HTTP/1.1 200"):
                problems.append("plain HTTP was answered on the TLS port")
        held = []
        for i in range(100):
            c = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
            # A ClientHello's first bytes, never finished; or garbage.
            c.sendall(b"\x16\x03\x01\x02\x00\x01" if i % 2 else b"\x00garbage\r\n\r\n")
            held.append(c)
        started = time.monotonic()
        if not handshake_ok(srv.port, cert):
            problems.append("a real client was not served beside 100 half-open handshakes")
        beside = time.monotonic() - started
        if beside > 3:
            problems.append(f"a real client waited {beside:.1f} s beside 100 half-open handshakes")
        deadline = time.monotonic() + 15
        open_left = 0
        for c in held:
            c.settimeout(max(deadline - time.monotonic(), 0.1))
            try:
                while c.recv(4096):
                    pass
            except OSError:
                open_left += isinstance(c.gettimeout(), float) and time.monotonic() >= deadline
            c.close()
        if open_left:
            problems.append(f"{open_left} half-open handshakes were still open after 15 s")
        if srv.proc.poll() is not None:
            problems.append(f"the server died: {srv.proc.stderr.read()[-500:]!r}")
    finally:
        srv.stop()
    TALLY.report("serve --submissions over TLS", problems,
                 f"a client beside 100 half-open handshakes in {beside * 1000:.0f} ms")


def raw_request(port, head, source=None):
    """The first bytes answered to `head` from `source` (an address of this machine), b"" when
    the connection is closed unanswered."""
    with socket.create_connection(("127.0.0.1", port), timeout=10,
                                  source_address=(source, 0) if source else None) as c:
        c.sendall(head)
        got = b""
        try:
            while len(got) < 65536:
                piece = c.recv(65536)
                if not piece:
                    break
                got += piece
        except ConnectionResetError:
            pass
        return got


def proxy(work, store, token, token2):
    problems = []
    srv = Server(store, "--submissions", "--check-matches", "2", "--behind-proxy", "127.0.0.1",
                 "--uploads-per-address", "1")
    try:
        head = b"GET /api/tournaments HTTP/1.1\r\nHost: arbiter.example\r\nX-Forwarded-For: " \
               b"203.0.113.7\r\n\r\n"
        got = raw_request(srv.port, head, source="127.0.0.2")
        if got:
            problems.append(f"a connection not from the proxy was answered: {got!r}")
        got = raw_request(srv.port, head)
        if not got.startswith(b"HTTP/1.1 200"):
            problems.append(f"a request through the proxy: {got!r}")
        login = json.dumps({"token": token}).encode()
        got = raw_request(srv.port, b"POST /api/login HTTP/1.1\r\nHost: arbiter.example\r\n"
                          b"Origin: https://arbiter.example\r\nX-Forwarded-For: 203.0.113.7\r\n"
                          b"Content-Type: application/json\r\nContent-Length: "
                          + str(len(login)).encode() + b"\r\n\r\n" + login)
        if not got.startswith(b"HTTP/1.1 200"):
            problems.append(f"a login through the proxy: {got!r}")
        elif b"; Secure" not in got:
            problems.append(f"the proxied login's cookie is not Secure: {got!r}")
        # A client's own X-Forwarded-For line comes first; the proxy's own line, last, is what
        # counts: 31 refused tokens, each with another address of the client's own, throttle
        # the address the proxy named, and nobody else.
        for i in range(31):
            raw_request(srv.port, b"GET /api/me HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 10.1.1."
                        + str(i).encode() + b"\r\nX-Forwarded-For: 198.51.100.9\r\n"
                        b"Authorization: Bearer tess." + b"0" * 64 + b"\r\n\r\n")
        me = b"GET /api/me HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer " + token.encode() + \
            b"\r\nX-Forwarded-For: "
        if not raw_request(srv.port, me + b"198.51.100.9\r\n\r\n").startswith(b"HTTP/1.1 429"):
            problems.append("a client that spoofed its first X-Forwarded-For line was not throttled")
        if not raw_request(srv.port, me + b"10.1.1.3\r\n\r\n").startswith(b"HTTP/1.1 200"):
            problems.append("an address a client named in its own line was throttled")
        # The uploads per address count the client the proxy names: a second upload of that
        # client's, by another author, is over it; another client's is not.
        codes = []
        for author, client in ((token, "198.51.100.1"), (token2, "198.51.100.1"),
                               (token2, "198.51.100.2")):
            archive = sub.kit_archive(author.split(".")[0] + "bot")
            got = raw_request(srv.port, b"POST /api/bots HTTP/1.1\r\nHost: a\r\nAuthorization: "
                              b"Bearer " + author.encode() + b"\r\nX-Forwarded-For: "
                              + client.encode() + b"\r\nContent-Type: application/gzip\r\n"
                              b"Content-Length: " + str(len(archive)).encode() + b"\r\n\r\n"
                              + archive)
            codes.append(got[9:12].decode(errors="replace"))
            if codes[-1] == "429" and b"from one address" not in got:
                problems.append(f"a 429 that does not name the address cap: {got[-200:]!r}")
        if codes != ["202", "429", "202"]:
            problems.append(f"uploads of one client, then of another, through the proxy: {codes}")
    finally:
        srv.stop()
    TALLY.report("serve --submissions --behind-proxy", problems, "")


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--arbiter", required=True)
    ARGS = p.parse_args()
    ARGS.arbiter = os.path.abspath(ARGS.arbiter)
    sub.ARGS = ARGS
    work = tempfile.mkdtemp(prefix="arbiter-tls-")
    os.environ["XDG_CACHE_HOME"] = os.path.join(work, "xdg")
    store = "sqlite:" + os.path.join(work, "league.db")
    cert, key = make_cert(work, "server")
    _, other_key = make_cert(work, "other")
    arbiter("tournament", "run", "-g", "battleship", "-p", "a:random", "-p", "b:random",
            "--rounds", "1", "--store", store)
    token, token2 = (arbiter("author", "add", name, "--store", store).stdout.strip().rsplit(" ", 1)[-1]
                     for name in ("tess", "pat"))
    checks = [lambda: flag_errors(work, store, cert, key, other_key),
              lambda: tls(work, store, cert, key, token),
              lambda: proxy(work, store, token, token2)]
    return TALLY.run_all(checks, tmp=work)


if __name__ == "__main__":
    sys.exit(main())
