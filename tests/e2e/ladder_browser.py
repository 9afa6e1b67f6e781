#!/usr/bin/env python3
"""The ladder's pages as people see them, in a real headless Chromium (docs/viewer.md).

A store gets a Battleship ladder of four house anchors and three stored bots: `late` (the
battleship-bot program playing tracker), `chatty` (the Python kit, which also writes a line on
stderr every match) and a second version of chatty whose build fails. The ladder plays 120
matches; `arbiter serve --show-stderr` serves the store on a free port, and the browser goes:
front page (the ladder listed) -> the ladder (leaderboard rows, order and numbers equal to the
API's; the page follows the ladder live while another `ladder run` plays on) -> an entrant's page
(the rating chart with its band, every version with its build state, recent matches, its own
stderr tail) -> head to head through the page's picker (the record equals the API's) -> one of
their matches, replayed. A screenshot of every page is kept in --artifacts.
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lib"))
from browser import chromium  # noqa: E402

problems = []


def check(cond, what):
    if not cond:
        problems.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


def run(*cmd, timeout=300):
    r = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])}...: exit {r.returncode}: {r.stdout[-500:]} {r.stderr[-500:]}")
    return r


def fill_store(arbiter, bot_binary, store, tmp):
    run(arbiter, "ladder", "create", "cup", "-g", "battleship", "--anchor", "r1:random",
        "--anchor", "h1:hunt", "--anchor", "t1:tracker", "--anchor", "d1:density", "--store", store)
    late = tmp / "late"
    late.mkdir()
    shutil.copy(bot_binary, late / "battleship-bot")
    (late / "arbiter-bot.toml").write_text(
        'name = "late"\ngame = "battleship"\nrun = ["./battleship-bot", "--strategy", "tracker"]\n')
    run(arbiter, "bot", "add", str(late), "--store", store, "--matches", "2")
    chatty = tmp / "chatty"
    shutil.copytree(ROOT / "bots" / "kits" / "python" / "battleship", chatty)
    (chatty / "arbiter-bot.toml").write_text(
        'name = "chatty"\ngame = "battleship"\n'
        'run = ["sh", "-c", "echo chatty is thinking hard >&2; exec python3 bot.py"]\n')
    run(arbiter, "bot", "add", str(chatty), "--store", store, "--matches", "2")
    (chatty / "arbiter-bot.toml").write_text(
        'name = "chatty"\ngame = "battleship"\nbuild = ["false"]\nrun = ["python3", "bot.py"]\n')
    subprocess.run([arbiter, "bot", "add", str(chatty), "--store", store], capture_output=True,
                   timeout=120)  # ends build-failed, which is the point
    run(arbiter, "ladder", "run", "cup", "--workers", "2", "--until-rated", "120", "-q",
        "--store", store)


def serve(arbiter, store):
    proc = subprocess.Popen([arbiter, "serve", "--store", store, "--listen", "127.0.0.1:0",
                             "--show-stderr"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    line = proc.stdout.readline()
    m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
    if not m:
        proc.kill()
        raise SystemExit(f"arbiter serve did not start: {line} {proc.stderr.read()}")
    return proc, m.group(1)


def api(base, path):
    with urllib.request.urlopen(base + path, timeout=20) as r:
        return json.loads(r.read())


def wait_ready(d, what, timeout=20):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r = d.execute_script("return document.body && document.body.dataset.ready")
        if r:
            errs = [e.text for e in d.find_elements(By.CSS_SELECTOR, "[data-error]")]
            return check(r == "1", f"{what}: the page reported an error: {errs}")
        time.sleep(0.05)
    return check(False, f"{what}: the page was not ready after {timeout} s")


def leaderboard(d, base, art, arbiter, store):
    d.get(base)
    time.sleep(0.5)
    rows = d.find_elements(By.CSS_SELECTOR, "#ladders tr[data-ladder]")
    check(len(rows) == 1, f"the front page lists {len(rows)} ladders, the store has 1")
    check(not d.find_elements(By.CSS_SELECTOR, "#tournaments tr[data-tournament]"),
          "the ladder is listed among the tournaments too")
    d.save_screenshot(str(art / "ladder-index.png"))
    rows[0].find_element(By.TAG_NAME, "a").click()
    if not wait_ready(d, "ladder page"):
        return None
    board = api(base, "api/ladders/1")
    shown = d.find_elements(By.CSS_SELECTOR, "#board tr[data-entrant]")
    check([r.get_attribute("data-name") for r in shown] == [r["name"] for r in board["rows"]],
          "the leaderboard's rows differ from the store's order")
    values = [float(r.find_element(By.CSS_SELECTOR, "[data-conservative]").get_attribute("data-conservative"))
              for r in shown]
    check(values == sorted(values, reverse=True), f"the leaderboard is not ranked by mu - 3 sigma: {values}")
    names = {r["name"] for r in board["rows"]}
    check({"latev1", "chattyv1"} <= names and "chattyv2" not in names,
          f"the entrants are {sorted(names)}: the active versions, not the failed one")
    d.save_screenshot(str(art / "ladder-leaderboard.png"))
    # Live: another run plays on; the page follows without a reload.
    before = d.find_element(By.ID, "facts").text
    player = subprocess.Popen([arbiter, "ladder", "run", "cup", "--workers", "2", "--until-rated",
                               "200", "-q", "--store", store], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    changed = False
    end = time.monotonic() + 60
    while time.monotonic() < end and not changed:
        time.sleep(0.5)
        changed = d.find_element(By.ID, "facts").text != before
    player.wait(timeout=120)
    check(changed, "the leaderboard did not follow the running ladder")
    time.sleep(2.5)
    final = api(base, "api/ladders/1")
    shown_games = sum(int(r.find_elements(By.TAG_NAME, "td")[7].text)
                      for r in d.find_elements(By.CSS_SELECTOR, "#board tr[data-entrant]"))
    check(shown_games == sum(r["games"] for r in final["rows"]),
          f"the page shows {shown_games} games, the store {sum(r['games'] for r in final['rows'])}")
    d.save_screenshot(str(art / "ladder-leaderboard-live.png"))
    return final


def entrant_page(d, base, art, board):
    chatty = next(r for r in board["rows"] if r["name"] == "chattyv1")
    d.find_element(By.CSS_SELECTOR, f"#board tr[data-entrant='{chatty['entrant']}'] a").click()
    if not wait_ready(d, "entrant page"):
        return
    data = api(base, f"api/ladders/1/entrants/{chatty['entrant']}")
    check(d.find_elements(By.CSS_SELECTOR, "#chart svg polygon[data-band]"),
          "the rating chart has no uncertainty band")
    check(len(d.find_elements(By.CSS_SELECTOR, "#chart svg circle")) >= 2 * len(data["history"]),
          "the chart does not draw every rating point")
    versions = {r.get_attribute("data-version"): r.text
                for r in d.find_elements(By.CSS_SELECTOR, "#versions tr[data-version]")}
    check(set(versions) == {"1", "2"}, f"versions shown: {sorted(versions)}")
    check("active" in versions.get("1", "") and "build-failed" in versions.get("2", ""),
          f"the versions' build states: {versions}")
    recent = d.find_elements(By.CSS_SELECTOR, "#recent tr[data-match]")
    check(len(recent) == len(data["recent"]) and len(recent) > 0,
          f"{len(recent)} recent matches shown, the API has {len(data['recent'])}")
    tails = d.find_elements(By.CSS_SELECTOR, "#stderr [data-stderr]")
    check(tails and all("chatty is thinking hard" in t.text for t in tails),
          "its stderr tail is not shown")
    d.save_screenshot(str(art / "ladder-entrant.png"))


def head_to_head(d, base, art, board):
    d.get(base + "ladder.html?id=1")
    if not wait_ready(d, "ladder page again"):
        return
    # chattyv1 and the opponent of its latest match: two entrants known to have met (the
    # matchmaker pairs close ratings, so the top and chatty may never have).
    a = next(r for r in board["rows"] if r["name"] == "chattyv1")
    last = api(base, f"api/ladders/1/entrants/{a['entrant']}")["recent"][0]
    other = next(n for n in last["seats"] if n != a["name"])
    b = next(r for r in board["rows"] if r["name"] == other)
    Select(d.find_element(By.CSS_SELECTOR, "#compare select[name=a]")).select_by_value(str(a["entrant"]))
    Select(d.find_element(By.CSS_SELECTOR, "#compare select[name=b]")).select_by_value(str(b["entrant"]))
    d.find_element(By.ID, "compare-link").click()
    if not wait_ready(d, "head-to-head page"):
        return
    data = api(base, f"api/ladders/1/head-to-head?a={a['entrant']}&b={b['entrant']}")
    record = d.find_element(By.ID, "record")
    shown = [int(record.find_element(By.CSS_SELECTOR, f"[data-{k}]").get_attribute(f"data-{k}"))
             for k in ("wins", "draws", "losses")]
    check(shown == [data["wins"], data["draws"], data["losses"]],
          f"head to head shows {shown}, the API {data['wins'], data['draws'], data['losses']}")
    check(data["meetings"] == sum(shown) and data["meetings"] > 0,
          f"{data['meetings']} meetings for a record of {shown}")
    rows = d.find_elements(By.CSS_SELECTOR, "#meetings tr[data-match]")
    check(len(rows) == min(50, data["meetings"]), f"{len(rows)} meetings listed of {data['meetings']}")
    d.save_screenshot(str(art / "ladder-head-to-head.png"))
    # A meeting whose seed group is over (the last ones may wait for a rotation the stopped
    # ladder did not play: their log is held, and the page says so).
    over = [m["index"] for m in data["matches"] if not m.get("held")]
    rows = [r for r in rows if int(r.get_attribute("data-match")) in over]
    check(rows, "no meeting whose log may be shown")
    if rows:
        rows[0].find_element(By.TAG_NAME, "a").click()
        if wait_ready(d, "a ladder match"):
            check(d.find_elements(By.CSS_SELECTOR, "#board svg"), "the match's board is not drawn")
            d.save_screenshot(str(art / "ladder-match.png"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--battleship-bot", required=True)
    ap.add_argument("--artifacts", required=True)
    a = ap.parse_args()
    art = pathlib.Path(a.artifacts)
    art.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="ladder-browser-"))
    os.environ["XDG_CACHE_HOME"] = str(tmp / "xdg")
    store = f"sqlite:{tmp}/ladder.db"
    fill_store(a.arbiter, a.battleship_bot, store, tmp)
    proc, base = serve(a.arbiter, store)
    d = chromium()
    try:
        board = leaderboard(d, base, art, a.arbiter, store)
        if board:
            entrant_page(d, base, art, board)
            head_to_head(d, base, art, board)
        d.get(base + "bot.html?l=1&e=999")
        end = time.monotonic() + 10
        while time.monotonic() < end and not d.execute_script("return document.body.dataset.ready"):
            time.sleep(0.05)
        errs = [e.text for e in d.find_elements(By.CSS_SELECTOR, "[data-error]")]
        check(any("no entrant 999" in e for e in errs), f"a missing entrant shows {errs}")
    finally:
        d.quit()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            check(False, "arbiter serve did not stop on SIGINT")
        shutil.rmtree(tmp, ignore_errors=True)
    if problems:
        print(f"{len(problems)} problem(s); screenshots in {art}", file=sys.stderr)
        return 1
    print(f"ladder_browser: leaderboard (live), entrant, head to head and a match in Chromium; "
          f"screenshots in {art}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
