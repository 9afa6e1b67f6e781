#!/usr/bin/env python3
"""Authors and their bots from the command line (docs/competition.md): `author add` prints a
token once (or writes it to a 0600 file) and the store holds no copy of it; names and roles are
checked before anything is made; `author list` and `author revoke`; `bot add --author` makes the
bot's name the author's: another author, or an author on the organizer's bot, is refused and
nothing is stored, a revoked or unknown author is refused, the organizer may add to any name.

Then `serve --submissions` over HTTP, attacked from outside: no login, forged and revoked
tokens (401); a session cookie (HttpOnly, SameSite=Strict) whose writes need the CSRF token and
no foreign Origin (403); a big body without a login refused before it is read (413); uploads
by form (curl -F) and by cookie that build and pass the check; a build that fails, with its log;
another author's versions (403, by every route), the organizer's view; retire and bring back;
garbage and crafted archives (400, nothing stored); traversal in route parameters (404); the
per-author upload rate (429)."""
import argparse
import hashlib
import hmac
import io
import json
import re
import tarfile
import time
import urllib.error
import urllib.request
import os
import shutil
import socket
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from procs import Tally  # noqa: E402

ARGS = None
TALLY = Tally()


def arbiter(*args, timeout=300):
    return subprocess.run([ARGS.arbiter, *args], capture_output=True, text=True, timeout=timeout)


def kit_bot(work, name, folder):
    """The Python battleship kit bot under another name, in a folder of its own."""
    d = os.path.join(work, folder)
    shutil.copytree(os.path.join(ROOT, "bots", "kits", "python", "battleship"), d)
    with open(os.path.join(d, "arbiter-bot.toml"), "w") as f:
        f.write(f'name = "{name}"\ngame = "battleship"\nlanguage = "python"\n'
                'run = ["python3", "bot.py"]\n')
    return d


def one_error_line(r, code, words):
    """Exit `code` and one error line saying `words` (bot add may say what it read first)."""
    lines = r.stderr.strip().splitlines()
    problems = []
    if r.returncode != code:
        problems.append(f"exit {r.returncode}, expected {code}")
    errors = [l for l in lines if l.startswith("arbiter: ")]
    if len(errors) != 1 or errors[0] != lines[-1] or words not in errors[0]:
        problems.append(f"stderr has not one error line saying {words!r}: {r.stderr.strip()[:300]!r}")
    return problems


def blobs(db):
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM blobs").fetchone()[0]


def authors(work, store, db):
    problems = []
    ann = arbiter("author", "add", "ann", "--store", store)
    token = ann.stdout.strip().rsplit(" ", 1)[-1]
    if ann.returncode != 0 or not token.startswith("ann.") or len(token) != 68:
        problems.append(f"author add: exit {ann.returncode}: {ann.stdout!r} {ann.stderr!r}")
    tok_file = os.path.join(work, "org.token")
    org = arbiter("author", "add", "org", "--role", "organizer", "--token-file", tok_file,
                  "--store", store)
    if org.returncode != 0 or "ann." in org.stdout or not os.path.exists(tok_file):
        problems.append(f"author add --token-file: {org.stdout!r} {org.stderr!r}")
    else:
        mode = stat.S_IMODE(os.stat(tok_file).st_mode)
        if mode != 0o600:
            problems.append(f"the token file has mode {oct(mode)}")
        if not open(tok_file).read().startswith("org."):
            problems.append("the token file holds no org token")
    # The store holds neither token (only salted hashes).
    with sqlite3.connect(db) as conn:
        rows = " ".join(str(r) for r in conn.execute("SELECT * FROM authors"))
    for t in (token[4:], open(tok_file).read().strip()[4:] if os.path.exists(tok_file) else ""):
        if t and t in rows:
            problems.append("a token's secret is in the store")
    problems += one_error_line(arbiter("author", "add", "ann", "--store", store), 2, "exists already")
    fresh = os.path.join(work, "fresh.db")
    problems += one_error_line(arbiter("author", "add", "a.b", "--store", "sqlite:" + fresh), 2,
                               "1 to 20 ASCII letters or digits")
    bad_role = arbiter("author", "add", "zed", "--role", "admin", "--store", "sqlite:" + fresh)
    if bad_role.returncode != 2:
        problems.append(f"--role admin: exit {bad_role.returncode}")
    if os.path.exists(fresh):
        problems.append("a refused author add made a store")
    listed = arbiter("author", "list", "--store", store)
    if listed.returncode != 0 or "ann" not in listed.stdout or "organizer" not in listed.stdout:
        problems.append(f"author list: {listed.stdout!r}")
    TALLY.report("authors are made once, with a token shown once", problems,
                 f"token {token[:8]}..., file mode 0600, none in the store")
    return token


def ownership(work, store, db):
    problems = []
    arbiter("author", "add", "ben", "--store", store)
    gate = ["--matches", "2"]
    a1 = arbiter("bot", "add", kit_bot(work, "annbot", "a1"), "--author", "ann", *gate, "--store", store)
    if a1.returncode != 0 or "annbot@1" not in a1.stdout:
        problems.append(f"ann's first version: exit {a1.returncode}: {a1.stdout!r} {a1.stderr[-300:]!r}")
    stored = blobs(db)
    stolen = arbiter("bot", "add", kit_bot(work, "annbot", "b1"), "--author", "ben", *gate,
                     "--store", store)
    problems += one_error_line(stolen, 2, "belongs to another author")
    if blobs(db) != stored:
        problems.append("a refused version's files were stored")
    house = arbiter("bot", "add", kit_bot(work, "house", "h1"), *gate, "--store", store)
    if house.returncode != 0:
        problems.append(f"the organizer's bot: exit {house.returncode}: {house.stderr[-300:]!r}")
    claimed = arbiter("bot", "add", kit_bot(work, "house", "h2"), "--author", "ann", *gate,
                      "--store", store)
    problems += one_error_line(claimed, 2, "belongs to the organizer")
    by_org = arbiter("bot", "add", kit_bot(work, "annbot", "o1"), *gate, "--store", store)
    if by_org.returncode != 0 or "annbot@2" not in by_org.stdout:
        problems.append(f"the organizer adding to ann's bot: {by_org.stdout!r} {by_org.stderr[-300:]!r}")
    problems += one_error_line(arbiter("bot", "add", kit_bot(work, "zbot", "z1"), "--author", "zed",
                                       *gate, "--store", store), 2, "no author zed")
    versions = arbiter("bot", "versions", "annbot", "--store", store).stdout.splitlines()
    if len(versions) != 2:
        problems.append(f"annbot has {len(versions)} versions, expected 2: {versions}")
    shown = arbiter("bot", "show", "annbot@2", "--store", store).stdout
    if "author:   ann" not in shown:
        problems.append(f"bot show does not name ann: {shown!r}")
    listed = arbiter("author", "list", "--store", store).stdout
    if not any(l.startswith("ann ") and l.rstrip().endswith("annbot") for l in listed.splitlines()):
        problems.append(f"author list does not give ann's bots: {listed!r}")
    TALLY.report("a bot's name belongs to its first author", problems,
                 "ben and ann refused on others' names; the organizer may add")


def revoking(work, store, token):
    problems = []
    r = arbiter("author", "revoke", "ann", "--store", store)
    if r.returncode != 0 or "revoked" not in r.stdout:
        problems.append(f"revoke: exit {r.returncode}: {r.stdout!r} {r.stderr!r}")
    problems += one_error_line(arbiter("author", "revoke", "ann", "--store", store), 2,
                               "revoked already")
    problems += one_error_line(arbiter("author", "revoke", "nobody", "--store", store), 2,
                               "no author nobody")
    problems += one_error_line(arbiter("bot", "add", kit_bot(work, "annbot", "a3"), "--author", "ann",
                                       "--matches", "2", "--store", store), 2, "was revoked")
    TALLY.report("a revoked author adds nothing more", problems, "")


class Server:
    """`arbiter serve --submissions` on a free port of 127.0.0.1, stopped by stop()."""

    def __init__(self, store, *extra):
        self.proc = subprocess.Popen([ARGS.arbiter, "serve", "--store", store, "--listen",
                                      "127.0.0.1:0", "--submissions", "--check-matches", "2",
                                      *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not m:
            self.stop()
            raise RuntimeError(f"serve did not start: {line!r} {self.proc.stderr.read()[-500:]!r}")
        self.base = f"http://127.0.0.1:{m.group(1)}"

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def call(self, method, path, body=None, headers=None):
        """(status, headers, parsed JSON or text)."""
        req = urllib.request.Request(self.base + path, data=body, method=method,
                                     headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                status, h, raw = r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            status, h, raw = e.code, e.headers, e.read()
        try:
            return status, h, json.loads(raw)
        except ValueError:
            return status, h, raw.decode(errors="replace")


def tar_gz(files, top="bot", links=None):
    """A .tar.gz of {path: text} (a str key with "../" makes a crafted archive); `links` maps
    paths to symlink targets."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as t:
        for path, text in files.items():
            info = tarfile.TarInfo(f"{top}/{path}" if top else path)
            if links and path in links:
                info.type, info.linkname = tarfile.SYMTYPE, links[path]
                t.addfile(info)
                continue
            data = text.encode()
            info.size = len(data)
            info.mode = 0o755 if path.endswith(".py") else 0o644
            t.addfile(info, io.BytesIO(data))
    return out.getvalue()


def kit_archive(name, build=None, noise=None):
    bot = open(os.path.join(ROOT, "bots", "kits", "python", "battleship", "bot.py")).read()
    if noise:  # a line on stderr as it starts: only its author may read it
        bot = bot.replace("import sys\n", f"import sys\nsys.stderr.write({noise!r} + '\\n')\n", 1)
    manifest = f'name = "{name}"\ngame = "battleship"\nrun = ["python3", "bot.py"]\n'
    if build:
        manifest += "build = " + json.dumps(build) + "\n"
    return tar_gz({"arbiter-bot.toml": manifest, "bot.py": bot})


def multipart(field, filename, data):
    boundary = "arbiterboundary7e3"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; "
            f"filename=\"{filename}\"\r\nContent-Type: application/gzip\r\n\r\n").encode()
    body += data + f"\r\n--{boundary}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def wait_status(srv, token, bot, version, timeout=120):
    until = time.time() + timeout
    while True:
        status, _, body = srv.call("GET", f"/api/bots/{bot}/versions/{version}", headers=bearer(token))
        if status != 200 or body["status"] not in ("building", "checking") or time.time() > until:
            return status, body
        time.sleep(0.3)


def web(work, store, db):
    tokens = {}
    for name, role in (("wa", "author"), ("wb", "author"), ("boss", "organizer"), ("gone", "author"),
                       ("h1", "author"), ("h2", "author"), ("h3", "author"), ("h4", "author"),
                       ("h5", "author")):
        r = arbiter("author", "add", name, "--role", role, "--store", store)
        tokens[name] = r.stdout.strip().rsplit(" ", 1)[-1]
    arbiter("author", "revoke", "gone", "--store", store)
    hooks = Receiver()
    bad_hook = arbiter("author", "webhook", "wb", "ftp://127.0.0.1/x", "--store", store)
    made = arbiter("author", "webhook", "wb", f"http://127.0.0.1:{hooks.port}/wb-events", "--store", store)
    key = made.stdout.strip().rsplit(" ", 1)[-1]
    boss_hook = arbiter("author", "webhook", "boss", f"http://127.0.0.1:{hooks.port}/boss-events",
                        "--store", store)
    boss_key = boss_hook.stdout.strip().rsplit(" ", 1)[-1]
    srv = Server(store, "--uploads-per-hour", "8")
    try:
        web_checks(srv, tokens, db, store)
    finally:
        srv.stop()
        hooks.stop()
    problems = []
    if bad_hook.returncode != 2:
        problems.append(f"an ftp:// webhook: exit {bad_hook.returncode}")
    events, boss_events = [], []
    for path, headers, body in hooks.got:
        signer = key if path == "/wb-events" else boss_key
        expected = "sha256=" + hmac.new(signer.encode(), body, hashlib.sha256).hexdigest()
        if path not in ("/wb-events", "/boss-events") or headers.get("X-Arbiter-Signature") != expected:
            problems.append(f"a webhook POST to {path} signed {headers.get('X-Arbiter-Signature')!r}")
        (events if path == "/wb-events" else boss_events).append(json.loads(body))
    # The organizer's webhook hears of every author's versions.
    if not {"wabot", "wbbot"} <= {e["bot"] for e in boss_events}:
        problems.append(f"the organizer's webhook did not hear of every bot: {boss_events[:5]}")
    if not any(e["bot"] == "wbbot" and e["status"] == "build-failed" for e in events):
        problems.append(f"wb's webhook never heard of the failed build: {events}")
    if any(e["bot"] != "wbbot" for e in events):
        problems.append(f"wb's webhook heard of others' bots: {events}")
    TALLY.report("webhooks are posted, signed, to their author (and organizers) only", problems,
                 f"{len(events)} events to the author, {len(boss_events)} to the organizer, "
                 "every signature checked")


class Receiver:
    """An HTTP server on 127.0.0.1 that keeps every POST: (path, headers, body)."""

    def __init__(self):
        import http.server
        got = self.got = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                got.append((self.path, dict(self.headers), body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()


def web_checks(srv, tokens, db, store):
    problems = []

    def expect(what, got, status):
        if got[0] != status:
            problems.append(f"{what}: {got[0]}, expected {status}: {str(got[2])[:200]}")
        return got

    wa, wb = tokens["wa"], tokens["wb"]
    forged = "wa." + ("0" if wa[3] != "0" else "1") + wa[4:]
    expect("GET /api/me without a login", srv.call("GET", "/api/me"), 401)
    for label, tok in (("forged", forged), ("revoked", tokens["gone"]), ("malformed", "x"),
                       ("another's secret", "wb." + wa[3:])):
        expect(f"a {label} token", srv.call("GET", "/api/me", headers=bearer(tok)), 401)
        expect(f"a login with a {label} token",
               srv.call("POST", "/api/login", json.dumps({"token": tok}).encode()), 401)
    stored = blobs(db)
    big = kit_archive("wabot") + b"\0" * (100 << 10)
    expect("a big upload without a login", srv.call("POST", "/api/bots", big), 413)
    expect("a small upload without a login", srv.call("POST", "/api/bots", kit_archive("wabot")), 401)
    expect("an upload with a forged token",
           srv.call("POST", "/api/bots", kit_archive("wabot"), bearer(forged)), 401)

    # A browser's login: the cookie, then writes that need the CSRF token.
    status, h, me = expect("login", srv.call("POST", "/api/login", json.dumps({"token": wa}).encode(),
                                             {"Content-Type": "application/json"}), 200)
    set_cookie = h.get("Set-Cookie", "")
    for attr in ("HttpOnly", "SameSite=Strict", "Path=/"):
        if attr not in set_cookie:
            problems.append(f"the session cookie lacks {attr}: {set_cookie!r}")
    cookie = {"Cookie": set_cookie.split(";")[0]}
    csrf = me.get("csrf", "") if isinstance(me, dict) else ""
    body, form = multipart("archive", "wabot.tar.gz", kit_archive("wabot", noise="wa's own debug line"))
    expect("an upload by cookie without the CSRF token",
           srv.call("POST", "/api/bots", body, {**cookie, **form}), 403)
    expect("an upload by cookie from another site",
           srv.call("POST", "/api/bots", body, {**cookie, **form, "X-CSRF-Token": csrf,
                                                "Origin": "http://evil.example"}), 403)
    if blobs(db) != stored:
        problems.append("a refused upload stored files")
    up = expect("an upload by cookie with the CSRF token",
                srv.call("POST", "/api/bots", body, {**cookie, **form, "X-CSRF-Token": csrf}), 202)
    if up[0] == 202 and (up[2]["bot"], up[2]["version"], up[2]["author"]) != ("wabot", 1, "wa"):
        problems.append(f"the upload answered {up[2]}")
    status, v = wait_status(srv, wa, "wabot", 1)
    if v.get("status") != "active":
        problems.append(f"wabot@1 ended {v.get('status')}: {v.get('reason')}")
    log = v.get("build_log") or ""
    if "== bot check ==" not in log or "every check passed" not in log or "ok   legal" not in log:
        problems.append(f"wabot@1's log lacks its check report: {log[-300:]!r}")

    # The event stream tells a version's changes as they happen, to its author only.
    heard = {"wb": [], "wa": []}

    def listen(name, token):
        req = urllib.request.Request(srv.base + "/api/my/events", headers=bearer(token))
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                end = time.monotonic() + 25
                while time.monotonic() < end:
                    line = r.readline().decode()
                    if line.startswith("data: "):
                        heard[name].append(json.loads(line[6:]))
                        if heard[name][-1]["status"] == "build-failed":
                            return
        except (OSError, ValueError):
            pass

    listeners = [threading.Thread(target=listen, args=(n, tokens[n]), daemon=True) for n in ("wb", "wa")]
    for t in listeners:
        t.start()
    time.sleep(0.5)
    # A build that fails: its log says why; by form, with a bearer token (curl -F).
    body, form = multipart("archive", "wbbot.tar.gz",
                           kit_archive("wbbot", ["sh", "-c", "echo the build broke >&2; exit 3"]))
    expect("an upload by bearer token", srv.call("POST", "/api/bots", body, {**bearer(wb), **form}), 202)
    status, v = wait_status(srv, wb, "wbbot", 1)
    if v.get("status") != "build-failed" or "the build broke" not in (v.get("build_log") or ""):
        problems.append(f"the failing build: {v.get('status')} {str(v.get('build_log'))[:200]!r}")
    listeners[0].join()
    statuses = [(e["bot"], e["status"]) for e in heard["wb"]]
    if statuses[-1:] != [("wbbot", "build-failed")]:
        problems.append(f"wb's event stream said {statuses}")
    if any(e["bot"] == "wbbot" for e in heard["wa"]):
        problems.append(f"wa's event stream told of wb's bot: {heard['wa']}")

    # Another author's versions, by every route.
    expect("wb reading wa's version", srv.call("GET", "/api/bots/wabot/versions/1", headers=bearer(wb)), 403)
    expect("wb retiring wa's version",
           srv.call("POST", "/api/bots/wabot/versions/1/retire", b"", bearer(wb)), 403)
    expect("wb uploading to wa's name",
           srv.call("POST", "/api/bots", kit_archive("wabot"), bearer(wb)), 400)
    mine = srv.call("GET", "/api/my/bots", headers=bearer(wb))[2]
    if any(x["bot"] != "wbbot" for x in mine.get("versions", [])):
        problems.append(f"wb's list shows others' bots: {mine}")
    boss = srv.call("GET", "/api/bots/wabot/versions/1", headers=bearer(tokens["boss"]))
    if boss[0] != 200:
        problems.append(f"the organizer cannot read wa's version: {boss[0]}")
    everything = srv.call("GET", "/api/my/bots", headers=bearer(tokens["boss"]))[2]
    if {x["bot"] for x in everything.get("versions", [])} < {"wabot", "wbbot"}:
        problems.append(f"the organizer's list lacks bots: {everything}")
    expect("retiring one's own", srv.call("POST", "/api/bots/wabot/versions/1/retire", b"", bearer(wa)), 200)
    expect("retiring it twice", srv.call("POST", "/api/bots/wabot/versions/1/retire", b"", bearer(wa)), 409)
    expect("bringing it back", srv.call("POST", "/api/bots/wabot/versions/1/activate", b"", bearer(wa)), 200)

    # Garbage and crafted archives; traversal in parameters.
    stored = blobs(db)
    expect("a garbage upload", srv.call("POST", "/api/bots", b"\x00garbage" * 100, bearer(wa)), 400)
    crafted = tar_gz({"arbiter-bot.toml": 'name = "evil"\ngame = "battleship"\nrun = ["x"]\n',
                      "../../escape.py": "print(1)"}, top="")
    expect("a crafted archive", srv.call("POST", "/api/bots", crafted, bearer(wa)), 400)
    chained = tar_gz({"arbiter-bot.toml": 'name = "chain"\ngame = "battleship"\nrun = ["x"]\n',
                      "d/x": None, "d/y": None}, top="", links={"d/x": ".",
                                                             "d/y": "x/x/x/../../../../etc/passwd"})
    expect("a link through a link", srv.call("POST", "/api/bots", chained, bearer(wa)), 400)
    other_game = tar_gz({"arbiter-bot.toml": 'name = "wabot"\ngame = "q"\nrun = ["python3", "bot.py"]\n',
                         "bot.py": "x" * 5000})
    expect("a version of another game", srv.call("POST", "/api/bots", other_game, bearer(wa)), 400)
    expect("a name one case away from another's",
           srv.call("POST", "/api/bots", kit_archive("WAbot"), bearer(wb)), 400)
    if blobs(db) != stored:
        problems.append("a refused archive stored files")
    expect("a request to another host name (DNS rebinding)",
           srv.call("GET", "/api/me", headers={**bearer(wa), "Host": "evil.example"}), 421)
    # Logins of one author push out only that author's oldest sessions.
    for _ in range(40):
        srv.call("POST", "/api/login", json.dumps({"token": wb}).encode(),
                 {"Content-Type": "application/json"})
    expect("wa's session after wb logged in 40 times", srv.call("GET", "/api/me", headers=cookie), 200)
    for path in ("/api/bots/..%2F..%2Fetc/versions/1", "/api/bots/wabot/versions/..%2F1",
                 "/api/bots/wa%00bot/versions/1"):
        expect(f"GET {path}", srv.call("GET", path, headers=bearer(wa)), 404)
    # The rate: eight uploads an hour (five made by wa so far, refused ones count).
    codes = [srv.call("POST", "/api/bots", b"x", bearer(wa))[0] for _ in range(4)]
    if codes != [400, 400, 400, 429]:
        problems.append(f"the sixth to ninth uploads of the hour: {codes}")
    big = kit_archive("wabot") + b"\0" * (100 << 10)
    expect("a big upload over the hour's cap (refused before its body)",
           srv.call("POST", "/api/bots", big, bearer(wa)), 429)
    # 200 connections that trickle their heads while an author uploads: the upload goes through.
    slow = []
    for _ in range(200):
        try:
            c = socket.create_connection(("127.0.0.1", int(srv.base.rsplit(":", 1)[1])), timeout=5)
            c.sendall(b"POST /api/bots HTTP/1.1\r\nHost: x\r\n")
            slow.append(c)
        except OSError:
            break
    started = time.monotonic()
    body, form = multipart("archive", "wbbot2.tar.gz", kit_archive("wbbot"))
    under_siege = srv.call("POST", "/api/bots", body, {**bearer(wb), **form})
    took = time.monotonic() - started
    for c in slow:
        c.close()
    if len(slow) < 200 or under_siege[0] != 202:
        problems.append(f"an upload beside {len(slow)} slow connections: {under_siege[0]} "
                        f"{str(under_siege[2])[:200]}")
    # Four authors who send an upload's head and no body hold the four upload slots only while
    # they keep the pace (5 s, then 64 KiB a second): then they go, and another author uploads.
    holders = []
    for h in ("h1", "h2", "h3", "h4"):
        c = socket.create_connection(("127.0.0.1", int(srv.base.rsplit(":", 1)[1])), timeout=30)
        c.sendall(f"POST /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {tokens[h]}\r\n"
                  f"Content-Length: {16 << 20}\r\n\r\n".encode())
        holders.append(c)
    time.sleep(0.5)
    body, form = multipart("archive", "held.tar.gz", kit_archive("h5bot") + b"\0" * (100 << 10))
    held_out = srv.call("POST", "/api/bots", body, {**bearer(tokens["h5"]), **form})
    started = time.monotonic()
    freed = None
    while time.monotonic() - started < 20:
        time.sleep(0.5)
        attempt = srv.call("POST", "/api/bots", body, {**bearer(tokens["h5"]), **form})
        if attempt[0] == 202:
            freed = time.monotonic() - started
            break
    answers = []
    for c in holders:
        try:
            answers.append(c.recv(200).split(b"\r\n")[0].decode())
        except OSError as e:
            answers.append(str(e))
        c.close()
    if held_out[0] != 503 or freed is None or not all("408" in a for a in answers):
        problems.append(f"four idle uploads: the fifth got {held_out[0]}, a slot came free after "
                        f"{freed} s, the idle ones heard {answers}")
    # Strangers who keep sending upload heads with forged tokens (from 127.0.0.3, a loopback
    # alias) take no upload slot, and their address is soon throttled: 429 for its tokens, good
    # ones too, while the authors' own address is not.
    flood_stop = threading.Event()

    def flood():
        while not flood_stop.is_set():
            try:
                c = socket.create_connection(("127.0.0.1", int(srv.base.rsplit(":", 1)[1])), timeout=5,
                                             source_address=("127.0.0.3", 0))
                c.sendall(f"POST /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                          f"zed.{'0' * 64}\r\nContent-Length: 1000000\r\n\r\n".encode())
                c.recv(100)
                c.close()
            except OSError:
                pass

    flooders = [threading.Thread(target=flood, daemon=True) for _ in range(30)]
    for t in flooders:
        t.start()
    time.sleep(0.3)
    flooded = [srv.call("POST", "/api/bots", body, {**bearer(tokens[h]), **form})[0]
               for h in ("h1", "h2", "h3", "h4") for _ in range(2)]
    flood_stop.set()
    for t in flooders:
        t.join()
    if any(code not in (202, 400) for code in flooded):
        problems.append(f"uploads during a flood of forged upload heads: {flooded}")
    with socket.create_connection(("127.0.0.1", int(srv.base.rsplit(":", 1)[1])), timeout=5,
                                  source_address=("127.0.0.3", 0)) as c:
        c.sendall(f"GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                  f"{tokens['h1']}\r\n\r\n".encode())
        throttled = b""
        while piece := c.recv(4096):
            throttled += piece
    if not throttled.startswith(b"HTTP/1.1 429") or b"refused tokens" not in throttled:
        problems.append(f"the flooding address was not throttled: {throttled!r}")
    # The same from slow connections that keep coming back (all from 127.0.0.1, as through an
    # SSH tunnel), against an upload that itself arrives slowly: it is never dropped for them.
    port = int(srv.base.rsplit(":", 1)[1])
    stop = threading.Event()

    def slowloris():
        while not stop.is_set():
            held = []
            for _ in range(70):
                try:
                    c = socket.create_connection(("127.0.0.1", port), timeout=5)
                    c.sendall(b"GET / HTTP/1.1\r\n")
                    held.append(c)
                except OSError:
                    pass
            for _ in range(20):
                if stop.is_set():
                    break
                for c in held:
                    try:
                        c.sendall(b"X")
                    except OSError:
                        pass
                time.sleep(0.05)
            for c in held:
                c.close()

    siege = threading.Thread(target=slowloris)
    siege.start()
    time.sleep(0.5)
    body, form = multipart("archive", "wbbot3.tar.gz", kit_archive("wbbot") + b"\0" * (2 << 20))
    head = (f"POST /api/bots HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {wb}\r\n"
            f"Content-Type: {form['Content-Type']}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    answer = b""
    try:
        up = socket.create_connection(("127.0.0.1", port), timeout=30)
        up.sendall(head)
        for at in range(0, len(body), 100 << 10):
            up.sendall(body[at:at + (100 << 10)])
            time.sleep(0.2)
        while True:
            got = up.recv(65536)
            if not got:
                break
            answer += got
        up.close()
    except OSError as e:
        answer += f" ({e})".encode()
    stop.set()
    siege.join()
    if not answer.startswith(b"HTTP/1.1 202"):
        problems.append(f"a slow upload beside returning slow connections: {answer[:200]!r}")
    # A store that is busy (another process holds its write lock) while an upload waits on it:
    # a head the gate must check waits on its own thread, and the rest is served meanwhile.
    locker = sqlite3.connect(db, isolation_level=None, timeout=1)
    locker.execute("BEGIN IMMEDIATE")
    waiting = threading.Thread(target=lambda: srv.call("POST", "/api/bots", kit_archive("wbbot"),
                                                       {**bearer(wb), "Content-Type": "application/gzip"}))
    waiting.start()
    time.sleep(0.5)
    probe = socket.create_connection(("127.0.0.1", port), timeout=5)
    probe.sendall(f"POST /api/bots HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wa.{'0' * 64}\r\n"
                  f"Content-Length: 100000\r\n\r\n".encode())
    time.sleep(0.3)
    started = time.monotonic()
    static = srv.call("GET", "/index.html")
    busy_static = time.monotonic() - started
    locker.execute("ROLLBACK")
    locker.close()
    waiting.join()
    probe.close()
    if static[0] != 200 or busy_static > 2:
        problems.append(f"a static page while the store was locked: {static[0]} in {busy_static:.1f} s")
    # A ladder plays wa's bot: its stderr is wa's (and the organizer's) to read, nobody else's.
    arbiter("ladder", "create", "cup", "-g", "battleship", "--anchor", "h:hunt", "--store", store)
    ran = arbiter("ladder", "run", "cup", "--workers", "2", "--until-rated", "40", "-q", "--store", store)
    if ran.returncode != 0:
        problems.append(f"ladder run: {ran.stderr[-300:]}")
    board = srv.call("GET", "/api/ladders/1")[2]
    mine = next((r for r in board.get("rows", []) if r["name"] == "wabotv1"), None)
    if not mine:
        problems.append(f"wabot is not on the ladder: {board}")
    else:
        page = f"/api/ladders/1/entrants/{mine['entrant']}"
        for label, headers, shown in (("wa", bearer(wa), True), ("the organizer", bearer(tokens["boss"]), True),
                                      ("wb", bearer(wb), False), ("a stranger", {}, False)):
            got = srv.call("GET", page, headers=headers)[2]
            tails = " ".join(t.get("tail") or "" for t in got.get("stderr", []))
            if shown and "wa's own debug line" not in tails:
                problems.append(f"{label} does not see wa's stderr on its entrant page: {got.get('stderr')}")
            if not shown and ("stderr" in got or "wa's own debug line" in json.dumps(got)):
                problems.append(f"{label} sees wa's stderr")
    # The organizer's console; an author is refused it.
    boss = bearer(tokens["boss"])
    expect("an author pausing the ladder", srv.call("POST", "/api/ladders/1/pause", b"", bearer(wa)), 403)
    expect("the organizer pausing the ladder", srv.call("POST", "/api/ladders/1/pause", b"", boss), 200)
    expect("pausing it twice", srv.call("POST", "/api/ladders/1/pause", b"", boss), 409)
    state = arbiter("ladder", "status", "cup", "--store", store).stdout
    if "paused" not in state:
        problems.append(f"ladder status after the pause: {state[:200]!r}")
    expect("the organizer resuming it", srv.call("POST", "/api/ladders/1/resume", b"", boss), 200)
    expect("pausing a ladder that is not there", srv.call("POST", "/api/ladders/99/pause", b"", boss), 404)
    # Test matches on request: one's own entrant against anyone, unrated, after the queue.
    def ask(token, seats):
        return srv.call("POST", "/api/ladders/1/tests", json.dumps({"seats": seats}).encode(),
                        {**bearer(token), "Content-Type": "application/json"})

    asked = expect("wa asks for a test match", ask(wa, ["wabotv1", "h"]), 202)[2]
    expect("wb asks for a test of wa's entrant", ask(wb, ["wabotv1", "h"]), 403)
    expect("a test against nobody", ask(wa, ["wabotv1", "nobody"]), 400)
    expect("a test of three seats", ask(wa, ["wabotv1", "h", "h"]), 400)
    expect("a test with a seat that is not a name",
           srv.call("POST", "/api/ladders/1/tests", b'{"seats":["h",5,"wabotv1"]}',
                    {**bearer(wa), "Content-Type": "application/json"}), 400)
    expect("a test without a login", srv.call("POST", "/api/ladders/1/tests", b'{"seats":["h"]}'), 401)
    expect("a test in no ladder",
           srv.call("POST", "/api/ladders/99/tests", b'{"seats":["wabotv1","h"]}', bearer(wa)), 404)
    index = asked.get("index") if isinstance(asked, dict) else None
    listed = lambda token: [t for t in srv.call("GET", "/api/my/tests", headers=bearer(token))[2]
                            .get("tests", []) if t["index"] == index]
    if [t["state"] for t in listed(wa)] != ["queued"] or listed(wb) or not listed(tokens["boss"]):
        problems.append(f"the test match in each one's list: wa {listed(wa)}, wb {listed(wb)}")
    ran = arbiter("ladder", "run", "cup", "--workers", "2", "--until-rated", str((index or 0) + 1), "-q",
                  "--store", store)
    mine = listed(wa)
    if not mine or mine[0]["state"] != "over" or "winners" not in (mine[0].get("result") or {}):
        problems.append(f"the test match after the ladder ran on: {mine} {ran.stderr[-200:]}")
    expect("the test match's log once it is over",
           srv.call("GET", f"/api/tournaments/1/matches/{index}/log", headers=bearer(wa)), 200)
    steps = sqlite3.connect(db).execute("SELECT COUNT(*) FROM rating_steps WHERE idx = ?",
                                        (index,)).fetchone()[0] if index is not None else -1
    verified = arbiter("ladder", "verify", "cup", "--store", store)
    if steps != 0 or verified.returncode != 0:
        problems.append(f"the test match was rated ({steps} steps) or the ladder does not verify: "
                        f"{verified.stdout[-200:]} {verified.stderr[-200:]}")
    # Ladders made and finalized from the console: organizers only, house anchors only.
    def make(token, body):
        return srv.call("POST", "/api/ladders", json.dumps(body).encode(),
                        {**bearer(token), "Content-Type": "application/json"})

    web_ladder = {"name": "web", "game": "battleship", "seats": "2",
                  "anchors": [{"name": "h", "bot": "hunt"}]}
    expect("an author making a ladder", make(wa, web_ladder), 403)
    expect("a ladder with a program anchor", make(tokens["boss"], {**web_ladder, "anchors": [
        {"name": "x", "bot": "cmd:touch /tmp/arbiter-pwned"}]}), 400)
    expect("a ladder of no game", make(tokens["boss"], {**web_ladder, "game": "chess"}), 400)
    for seat in ("tcp", "probe.lua", "hunt/../x"):  # a network seat, a file, a path: none a house bot
        expect(f"a ladder anchored by {seat}", make(tokens["boss"], {**web_ladder, "anchors": [
            {"name": "x", "bot": seat}]}), 400)
    expect("a ladder with a bad name", make(tokens["boss"], {**web_ladder, "name": "../x"}), 400)
    expect("a ladder with bad seats", make(tokens["boss"], {**web_ladder, "seats": "0-99"}), 400)
    made = expect("the organizer making a ladder", make(tokens["boss"], web_ladder), 201)[2]
    expect("the same ladder twice", make(tokens["boss"], web_ladder), 400)
    if os.path.exists("/tmp/arbiter-pwned"):
        problems.append("a program anchor from the web ran")
    web_id = made.get("id") if isinstance(made, dict) else 0
    expect("an author drawing finals", srv.call("POST", f"/api/ladders/{web_id}/finals", b"{}", bearer(wa)), 403)
    expect("finals of a ladder with one entrant",
           srv.call("POST", f"/api/ladders/{web_id}/finals", b'{"top": 2}', boss), 400)
    expect("finals with a silly top", srv.call("POST", "/api/ladders/1/finals", b'{"top": 1000}', boss), 400)
    expect("an author's export", srv.call("GET", "/api/tournaments/1/export.csv", headers=bearer(wa)), 403)
    csv_text = expect("the organizer's export", srv.call("GET", "/api/tournaments/1/export.csv",
                                                         headers=boss), 200)[2]
    if not isinstance(csv_text, str) or len(csv_text.strip().splitlines()) < 41:
        problems.append(f"the export has {len(str(csv_text).splitlines())} lines for 40+ matches")
    # Tournaments from the console: organizers only, house and stored bots only.
    def tourney(token, body):
        return srv.call("POST", "/api/tournaments", json.dumps(body).encode(),
                        {**bearer(token), "Content-Type": "application/json"})

    cup = {"name": "webcup", "game": "battleship", "rounds": 1,
           "entrants": [{"name": "h", "bot": "hunt"}, {"name": "wa", "bot": "bot:wabot"}]}
    expect("an author making a tournament", tourney(wa, cup), 403)
    expect("a tournament with a program", tourney(tokens["boss"], {**cup, "entrants": [
        {"name": "x", "bot": "cmd:touch /tmp/arbiter-pwned"}, {"name": "h", "bot": "hunt"}]}), 400)
    expect("a tournament of an unknown stored bot", tourney(tokens["boss"], {**cup, "entrants": [
        {"name": "h", "bot": "hunt"}, {"name": "z", "bot": "bot:nobody"}]}), 400)
    for seat in ("tcp", "probe.lua"):
        expect(f"a tournament seating {seat}", tourney(tokens["boss"], {**cup, "entrants": [
            {"name": "h", "bot": "hunt"}, {"name": "x", "bot": seat}]}), 400)
    expect("a tournament of four million matches", tourney(tokens["boss"], {
        "name": "huge", "game": "battleship", "rounds": 1000,
        "entrants": [{"name": f"h{i}", "bot": "hunt"} for i in range(64)]}), 400)
    webcup = expect("the organizer's tournament", tourney(tokens["boss"], cup), 201)[2]
    if isinstance(webcup, dict):
        pinned = sqlite3.connect(db).execute("SELECT spec FROM tournaments WHERE id = ?",
                                             (webcup.get("id"),)).fetchone()
        if not pinned or "sha256:" not in pinned[0] or webcup.get("matches") != 2:
            problems.append(f"the console's tournament is not pinned or not 2 matches: {webcup}")
    if os.path.exists("/tmp/arbiter-pwned"):
        problems.append("a program entrant from the web ran")
    finals = expect("the organizer's finals", srv.call("POST", "/api/ladders/1/finals",
                                                       b'{"top": 2, "rounds": 1}', boss), 201)[2]
    if isinstance(finals, dict) and finals.get("matches") != 2:
        problems.append(f"finals of two entrants, one round: {finals}")
    if "frozen" not in arbiter("ladder", "status", "cup", "--store", store).stdout:
        problems.append("the ladder is not frozen after its finals")
    expect("logout without the CSRF token", srv.call("POST", "/api/logout", b"", cookie), 403)
    expect("logout", srv.call("POST", "/api/logout", b"", {**cookie, "X-CSRF-Token": csrf}), 200)
    expect("the session after logout", srv.call("GET", "/api/me", headers=cookie), 401)
    TALLY.report("serve --submissions over HTTP, attacked", problems,
                 "401 forged/revoked, 403 CSRF/origin/another's, 413 unauthenticated body, "
                 f"400 crafted, 404 traversal, 429 rate; uploads built and checked; an upload "
                 f"beside 200 slow connections in {took * 1000:.0f} ms; a slow upload beside "
                 f"returning slow connections; a static page in {busy_static * 1000:.0f} ms while "
                 f"the store was locked")


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--arbiter", required=True)
    ARGS = p.parse_args()
    ARGS.arbiter = os.path.abspath(ARGS.arbiter)
    work = tempfile.mkdtemp(prefix="arbiter-submissions-")
    os.environ["XDG_CACHE_HOME"] = os.path.join(work, "xdg")
    db = os.path.join(work, "league.db")
    store = "sqlite:" + db
    state = {}
    checks = [lambda: state.update(token=authors(work, store, db)),
              lambda: ownership(work, store, db),
              lambda: revoking(work, store, state.get("token", "")),
              lambda: web(work, store, db)]
    return TALLY.run_all(checks, tmp=work)


if __name__ == "__main__":
    sys.exit(main())
