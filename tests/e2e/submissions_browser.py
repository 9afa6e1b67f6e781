#!/usr/bin/env python3
"""A course's competition as its people see it, in headless Chromium (screenshots kept).

The organizer logs in (to the console), makes a tournament of house bots and a ladder with a
house anchor; the organizer's
machine runs it (`arbiter ladder run`, as docs/competition.md says). Author A logs in, uploads a
kit bot whose build fails and reads the log, uploads it fixed and sees it pass its check and go
active; she retires it and brings it back. Author B logs in: his page lists nothing of A's, A's
version is 403 to him by URL (the page's own fetch, with his cookie); he uploads a broken bot
and a fixed one too. Both see the leaderboard move (their entrants' games grow). A asks for a
test match against B's entrant from her page and watches it end; her entrant page shows her
own stderr. B opens A's entrant page: no stderr, by the page or by its URL. A refused token is
told so on the login page."""
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
    # One line on stderr as it starts: only its author (and the organizer) may read it.
    bot = bot.replace("import sys\n", f"import sys\nsys.stderr.write('{name} debug line\\n')\n", 1)
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


def log_in(d, base, token, page="author.html"):
    d.get(base + "login.html")
    box = d.find_element(By.NAME, "token")
    box.send_keys(token)
    d.find_element(By.CSS_SELECTOR, "#login button").click()
    return wait_for(lambda: d.current_url.endswith(page) and
                    d.execute_script("return document.body.dataset.ready"))


def log_out(d):
    d.find_element(By.ID, "logout").click()
    check(wait_for(lambda: d.current_url.endswith("login.html")), "log out did not go to login")


def organizer(d, base, art, token):
    check(log_in(d, base, token, "console.html"), "the organizer's login did not open the console")
    form = d.find_element(By.ID, "create")
    form.find_element(By.NAME, "name").send_keys("course")
    form.find_element(By.NAME, "anchors").send_keys("hunter:hunt")
    form.find_element(By.CSS_SELECTOR, "button").click()
    check(wait_for(lambda: d.execute_script(
        "const r = document.querySelector('#ladders tr[data-ladder=course]');"
        "return r && r.dataset.state === 'running';")), "the new ladder is not listed as running")
    check("arbiter ladder run course" in d.find_element(By.ID, "said").text,
          "the console does not say what plays the new ladder")
    d.save_screenshot(str(art / "console-ladder.png"))
    made = d.find_element(By.ID, "tournament")
    made.find_element(By.NAME, "name").send_keys("warmup")
    made.find_element(By.NAME, "entrants").send_keys("h:hunt, r:random")
    made.find_element(By.CSS_SELECTOR, "button").click()
    check(wait_for(lambda: d.find_elements(By.CSS_SELECTOR, "#tournaments tr[data-tournament]")),
          "the new tournament is not listed")
    check("arbiter tournament resume" in d.find_element(By.ID, "said").text,
          "the console does not say what plays the new tournament")
    d.save_screenshot(str(art / "console-tournament.png"))
    log_out(d)


def games_of(d, base, name):
    """The games of entrant `name` on the ladder's page, as drawn (None when not listed)."""
    d.get(base + "ladder.html?id=1")
    wait_for(lambda: d.find_elements(By.CSS_SELECTOR, "tr[data-name]"), 10)
    return d.execute_script(
        "const r = document.querySelector(`tr[data-name='${arguments[0]}']`);"
        "return r ? Number(r.lastElementChild.textContent) : null;", name)


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
    log_out(d)


def author_b(d, base, art, tmp, token):
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
    d.get(base + "author.html")
    wait_for(lambda: d.execute_script("return document.body.dataset.ready"))
    upload(d, kit(tmp / "benbroken.tar.gz", "benbot", ["sh", "-c", "echo no such compiler >&2; exit 3"]))
    check(wait_for(lambda: status_of(d, "benbot", 1) == "build-failed", 60), "B's broken build did not fail")
    upload(d, kit(tmp / "benfixed.tar.gz", "benbot"))
    check(wait_for(lambda: status_of(d, "benbot", 2) == "active", 120),
          f"B's fixed version is {status_of(d, 'benbot', 2)}, not active")
    log_out(d)


def leaderboard_moves(d, base, art):
    """Both authors' entrants play: their games on the public leaderboard grow."""
    names = ("annbotv2", "benbotv2")
    first, later = {}, {}

    def played():
        first.update({n: games_of(d, base, n) or 0 for n in names})
        return all(first[n] > 0 for n in names)

    def moved():
        later.update({n: games_of(d, base, n) or 0 for n in names})
        return all(later[n] > first[n] for n in names)

    check(wait_for(played, 120, 1), f"the entrants did not play: {first}")
    check(wait_for(moved, 120, 1), f"the leaderboard did not move: {first} then {later}")
    d.save_screenshot(str(art / "leaderboard.png"))


def test_match(d, base, art, token):
    check(log_in(d, base, token), "author A's page did not open after login")
    check(wait_for(lambda: d.find_elements(By.CSS_SELECTOR, "#ladders form[data-ladder='1']"), 30),
          "A's page has no test match form for her ladder")
    d.execute_script(
        "const f = document.querySelector(\"#ladders form[data-ladder='1']\");"
        "f.elements.own.value = 'annbotv2'; f.elements.other.value = 'benbotv2';"
        "f.querySelector('button').click();")
    check(wait_for(lambda: d.find_elements(By.CSS_SELECTOR, "#tests tr[data-index]"), 30),
          "the test match is not listed")
    d.save_screenshot(str(art / "test-match-queued.png"))
    check(wait_for(lambda: d.execute_script(
        "const r = document.querySelector('#tests tr[data-index]'); return r && r.dataset.state;")
        == "over", 180), "the test match did not end")
    d.save_screenshot(str(art / "test-match-over.png"))
    d.find_element(By.CSS_SELECTOR, "#tests tr[data-index] a").click()
    check(wait_for(lambda: "match.html" in d.current_url and
                   "annbotv2" in d.find_element(By.TAG_NAME, "body").text, 30),
          "the test match's page does not show it")
    d.save_screenshot(str(art / "test-match-page.png"))
    # Her own entrant page: her program's stderr.
    d.get(base + "author.html")
    wait_for(lambda: d.find_elements(By.CSS_SELECTOR, "#ladders a.entrant"), 30)
    own = d.find_element(By.CSS_SELECTOR, "#ladders a.entrant").get_attribute("href")
    d.get(own)
    check(wait_for(lambda: "annbot debug line" in d.find_element(By.ID, "stderr").text, 30),
          "A's entrant page does not show her stderr")
    d.save_screenshot(str(art / "entrant-own-stderr.png"))
    d.get(base + "author.html")
    log_out(d)
    return own


def stderr_hidden(d, base, art, token, own):
    check(log_in(d, base, token), "author B's page did not open after login")
    d.get(own)
    wait_for(lambda: d.find_element(By.ID, "title").text != "Bot", 30)
    check(not d.find_element(By.ID, "stderr-card").is_displayed() and
          "annbot debug line" not in d.page_source, "B sees A's stderr on her entrant page")
    d.save_screenshot(str(art / "entrant-other-no-stderr.png"))
    api = own.replace("bot.html?l=", "api/ladders/").replace("&e=", "/entrants/")
    body = d.execute_async_script(
        "const done = arguments[1]; fetch(arguments[0]).then(r => r.text()).then(done);", api)
    check("stderr" not in body and "annbot debug line" not in body,
          f"B reads A's stderr by URL: {body[:200]}")


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
    for name, role in (("boss", "organizer"), ("ann", "author"), ("ben", "author")):
        r = subprocess.run([a.arbiter, "author", "add", name, "--role", role, "--store", store],
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
    ladder = None
    try:
        d.get(base + "login.html")
        d.find_element(By.NAME, "token").send_keys("ann." + "0" * 64)
        d.find_element(By.CSS_SELECTOR, "#login button").click()
        check(wait_for(lambda: "not valid" in d.find_element(By.ID, "why").text),
              "a refused token is not told so")
        d.save_screenshot(str(art / "login-refused.png"))
        organizer(d, base, art, tokens["boss"])
        # The organizer's machine plays the ladder made in the console.
        ladder = subprocess.Popen([a.arbiter, "ladder", "run", "course", "--workers", "2", "-q",
                                   "--store", store], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        author_a(d, base, art, tmp, tokens["ann"])
        author_b(d, base, art, tmp, tokens["ben"])
        leaderboard_moves(d, base, art)
        own = test_match(d, base, art, tokens["ann"])
        stderr_hidden(d, base, art, tokens["ben"], own)
    finally:
        d.quit()
        if ladder:
            ladder.send_signal(signal.SIGINT)
            try:
                ladder.wait(60)
            except subprocess.TimeoutExpired:
                ladder.kill()
                check(False, "arbiter ladder run did not stop on SIGINT")
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
    print(f"submissions_browser: a ladder made in the console; two authors' failed builds and "
          f"their logs, fixes active, the leaderboard moving, a test match asked for and "
          f"watched, stderr for its author only, another author's 403; screenshots in {art}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
