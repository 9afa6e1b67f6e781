// One match: the board drawn by the game's renderer (games/<game>.js, see games/README.md), a
// timeline to scrub, the message log beside it, the outcome, the reproduce command and the log.
// A stored match (?t=TOURNAMENT&i=INDEX) is read whole; a live one (?live=ID) is followed over
// its stream, which carries only what a spectator may see until the match ends.
import { h, getJson, getText, parseLines, showError, crumbs, param } from "./ui.js";

const board = document.getElementById("board");
const scrub = document.getElementById("scrub");
const seatSel = document.getElementById("seat");
const logBody = document.querySelector("#log tbody");
const LOG_WINDOW = 150;

let lines = [];
let renderer = null;
let replay = null;
let step = 0;
let timer = null;
let follow = true;  // live: stay at the newest step

const names = () => (replay && replay.seats) || (lines[0] && lines[0].seats) || [];

function short(v, max = 90) {
  if (v === undefined) return "";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

// One log line as the message table shows it.
function describe(line) {
  const seat = Number.isInteger(line.seat) ? names()[line.seat] ?? `seat ${line.seat}` : line.team || "";
  const t = line.type;
  let what = t, verdict = "", time = "", cpu = "";
  if (t === "match") what = `match: ${line.game}, ${(line.seats || []).length} seats`;
  else if (t === "call") {
    what = line.call + (line.reply !== undefined ? ` → ${short(line.reply)}` : "");
    verdict = line.verdict || "";
    if (line.detail) verdict += `: ${line.detail}`;
    if (Number.isFinite(line.elapsed_us)) time = `${(line.elapsed_us / 1000).toFixed(2)} ms`;
    if (Number.isFinite(line.cpu_us)) cpu = `${(line.cpu_us / 1000).toFixed(2)} ms`;
  } else if (t === "message" || t === "notice" || t === "setup") {
    const m = Array.isArray(line.message) ? line.message : [];
    what = `${t === "message" ? "sent" : t === "setup" ? "setup" : "told"} ${m[0] ?? ""} ${short(m[1], 60)}`;
  } else if (t === "fault") { what = `fault in ${line.call || "message"}`; verdict = line.detail ? `${line.why}: ${line.detail}` : line.why; }
  else if (t === "result") {
    what = `result: winners ${(line.winners || []).map((w) => names()[w] ?? w).join(", ") || "none"}`;
    if (line.scores) what += `, scores ${line.scores.join(" : ")}`;
  } else if (t === "resolution") what = `cycle ${line.cycle}: ${(line.chains || []).length} chain(s)`;
  else if (t === "spawn") what = `cycle ${line.cycle}: spawn piece ${line.pid} at ${line.hex}`;
  else if (t === "end_bot") { what = `cycle ${line.cycle}: piece ${line.pid} ends`; verdict = line.detail ? `${line.why}: ${line.detail}` : line.why; }
  else if (t === "end") what = line.reason ? `end: ${line.reason}` : "end";
  if (Number.isFinite(line.at_us)) time = `${(line.at_us / 1e6).toFixed(3)} s`;
  return { seat, what, verdict, time, cpu };
}

// The lines step k adds: (line of step k-1, line of step k].
function stepRange(k) {
  const s = replay.steps;
  const hi = s[k] ? s[k].line : lines.length - 1;
  const lo = k > 0 && s[k - 1] ? s[k - 1].line + 1 : 0;
  return [lo, hi];
}

function stepOfLine(i) {
  const s = replay.steps;
  for (let k = 0; k < s.length; k++) if (s[k].line >= i) return k;
  return s.length - 1;
}

function renderLog() {
  const [lo, hi] = stepRange(step);
  const from = Math.max(0, lo - LOG_WINDOW), to = Math.min(lines.length, hi + LOG_WINDOW);
  const rows = [];
  for (let i = from; i < to; i++) {
    const d = describe(lines[i]);
    const bad = d.verdict && !d.verdict.startsWith("ok");
    rows.push(h("tr", { class: i >= lo && i <= hi ? "current" : "", "data-line": i, onclick: () => go(stepOfLine(i)) },
      h("td", { class: "muted" }, i + 1), h("td", {}, d.seat), h("td", { class: "what" }, d.what),
      h("td", { class: bad ? "bad" : "muted" }, d.verdict), h("td", { class: "num" }, d.time),
      h("td", { class: "num", "data-cpu": "" }, d.cpu)));
  }
  logBody.replaceChildren(...rows);
  // Scroll the message card only, never the page (scrollIntoView would move the window too).
  const cur = logBody.querySelector("tr.current");
  const card = document.querySelector(".log-card");
  if (cur && card) {
    const top = cur.offsetTop - card.offsetTop;
    if (top < card.scrollTop || top + cur.offsetHeight > card.scrollTop + card.clientHeight)
      card.scrollTop = Math.max(0, top - card.clientHeight / 3);
  }
}

function draw() {
  if (!replay) return;
  const seat = seatSel.value === "" ? null : Number(seatSel.value);
  try {
    replay.draw(board, step, seat);
  } catch (e) {
    board.replaceChildren(h("div", { class: "error" }, `the ${lines[0]?.game} renderer failed: ${e.message}`));
  }
  const s = replay.steps[step];
  document.getElementById("step-label").textContent = s ? `${step} / ${replay.steps.length - 1} · ${s.label}` : "";
  const sum = document.getElementById("summary");
  sum.replaceChildren(...(replay.summary ? replay.summary(step) : []).map((x) =>
    h("span", { class: "badge" }, `${names()[x.seat] ?? x.seat}: ${x.text}`)));
  scrub.max = String(replay.steps.length - 1);
  scrub.value = String(step);
  scrub.dataset.step = String(step);
  scrub.dataset.steps = String(replay.steps.length);
  renderLog();
}

function go(k) {
  if (!replay) return;
  step = Math.max(0, Math.min(replay.steps.length - 1, k));
  follow = step === replay.steps.length - 1;
  draw();
}

function setPlaying(on) {
  clearInterval(timer);
  timer = null;
  document.getElementById("play").textContent = on ? "⏸" : "▶";
  if (!on) return;
  if (step >= replay.steps.length - 1) go(0);
  timer = setInterval(() => {
    if (step >= replay.steps.length - 1) return setPlaying(false);
    go(step + 1);
  }, Number(document.getElementById("speed").value));
}

function rebuild() {
  replay = renderer.replay(lines);
  if (seatSel.options.length === 1)
    names().forEach((n, i) => seatSel.append(h("option", { value: i }, `only what ${n} saw`)));
  if (follow) step = replay.steps.length - 1;
  draw();
}

function outcome(result, ejections) {
  const out = document.getElementById("outcome");
  if (!result) return;
  const w = (result.winners || []).map((s) => names()[s] ?? s);
  out.replaceChildren(h("strong", { "data-outcome": "1" }, w.length ? `Won by ${w.join(", ")}` : result.aborted ? "Aborted (turn limit)" : "No winner"),
    result.scores ? ` · scores ${result.scores.map((s, i) => `${names()[i] ?? i} ${s}`).join(", ")}` : "");
  const ul = document.getElementById("ejections");
  ul.replaceChildren(...(ejections || result.ejections || []).map((e) =>
    h("li", { "data-ejection": e.seat }, `${names()[e.seat] ?? e.name ?? e.seat} was ejected during ${e.call}: ${e.why}${e.detail ? ` (${e.detail})` : ""}`)));
}

async function useRenderer(game) {
  if (!/^[a-z_]+$/.test(game || "")) throw new Error(`this log names no known game (${game})`);
  renderer = await import(`../games/${game}.js`);
}

async function stored(t, i) {
  const m = await getJson(`api/tournaments/${t}/matches/${i}`);
  crumbs(h("a", { href: "./" }, "tournaments"), h("a", { href: `tournament.html?id=${t}` }, m.tournament_name), `match ${i}`);
  document.title = `${m.tournament_name} #${i} · arbiter viewer`;
  // A stored bot's seat shows the version it played: "alice (alice@3)".
  const versions = m.versions || [];
  document.getElementById("title").textContent =
    `${(m.seats || []).map((n, k) => (versions[k] ? `${n} (${versions[k]})` : n)).join(" vs ")}`;
  document.getElementById("facts").textContent = `${m.game} · ${m.tournament_name}, match ${i}, round ${m.round} · seed ${m.seed ?? (m.held ? "shown once its pair is over" : "?")} · ${m.seconds?.toFixed?.(2) ?? "?"} s`;
  if (m.held) return held(m);
  document.getElementById("repro-cmd").textContent = m.reproduce;
  document.getElementById("repro").hidden = false;
  const dl = document.getElementById("download");
  dl.href = `${m.log.replace(/^\//, "")}?download=1`;
  dl.hidden = false;
  const { text, damage } = await getText(m.log.replace(/^\//, ""));
  if (damage) showError(null, `This log cannot be believed: ${damage}`);
  lines = parseLines(text);
  await useRenderer(m.game);
  follow = false;
  step = 0;
  rebuild();
  const res = lines.find((l) => l.type === "result");
  outcome(res, m.ejections);
  if (m.outcome === "error") showError(null, `The match could not be played: ${m.error}`);
}

// A finished match whose pair (dealt from the same seed, seats swapped) is still to be played:
// its log, seed and reproduce command would tell that match's hidden hands, so only its outcome.
function held(m) {
  document.body.dataset.held = "1";
  const w = m.winners || [];
  document.getElementById("outcome").replaceChildren(
    h("strong", { "data-outcome": "1" }, w.length ? `Won by ${w.join(", ")}` : m.outcome === "draw" ? "No winner" : m.outcome));
  document.getElementById("ejections").replaceChildren(...(m.ejections || []).map((e) =>
    h("li", { "data-ejection": e.seat }, `${e.name ?? e.seat} was ejected during ${e.call}: ${e.why}`)));
  board.replaceChildren(h("div", { class: "note", "data-held": "1" },
    "This match shares its seed with matches still to be played (its pair, seats swapped). Its moves, " +
    "seed and reproduce command would tell their hidden hands, so they are shown once those are over."));
}

// A live match of this server's own process (?live=ID): at its end, its whole log from memory.
async function live(id) {
  const sum = await getJson(`api/live/${id}`);
  crumbs(h("a", { href: "./" }, "home"), `live match ${id}`);
  document.getElementById("title").textContent = `${(sum.seats || []).join(" vs ") || "live match"}`;
  document.getElementById("facts").textContent = `${sum.game} · live match ${id}`;
  await followStream(sum.game, `api/live/${id}/stream`, async () => {
    // Held while matches dealt from its seed are played: the spectator's view stays.
    if ((await getJson(`api/live/${id}`)).held) return null;
    const { text } = await getText(`api/live/${id}/log`);
    return { text, download: `api/live/${id}/log?download=1` };
  });
}

// A match of a tournament still being played, by this process or another writing to the store
// (?t=T&i=I before its result is in): at its end, the page shows it as stored.
async function storeLive(t, i, sum) {
  crumbs(h("a", { href: "./" }, "tournaments"), h("a", { href: `tournament.html?id=${t}` }, sum.tournament_name), `match ${i}`);
  document.title = `${sum.tournament_name} #${i} · arbiter viewer`;
  document.getElementById("title").textContent = `${(sum.seats || []).join(" vs ")}`;
  document.getElementById("facts").textContent = `${sum.game} · ${sum.tournament_name}, match ${i}, round ${sum.round} · being played`;
  await followStream(sum.game, sum.stream.replace(/^\//, ""), null, async () => { await stored(t, i); go(Infinity); });
}

// Follows a spectator stream; at its end either `wholeLog` gives the whole log to show, or
// `reload` shows the match afresh.
async function followStream(game, streamUrl, wholeLog, reload) {
  const badge = document.getElementById("live-state");
  badge.hidden = false;
  await useRenderer(game);
  let pending = false;
  const refresh = () => {
    if (pending) return;
    pending = true;
    setTimeout(() => { pending = false; rebuild(); }, 150);
  };
  const finish = async () => {
    if (reload) {
      badge.hidden = true;
      document.body.dataset.live = "finished";
      try {
        await reload();
      } catch (e) {
        showError(null, `The match is no longer being played, and no result is stored yet (its worker may have stopped): ${e.message || e}`);
      }
      return;
    }
    const whole = await wholeLog();
    document.body.dataset.live = "finished";  // from here on the page may show the whole log
    if (!whole) {
      document.body.dataset.held = "1";
      badge.className = "badge done";
      badge.textContent = "finished: its whole log is shown once its pair is over";
      return;
    }
    const { text, download } = whole;
    lines = parseLines(text);
    rebuild();
    outcome(lines.find((l) => l.type === "result"));
    badge.className = "badge done";
    badge.textContent = "finished: the whole log is shown";
    const dl = document.getElementById("download");
    dl.href = download;
    dl.hidden = false;
  };
  badge.className = "badge live";
  badge.textContent = "live: a spectator's view";
  document.body.dataset.live = "running";
  const es = new EventSource(streamUrl);
  es.onmessage = (ev) => {
    try { lines.push(JSON.parse(ev.data)); } catch { return; }
    if (!replay) rebuild(); else refresh();
  };
  es.addEventListener("end", () => { es.close(); finish().catch((e) => showError(null, e)); });
  es.onerror = () => {
    if (document.body.dataset.live === "finished") return;
    // A stream of the store that is refused (the match ended before it opened) gives up: show
    // the match as stored, if it is.
    if (reload && es.readyState === EventSource.CLOSED) { finish().catch((e) => showError(null, e)); return; }
    badge.textContent = es.readyState === EventSource.CLOSED ? "disconnected" : "reconnecting…";
  };
  es.onopen = () => { if (document.body.dataset.live !== "finished") badge.textContent = "live: a spectator's view"; };
  if (!replay) { replay = renderer.replay(lines); draw(); }
}

async function storedOrLive(t, i) {
  const res = await fetch(`api/tournaments/${t}/matches/${i}/live`);
  if (res.ok) return storeLive(t, i, await res.json());
  return stored(t, i);
}

function wire() {
  document.getElementById("first").onclick = () => go(0);
  document.getElementById("last").onclick = () => go(Infinity);
  document.getElementById("back").onclick = () => go(step - 1);
  document.getElementById("fwd").onclick = () => go(step + 1);
  document.getElementById("play").onclick = () => setPlaying(!timer);
  document.getElementById("speed").onchange = () => { if (timer) setPlaying(true); };
  scrub.oninput = () => go(Number(scrub.value));
  seatSel.onchange = draw;
  document.getElementById("copy").onclick = () => navigator.clipboard?.writeText(document.getElementById("repro-cmd").textContent);
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") go(step + 1);
    else if (e.key === "ArrowLeft") go(step - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(Infinity);
    else if (e.key === " ") { e.preventDefault(); setPlaying(!timer); }
    else return;
  });
}

async function main() {
  wire();
  const t = param("t"), i = param("i"), id = param("live");
  if (id && /^\d+$/.test(id)) await live(id);
  else if (t && i && /^\d+$/.test(t) && /^\d+$/.test(i)) await storedOrLive(t, i);
  else throw new Error("no match in the address (match.html?t=TOURNAMENT&i=MATCH or ?live=ID)");
  document.body.dataset.ready = "1";
}

main().catch((e) => { showError(null, e); document.body.dataset.ready = "error"; });
