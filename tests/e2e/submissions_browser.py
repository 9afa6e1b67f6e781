#!/usr/bin/env python3
"""The submission server as authors see it, in headless Chromium (screenshots kept): author A
logs in with her token, uploads a kit bot whose build fails and reads the log, uploads it fixed
and sees it pass its check and go active; she retires it and brings it back; she logs out.
Author B logs in: his page lists nothing of A's, and A's version is 403 to him by URL (the
page's own fetch, with his cookie). A refused token is told so on the login page."""
import argparse
import io
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lib"))
from browser import chromium, wait_for  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

problems = []


def check(cond, what):
    if not cond:
        problems.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


def kit(path, name, build=None):
    bot = (ROOT / "bots" / "kits" / "python" / "battleship" / "bot.py").read_text()
    manifest = f'name = "{name}"\ngame = "battleship"\nrun = ["python3", "bot.py"]\n'
    if build:
        manifest += "build = " + json.dumps(build) + "\n"
    with tarfile.open(path, "w:gz") as t:
        for member, text in (("arbiter-bot.toml", manifest), ("bot.py", bot)):
            data = text.encode()
            info = tarfile.TarInfo(f"{name}/{member}")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return str(path)


def status_of(d, bot, version):
    # Read in the page at once: the table is drawn anew every two seconds, so an element found
    # first and read after may be gone.
    return d.execute_script(
        "const c = document.querySelector(arguments[0]); return c && c.dataset.status;",
        f"#versions tr[data-bot='{bot}'][data-version='{version}'] [data-status]")


def click_button(d, version, label):
    """Clicks the version's button labelled `label` (in the page, for the same reason)."""
    return d.execute_script(
        "const b = [...document.querySelectorAll(arguments[0])].find(b => b.textContent === arguments[1]);"
        "if (b) b.click(); return !!b;", f"#versions tr[data-version='{version}'] button", label)


def log_in(d, base, token):
    d.get(base + "login.html")
    box = d.find_element(By.NAME, "token")
    box.send_keys(token)
    d.find_element(By.CSS_SELECTOR, "#login button").click()
    return wait_for(lambda: d.current_url.endswith("author.html") and
                    d.execute_script("return document.body.dataset.ready"))


def upload(d, path):
    d.find_element(By.NAME, "archive").send_keys(path)
    d.find_element(By.CSS_SELECTOR, "#upload button").click()


def author_a(d, base, art, tmp, token):
    check(log_in(d, base, token), "author A's page did not open after login")
    d.save_screenshot(str(art / "author-empty.png"))
    upload(d, kit(tmp / "broken.tar.gz", "annbot", ["sh", "-c", "echo cannot find bot.c >&2; exit 2"]))
    check(wait_for(lambda: status_of(d, "annbot", 1) == "build-failed", 60),
          f"the broken version is {status_of(d, 'annbot', 1)}, not build-failed")
    check(click_button(d, 1, "build log"), "no build log button")
    check(wait_for(lambda: "cannot find bot.c" in d.find_element(By.ID, "build-log").text),
          "the build log does not show why the build failed")
    d.save_screenshot(str(art / "author-build-failed.png"))
    upload(d, kit(tmp / "fixed.tar.gz", "annbot"))
    check(wait_for(lambda: status_of(d, "annbot", 2) == "active", 120),
          f"the fixed version is {status_of(d, 'annbot', 2)}, not active")
    d.save_screenshot(str(art / "author-active.png"))
    if check(click_button(d, 2, "retire"), "no retire button on the active version"):
        check(wait_for(lambda: status_of(d, "annbot", 2) == "retired"), "retire did not take")
        if check(wait_for(lambda: click_button(d, 2, "bring back")),
                 "no bring back button on the retired version"):
            check(wait_for(lambda: status_of(d, "annbot", 2) == "active"), "bring back did not take")
    d.find_element(By.ID, "logout").click()
    check(wait_for(lambda: d.current_url.endswith("login.html")), "log out did not go to login")


def author_b(d, base, art, token):
    check(log_in(d, base, token), "author B's page did not open after login")
    rows = d.find_elements(By.CSS_SELECTOR, "#versions tr[data-bot]")
    check(not rows, f"author B sees {len(rows)} versions of others")
    d.save_screenshot(str(art / "author-b.png"))
    status = d.execute_async_script(
        "const done = arguments[0]; fetch('api/bots/annbot/versions/1').then(r => done(r.status));")
    check(status == 403, f"author B reading A's build log by URL: {status}, expected 403")
    d.get(base + "api/bots/annbot/versions/1")
    check("another author's" in d.find_element(By.TAG_NAME, "body").text,
          "the 403 page does not say why")
    d.save_screenshot(str(art / "author-b-403.png"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--artifacts", required=True)
    a = ap.parse_args()
    art = pathlib.Path(a.artifacts)
    art.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="submissions-browser-"))
    os.environ["XDG_CACHE_HOME"] = str(tmp / "xdg")
    store = f"sqlite:{tmp}/course.db"
    tokens = {}
    for name in ("ann", "ben"):
        r = subprocess.run([a.arbiter, "author", "add", name, "--store", store],
                           capture_output=True, text=True, check=True)
        tokens[name] = r.stdout.strip().rsplit(" ", 1)[-1]
    proc = subprocess.Popen([a.arbiter, "serve", "--store", store, "--listen", "127.0.0.1:0",
                             "--submissions", "--check-matches", "2"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    m = re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stdout.readline())
    if not m:
        proc.kill()
        raise SystemExit(f"arbiter serve did not start: {proc.stderr.read()}")
    base = m.group(1)
    d = chromium()
    try:
        d.get(base + "login.html")
        d.find_element(By.NAME, "token").send_keys("ann." + "0" * 64)
        d.find_element(By.CSS_SELECTOR, "#login button").click()
        check(wait_for(lambda: "not valid" in d.find_element(By.ID, "why").text),
              "a refused token is not told so")
        d.save_screenshot(str(art / "login-refused.png"))
        author_a(d, base, art, tmp, tokens["ann"])
        author_b(d, base, art, tokens["ben"])
    finally:
        d.quit()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            check(False, "arbiter serve did not stop on SIGINT")
        shutil.rmtree(tmp, ignore_errors=True)
    if problems:
        print(f"{len(problems)} problem(s); screenshots in {art}", file=sys.stderr)
        return 1
    print(f"submissions_browser: login, failed build and its log, active, retire and bring back, "
          f"another author's 403; screenshots in {art}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
