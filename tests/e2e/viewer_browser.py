#!/usr/bin/env python3
"""The viewer as people see it: a real headless Chromium driven through every page.

A store is filled by a small tournament of each of the five games; `arbiter serve` is started on
127.0.0.1 with a free port; the browser goes tournaments list -> each tournament (standings,
crosstable, chart, matches) -> a match of it -> the end of the timeline, and the DOM is checked
against the store and the game log: standings rows and points, the number of tiles, shots,
letters, dominoes or pieces on the board at the end and at a step in the middle, the final scores,
the per-seat view. A screenshot of every page is kept in --artifacts.

Needs python3-selenium, chromium and chromium-driver (scripts/setup.sh installs them).
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

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

problems = []


def check(cond, what):
    if not cond:
        problems.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


TOURNAMENTS = [
    ("q", ["-p", "dag:dag", "-p", "ldasg:ldasg", "-p", "cheat:dag+cheat=no-fit"], []),
    ("battleship", ["-p", "density:density", "-p", "hunt:hunt"], []),
    ("speed_scrabble", ["-p", "ann:solver", "-p", "ben:solver"], []),
    ("dominosa", ["-p", "fast:solver", "-p", "wait:slow=0.05"], []),
    ("abalone", ["-p", "team:team", "-p", "simple:simple"], ["--config", '{"game_length": 1500}']),
]


def fill_store(arbiter, store):
    for game, players, extra in TOURNAMENTS:
        r = subprocess.run([arbiter, "tournament", "run", "--name", f"{game}-cup", "-g", game, *players,
                            "--rounds", "1", "--seed", "5", "--store", store, "-q", *extra],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            raise SystemExit(f"{game} tournament failed: {r.stderr}")


def serve(arbiter, store):
    proc = subprocess.Popen([arbiter, "serve", "--store", store, "--listen", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
    if not m:
        proc.kill()
        raise SystemExit(f"arbiter serve did not start: {line} {proc.stderr.read()}")
    return proc, m.group(1)


def api(base, path):
    with urllib.request.urlopen(base + path, timeout=20) as r:
        return json.loads(r.read())


def log_of(base, t, i):
    with urllib.request.urlopen(f"{base}api/tournaments/{t}/matches/{i}/log", timeout=20) as r:
        return [json.loads(l) for l in r.read().decode().splitlines() if l.strip()]


def browser():
    o = Options()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
              "--disable-dev-shm-usage", "--force-device-scale-factor=1"):
        o.add_argument(a)
    o.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    return webdriver.Chrome(service=Service(driver), options=o)


def wait_ready(d, what, timeout=20):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r = d.execute_script("return document.body && document.body.dataset.ready")
        if r:
            check(r == "1", f"{what}: the page reported an error: {errors(d)}")
            return r == "1"
        time.sleep(0.05)
    check(False, f"{what}: the page was not ready after {timeout} s")
    return False


def errors(d):
    return [e.text for e in d.find_elements(By.CSS_SELECTOR, "[data-error]")]


def count(d, css):
    return len(d.find_elements(By.CSS_SELECTOR, css))


def go_step(d, k):
    d.execute_script("const s = document.getElementById('scrub'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));", k)
    time.sleep(0.05)


def scores_shown(d, seats):
    out = []
    for i in range(seats):
        els = d.find_elements(By.CSS_SELECTOR, f"#board [data-score='{i}']")
        out.append(els[0].text.strip() if els else None)
    return out


# ---- what the board must show, from the log alone ---------------------------------------------
def q_tiles(lines, upto):
    """Tiles on the map after line index `upto`: the first map plus every ok placement."""
    tiles = None
    for line in lines[: upto + 1]:
        if line.get("type") != "call":
            continue
        if tiles is None and isinstance(line.get("args"), dict) and "map" in line["args"]:
            tiles = sum(len(row[1:]) for row in line["args"]["map"])
        if line.get("call") == "take_turn" and line.get("verdict") == "ok" and isinstance(line.get("reply"), list):
            tiles += len(line["reply"])
    return tiles or 0


def battleship_shots(lines, upto):
    shots = 0
    for line in lines[: upto + 1]:
        if line.get("call") == "take_turn" and line.get("verdict") == "ok":
            r = line.get("reply")
            shots += len(r) if isinstance(r, list) else 1
    return shots


def check_latency(game, shown, standings):
    """The standings' latency columns show the store's numbers (turn-based games time every
    call; the others have none)."""
    for row, want in zip(shown, standings["standings"]):
        lat = want.get("latency") or {}
        cells = {c.get_attribute("data-latency"): c.text for c in row.find_elements(By.CSS_SELECTOR, "[data-latency]")}
        if game not in ("q", "battleship"):
            continue
        check(lat.get("calls", 0) > 0, f"{game}: {want['name']} has no timed calls in the standings")
        med = lat.get("median_ms")
        shown_med = cells.get("median", "")
        want_med = "–" if med is None else (f"{med:.2f} ms" if med < 10 else f"{med:.0f} ms")
        check(shown_med == want_med, f"{game}: {want['name']}'s median shows {shown_med!r}, the store has {want_med!r}")
        check(cells.get("timeouts", "").split(" ")[0] == str(lat.get("timeouts")),
              f"{game}: {want['name']}'s timeouts show {cells.get('timeouts')!r}, the store has {lat.get('timeouts')}")


def check_cpu_column(d, what, lines):
    """The message table's cpu column is each call's cpu_us, as the log has it."""
    rows = d.find_elements(By.CSS_SELECTOR, "#log tbody tr[data-line]")
    seen = 0
    for r in rows:
        line = lines[int(r.get_attribute("data-line"))]
        if line.get("type") != "call":
            continue
        cell = r.find_element(By.CSS_SELECTOR, "[data-cpu]").text
        want = f"{line['cpu_us'] / 1000:.2f} ms" if "cpu_us" in line else ""
        check(cell == want, f"{what}: line {r.get_attribute('data-line')} shows cpu {cell!r}, the log has {want!r}")
        seen += 1
    check(seen > 0, f"{what}: no call row in the message table to check the cpu column on")


def check_match(d, base, art, game, t, m):
    what = f"{game} match {m['index']}"
    lines = log_of(base, t, m["index"])
    result = lines[-1]
    seats = len(lines[0]["seats"])
    check(count(d, f"#board svg[data-board='{game}']") >= 1, f"{what}: no {game} board drawn")
    steps = int(d.find_element(By.ID, "scrub").get_attribute("data-steps"))
    check(steps >= 2, f"{what}: the timeline has {steps} steps")
    # The reproduce command and the log download are there.
    check("arbiter play " + game in d.find_element(By.ID, "repro-cmd").text, f"{what}: no reproduce command")
    href = d.find_element(By.ID, "download").get_attribute("href")
    check(href and "download=1" in href, f"{what}: no download link")
    # A step in the middle.
    mid = steps // 2
    go_step(d, mid)
    check(d.find_element(By.ID, "scrub").get_attribute("data-step") == str(mid), f"{what}: scrubbing to {mid} failed")
    line_at = int(d.execute_script("return document.querySelector('#log tr.current:last-of-type')?.dataset.line ?? -1"))
    if game == "q" and line_at >= 0:
        rows = d.find_elements(By.CSS_SELECTOR, "#log tr.current")
        last_line = max(int(r.get_attribute("data-line")) for r in rows)
        check(count(d, "#board [data-tile]") == q_tiles(lines, last_line),
              f"{what}: step {mid} shows {count(d, '#board [data-tile]')} tiles, the log has {q_tiles(lines, last_line)}")
    if game == "battleship" and line_at >= 0:
        rows = d.find_elements(By.CSS_SELECTOR, "#log tr.current")
        last_line = max(int(r.get_attribute("data-line")) for r in rows)
        check(count(d, "#board [data-shot]") == battleship_shots(lines, last_line),
              f"{what}: step {mid} shows {count(d, '#board [data-shot]')} shots, the log has {battleship_shots(lines, last_line)}")
    # The end of the timeline (the End key, as a person would).
    d.find_element(By.TAG_NAME, "body").send_keys("\ue010")  # End
    time.sleep(0.1)
    check(d.find_element(By.ID, "scrub").get_attribute("data-step") == str(steps - 1), f"{what}: End did not reach the last step")
    if "scores" in result and game != "dominosa":
        shown = scores_shown(d, seats)
        check(shown == [str(s) for s in result["scores"]], f"{what}: final scores shown {shown}, the store has {result['scores']}")
    if game == "q":
        check(count(d, "#board [data-tile]") == q_tiles(lines, len(lines) - 1), f"{what}: final map tile count differs")
    if game == "battleship":
        check(count(d, "#board [data-shot]") == battleship_shots(lines, len(lines) - 1), f"{what}: final shot count differs")
        check(count(d, "#board [data-hit='1']") == sum(result["scores"]), f"{what}: hits shown differ from the scores")
    if game == "abalone":
        end = next(l for l in lines if l.get("type") == "end")
        alive = [p for p in end["world"]["pieces"]]
        check(count(d, "#board [data-piece]") == len(alive), f"{what}: {count(d, '#board [data-piece]')} pieces shown, the end world has {len(alive)}")
        for team in ("black", "white"):
            n = sum(1 for p in alive if p["team"] == team)
            check(count(d, f"#board [data-piece][data-team='{team}']") == n, f"{what}: {team} pieces differ")
    if game == "dominosa":
        n = lines[0]["config"]["n"]
        check(count(d, "#board [data-cell]") == (n + 1) * (n + 2), f"{what}: {count(d, '#board [data-cell]')} cells for n={n}")
        check(count(d, "#board [data-domino]") == (n + 1) * (n + 2) // 2, f"{what}: the winning tiling is not drawn whole")
    if game == "speed_scrabble":
        check(count(d, "#board [data-letter]") > 0, f"{what}: no letter on any board at the end")
    if game in ("q", "battleship"):
        check_cpu_column(d, what, lines)
    d.save_screenshot(str(art / f"{game}-match.png"))
    # Per-seat view: seat 0 only.
    Select(d.find_element(By.ID, "seat")).select_by_value("0")
    time.sleep(0.1)
    if game == "q":
        hands = [l for l in lines if l.get("seat") == 0 and l.get("call") in ("setup", "take_turn") and isinstance(l.get("args"), dict)]
        shown_hand = count(d, "#board [data-hand-tile]")
        check(shown_hand <= 6, f"{what}: seat 0's view shows {shown_hand} hand tiles (a hand holds at most 6; other hands leaked?)")
    if game == "battleship":
        mine = next(l["reply"] for l in lines if l.get("call") == "setup" and l.get("seat") == 0)
        own_cells = sum(s["length"] for s in mine)
        check(count(d, "#board [data-ship]") <= own_cells, f"{what}: seat 0's view shows ships that are not its own")
    d.save_screenshot(str(art / f"{game}-match-seat0.png"))
    check(not errors(d), f"{what}: errors on the page: {errors(d)}")


def live_page(d, arbiter, art):
    """A live race in the browser: drawn while it runs with no letter shown, then whole at the end."""
    proc = subprocess.Popen([arbiter, "play", "speed_scrabble", "-p", "a:slow=0.3", "-p", "b:slow=0.3",
                             "--seed", "2", "--serve", "127.0.0.1:0", "--linger", "30"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = None
    while url is None:
        line = proc.stderr.readline()
        if not line:
            check(False, "play --serve printed no address")
            return
        if m := re.search(r"watch the match at (\S+)", line):
            url = m.group(1)
    try:
        d.get(url)
        wait_ready(d, "live match page")
        running_steps, letters_seen, end = 0, set(), time.monotonic() + 30
        while time.monotonic() < end:
            state = d.execute_script("return document.body.dataset.live")
            if state == "finished":
                break
            if state == "running":
                # Read in one script: the page redraws as lines arrive.
                state, steps, texts = d.execute_script(
                    "return [document.body.dataset.live, document.getElementById('scrub').dataset.steps || '0', "
                    "[...document.querySelectorAll('#board [data-letter], #board [data-hand-tile]')].map(e => e.textContent.trim())]")
                if state == "running":  # read with the letters, in the same moment
                    running_steps = max(running_steps, int(steps))
                    letters_seen |= set(texts)
                if running_steps > 3 and not (art / "live-running.png").exists():
                    d.save_screenshot(str(art / "live-running.png"))
            time.sleep(0.1)
        check(d.execute_script("return document.body.dataset.live") == "finished", "the live page never showed the end")
        check(running_steps > 3, f"the live page showed only {running_steps} steps while the race ran")
        check(letters_seen <= {"?", ""}, f"letters were shown to a spectator during the race: {sorted(letters_seen)[:10]}")
        time.sleep(0.4)
        letters = set(d.execute_script("return [...document.querySelectorAll('#board [data-letter]')].map(e => e.textContent.trim())"))
        check(letters and letters != {"?"}, "the whole log's boards are not drawn at the end")
        check(d.find_element(By.ID, "outcome").text.startswith("Won by"), "no outcome at the end of the live match")
        d.save_screenshot(str(art / "live-finished.png"))
    finally:
        proc.terminate()
        proc.wait(10)


def live_tournament(d, arbiter, art, tmp):
    """tournament run --serve: its page follows the standings without a reload, and its front page
    lists the match being played."""
    proc = subprocess.Popen([arbiter, "tournament", "run", "--name", "races", "-g", "speed_scrabble",
                             "-p", "ann:slow=0.3", "-p", "ben:slow=0.3", "--rounds", "3", "--seed", "2",
                             "--workers", "1", "--store", f"sqlite:{tmp}/live.db", "--serve", "127.0.0.1:0",
                             "--linger", "30", "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    page = None
    while page is None:
        line = proc.stderr.readline()
        if not line:
            check(False, "tournament run --serve printed no address")
            return
        if m := re.search(r"watch it live at (\S+) .* and (\S+tournament\.html\?id=\d+)", line):
            front, page = m.group(1), m.group(2)
    try:
        d.get(front)
        end = time.monotonic() + 20
        while time.monotonic() < end and not d.find_elements(By.CSS_SELECTOR, "#live-table tr[data-live]"):
            time.sleep(0.1)
        check(bool(d.find_elements(By.CSS_SELECTOR, "#live-table tr[data-live]")), "the front page lists no live match of the running tournament")
        store_live(d, arbiter, art, tmp, re.search(r"id=(\d+)", page).group(1))
        d.get(page)
        wait_ready(d, "the running tournament's page")
        first = d.find_element(By.ID, "facts").text
        check("of 6 matches played" in first, f"the running tournament's page says {first!r}")
        seen = {first}
        end = time.monotonic() + 40
        while time.monotonic() < end and "6 of 6 matches played" not in d.find_element(By.ID, "facts").text:
            seen.add(d.find_element(By.ID, "facts").text)
            time.sleep(0.2)
        final = d.find_element(By.ID, "facts").text
        check("6 of 6 matches played" in final, f"the page did not follow the tournament to its end: {final!r}")
        check(len(seen) >= 2, "the page never changed while the tournament was played")
        end = time.monotonic() + 10  # the facts come first, then the standings and the matches
        while time.monotonic() < end and count(d, "#matches tr[data-match]") != 6:
            time.sleep(0.1)
        check(count(d, "#matches tr[data-match]") == 6, f"{count(d, '#matches tr[data-match]')} match rows after the end, not 6")
        d.save_screenshot(str(art / "live-tournament.png"))
    finally:
        proc.send_signal(signal.SIGINT)  # ends the linger
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            check(False, "tournament run --serve did not end on SIGINT during its linger")


def store_live(d, arbiter, art, t, tournament):
    """The same running tournament through a second `arbiter serve` that only reads its store: the
    tournament page lists the match being played, and its match page follows it live, then shows
    it as stored."""
    other = subprocess.Popen([arbiter, "serve", "--store", f"sqlite:{t}/live.db", "--listen", "127.0.0.1:0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        m = re.search(r"is at (http://\S+)", other.stdout.readline())
        if not check(m is not None, "the second arbiter serve printed no address"):
            return
        base = m.group(1).rstrip("/") + "/"
        d.get(f"{base}tournament.html?id={tournament}")
        wait_ready(d, "the running tournament's page (other process)")
        # Follow a match from its start: wait for one to begin after the page is up.
        # The table is redrawn every second, so rows are read in one script rather than element
        # by element (an element found before a redraw is stale after it).
        def listed():
            return {int(i): href for i, href in d.execute_script(
                "return [...document.querySelectorAll('#live-table tr[data-live]')]"
                ".map(r => [r.dataset.live, r.querySelector('a')?.href ?? ''])")}
        first = max(listed(), default=-1)
        end = time.monotonic() + 30
        while time.monotonic() < end and not any(i > first for i in listed()):
            time.sleep(0.1)
        later = [href for i, href in sorted(listed().items()) if i > first]
        if not check(bool(later) and bool(later[0]), "a serve of the store lists no match being played"):
            return
        d.get(later[0])  # where the row's link leads
        wait_ready(d, "a match page of another process's live match")
        running_steps, end = 0, time.monotonic() + 30
        while time.monotonic() < end:
            state, steps = d.execute_script(
                "return [document.body.dataset.live, document.getElementById('scrub').dataset.steps || '0']")
            if state != "running":
                break
            running_steps = max(running_steps, int(steps))
            if running_steps > 3 and not (art / "store-live-running.png").exists():
                d.save_screenshot(str(art / "store-live-running.png"))
            time.sleep(0.1)
        check(running_steps > 3, f"the page of another process's match showed only {running_steps} steps while it ran")
        end = time.monotonic() + 20
        while time.monotonic() < end and not d.find_element(By.ID, "outcome").text.startswith("Won by"):
            time.sleep(0.1)
        check(d.find_element(By.ID, "outcome").text.startswith("Won by"), "the page of another process's match shows no outcome at its end")
        # A match whose pair (same seed) is still being played is shown held, without its log,
        # until that one is over too: the page then offers it once reloaded.
        end = time.monotonic() + 30
        while time.monotonic() < end and d.find_element(By.ID, "download").get_attribute("hidden"):
            if d.execute_script("return document.body.dataset.held") == "1":
                time.sleep(0.5)
                d.refresh()
                wait_ready(d, "the stored match page, reloaded")
            time.sleep(0.1)
        check(not d.find_element(By.ID, "download").get_attribute("hidden"), "no download link once the match is stored")
        d.save_screenshot(str(art / "store-live-finished.png"))
    finally:
        other.terminate()
        other.wait(10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--artifacts", required=True)
    a = ap.parse_args()
    art = pathlib.Path(a.artifacts)
    art.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="viewer-browser-"))
    store = f"sqlite:{tmp}/viewer.db"
    fill_store(a.arbiter, store)
    proc, base = serve(a.arbiter, store)
    d = browser()
    try:
        d.get(base)
        time.sleep(0.5)
        rows = d.find_elements(By.CSS_SELECTOR, "#tournaments tr[data-tournament]")
        check(len(rows) == 5, f"the front page lists {len(rows)} tournaments, the store has 5")
        games = [r.find_elements(By.TAG_NAME, "td")[2].text for r in rows]
        check(games == [g for g, _, _ in TOURNAMENTS], f"the front page's games: {games}")
        d.save_screenshot(str(art / "index.png"))
        for t, (game, players, _) in enumerate(TOURNAMENTS, start=1):
            # Through the page, as a person: the link on the front page.
            d.get(base)
            time.sleep(0.3)
            d.find_element(By.CSS_SELECTOR, f"#tournaments tr[data-tournament='{t}'] a").click()
            if not wait_ready(d, f"{game} tournament page"):
                continue
            standings = api(base, f"api/tournaments/{t}/standings")
            shown = d.find_elements(By.CSS_SELECTOR, "#standings tr[data-standing]")
            check([r.get_attribute("data-standing") for r in shown] == [s["name"] for s in standings["standings"]],
                  f"{game}: standings rows differ from the store")
            points = [float(r.find_element(By.CSS_SELECTOR, "[data-points]").get_attribute("data-points")) for r in shown]
            check(points == [s["points"] for s in standings["standings"]], f"{game}: points differ: {points}")
            check_latency(game, shown, standings)
            check(count(d, "#chart svg[data-chart]") == 1, f"{game}: no rating chart")
            matches = d.find_elements(By.CSS_SELECTOR, "#matches tr[data-match]")
            total = api(base, f"api/tournaments/{t}/matches")["total"]
            check(len(matches) == min(total, 25), f"{game}: {len(matches)} match rows, the store has {total}")
            d.save_screenshot(str(art / f"{game}-tournament.png"))
            if not matches:
                continue
            m = api(base, f"api/tournaments/{t}/matches/{matches[0].get_attribute('data-match')}")
            matches[0].find_element(By.TAG_NAME, "a").click()
            if wait_ready(d, f"{game} match page"):
                check_match(d, base, art, game, t, m)
        live_page(d, a.arbiter, art)
        live_tournament(d, a.arbiter, art, tmp)
        # A match that does not exist: a clear error on the page, not a blank one.
        d.get(base + "match.html?t=1&i=9999")
        end = time.monotonic() + 10
        while time.monotonic() < end and not d.execute_script("return document.body.dataset.ready"):
            time.sleep(0.05)
        check(any("no finished match" in e for e in errors(d)), f"a missing match shows {errors(d)}")
    finally:
        d.quit()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            check(False, "arbiter serve did not stop on SIGINT")
        check(proc.returncode == 0, f"arbiter serve exited with {proc.returncode}")
        shutil.rmtree(tmp, ignore_errors=True)
    if problems:
        print(f"{len(problems)} problem(s); screenshots in {art}", file=sys.stderr)
        return 1
    print(f"viewer_browser: five games drawn in Chromium; screenshots in {art}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
