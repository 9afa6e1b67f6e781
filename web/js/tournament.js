// One tournament: standings, crosstable, the Elo chart and its matches with filters and paging.
import { h, getJson, showError, crumbs, param, fmtNum } from "./ui.js";
import { lineChart } from "./chart.js";

const id = Number.parseInt(param("id") || "", 10);
const PAGE = 25;
let offset = 0;

function standingsRows(st) {
  return st.standings.map((r, i) => h("tr", { "data-standing": r.name },
    h("td", {}, i + 1),
    h("td", { class: i === 0 ? "win" : "" }, r.name),
    h("td", { class: "muted" }, r.bot),
    h("td", { class: "num" }, r.matches),
    h("td", { class: "num" }, r.wins),
    h("td", { class: "num", "data-points": r.points }, fmtNum(r.points, 1)),
    h("td", { class: r.ejections ? "num bad" : "num" }, r.ejections),
    h("td", { class: "num" }, fmtNum(r.mean_score, 1)),
    h("td", { class: "num" }, fmtNum(r.elo.rating, 0)),
    h("td", { class: "muted" }, `${fmtNum(r.elo.low, 0)} … ${fmtNum(r.elo.high, 0)}`),
    h("td", { class: "num" }, `${fmtNum(r.glicko2.rating, 0)} ± ${fmtNum(2 * r.glicko2.rd, 0)}`),
    ...latencyCells(r.latency, r.voided)));
}

// Response times (the standings' latency, as fastchess's -show-latency): median, p99, the p99
// share of the per-call limit, timeouts and plays voided for a timeout under load.
function latencyCells(l, voided) {
  const ms = (v) => (v === null || v === undefined ? "–" : v < 10 ? `${fmtNum(v, 2)} ms` : `${fmtNum(v, 0)} ms`);
  if (!l) return [h("td", {}, "–"), h("td", {}, "–"), h("td", {}, "–"), h("td", {}, "–")];
  const share = l.limit_share === null ? "–" : `${fmtNum(100 * l.limit_share, 0)} %`;
  return [
    h("td", { class: "num", "data-latency": "median" }, ms(l.median_ms)),
    h("td", { class: "num", "data-latency": "p99" }, ms(l.p99_ms)),
    h("td", { class: l.limit_share >= 0.9 ? "num bad" : "num", "data-latency": "share" }, share),
    h("td", { class: l.timeouts ? "num bad" : "num", "data-latency": "timeouts",
      title: voided ? `${voided} play(s) voided for a timeout under load and played again` : "" },
      voided ? `${l.timeouts} (+${voided} voided)` : `${l.timeouts}`)];
}

function crosstable(ct) {
  const head = document.querySelector("#crosstable thead");
  const body = document.querySelector("#crosstable tbody");
  head.replaceChildren(h("tr", {}, h("th", {}, ""), ...ct.entrants.map((n) => h("th", {}, n))));
  body.replaceChildren(...ct.entrants.map((name, a) => h("tr", {},
    h("th", {}, name),
    ...ct.cells[a].map((c, b) => a === b ? h("td", { class: "self" }, "")
      : h("td", { title: `${c.games} games` }, c.games ? `${fmtNum(c.points, 1)} / ${c.games}` : "–")))));
}

async function loadMatches() {
  drawMatches(await getJson(matchesUrl()));
}

function matchesUrl() {
  const f = new FormData(document.getElementById("filters"));
  const q = new URLSearchParams({ offset, limit: PAGE });
  if (f.get("outcome")) q.set("outcome", f.get("outcome"));
  const v = f.get("verdict");
  if (v === "*") q.set("ejected", "true");
  else if (v === "-") q.set("ejected", "false");
  else if (v) q.set("verdict", v);
  if (f.get("player")) q.set("player", f.get("player"));
  if (f.get("round")) q.set("round", f.get("round"));
  return `api/tournaments/${id}/matches?${q}`;
}

function drawMatches(page) {
  const body = document.querySelector("#matches tbody");
  body.replaceChildren(...page.matches.map((m) => {
    const ej = (m.ejections || []).map((e) => `${e.name}: ${e.why}`).join("; ");
    const outcome = m.outcome === "win" ? `won by ${m.winners.join(", ")}` : m.outcome === "damaged" ? `damaged: ${m.damage}` : m.outcome === "error" ? `error: ${m.error}` : m.outcome;
    return h("tr", { "data-match": m.index },
      h("td", {}, h("a", { href: `match.html?t=${id}&i=${m.index}` }, `#${m.index}`)),
      h("td", {}, m.round),
      h("td", {}, (m.seats || []).join(" vs ")),
      h("td", { class: m.outcome === "win" ? "" : m.outcome === "error" || m.outcome === "damaged" ? "bad" : "muted" }, outcome),
      h("td", {}, (m.scores || []).join(" : ")),
      h("td", { class: ej ? "bad" : "" }, ej),
      h("td", { class: "num" }, fmtNum(m.seconds, 2)));
  }));
  const last = Math.min(page.offset + page.limit, page.total);
  document.getElementById("page").textContent = page.total ? `${page.offset + 1}–${last} of ${page.total}` : "no match fits";
  document.getElementById("prev").disabled = page.offset === 0;
  document.getElementById("next").disabled = last >= page.total;
}

async function main() {
  if (!Number.isSafeInteger(id)) throw new Error("no tournament id in the address (tournament.html?id=N)");
  const t = await getJson(`api/tournaments/${id}`);
  if (t.schedule === "ladder") {  // a ladder has its own page: a leaderboard, not standings
    location.replace(`ladder.html?id=${id}`);
    return;
  }
  document.title = `${t.name} · arbiter viewer`;
  crumbs(h("a", { href: "./" }, "tournaments"), t.name);
  document.getElementById("title").textContent = t.name;
  showFacts(t);
  const sel = document.querySelector("#filters select[name=player]");
  for (const p of t.players) sel.append(h("option", {}, p.name));
  await showStandings();
  document.getElementById("filters").addEventListener("change", () => { offset = 0; loadMatches().catch((e) => showError(null, e)); });
  document.getElementById("prev").addEventListener("click", () => { offset = Math.max(0, offset - PAGE); loadMatches().catch((e) => showError(null, e)); });
  document.getElementById("next").addEventListener("click", () => { offset += PAGE; loadMatches().catch((e) => showError(null, e)); });
  await loadMatches();
  drawLive(await getJson(`api/tournaments/${id}/live`));
  document.body.dataset.ready = "1";
  // A tournament still being played (on a projector, say) refreshes itself until it is done.
  if (t.progress.done < t.progress.planned) {
    const timer = setInterval(async () => {
      try {
        // Everything is fetched before anything is drawn: the page never mixes two moments.
        const [now, st, page, live] = await Promise.all([getJson(`api/tournaments/${id}`),
          getJson(`api/tournaments/${id}/standings`), getJson(matchesUrl()), getJson(`api/tournaments/${id}/live`)]);
        showFacts(now);
        drawStandings(st);
        drawMatches(page);
        drawLive(live);
        if (now.progress.done >= now.progress.planned) { clearInterval(timer); clearInterval(liveTimer); }
      } catch { /* the server may be gone: keep what is shown */ }
    }, 3000);
    // The matches being played change faster than the standings: their list every second.
    const liveTimer = setInterval(async () => {
      try { drawLive(await getJson(`api/tournaments/${id}/live`)); } catch { /* keep what is shown */ }
    }, 1000);
  }
}

function drawLive({ matches }) {
  document.getElementById("live").hidden = matches.length === 0;
  document.querySelector("#live-table tbody").replaceChildren(...matches.map((m) => h("tr", { "data-live": m.index },
    h("td", {}, h("a", { href: `match.html?t=${id}&i=${m.index}` }, `#${m.index}`)),
    h("td", {}, String(m.round)),
    h("td", {}, (m.seats || []).join(" vs ")),
    h("td", { class: "num" }, String(m.lines)),
    h("td", {}, h("span", { class: "badge live" }, "live")))));
}

function showFacts(t) {
  document.getElementById("facts").textContent =
    `${t.game} · ${t.schedule}, ${t.seats} seats, ${t.rounds} round(s) · seed ${t.seed ?? "shown once it is over"} · ${t.progress.done} of ${t.progress.planned} matches played · created ${t.created}`;
}

async function showStandings() {
  drawStandings(await getJson(`api/tournaments/${id}/standings`));
}

function drawStandings(st) {
  document.querySelector("#standings tbody").replaceChildren(...standingsRows(st));
  document.getElementById("standings-note").textContent =
    `${st.matches} matches counted` + (st.errors ? `, ${st.errors} could not be played` : "") + (st.damaged ? `, ${st.damaged} damaged rows left out` : "") +
    (st.voided ? `, ${st.voided} play(s) voided for a timeout under load and played again` : "") +
    ". Elo by maximum likelihood with a 95% interval; Glicko-2 shown ± 2 RD. " +
    `Response times are wall-clock; "of limit" is the 99th percentile of ${st.limit_by === "cpu" ? "CPU time (limits judged on CPU time)" : "wall time"} as a share of the per-call limit.`;
  crosstable(st.crosstable);
  const rounds = st.elo_by_round.map((p) => p.round);
  const series = st.crosstable.entrants.map((name, e) => ({ name, values: st.elo_by_round.map((p) => p.elo[e]) }));
  const chart = document.getElementById("chart");
  chart.classList.add("chart");
  chart.replaceChildren(lineChart(rounds, series, { xLabel: "round", yLabel: "Elo" }));
}

main().catch((e) => { showError(null, e); document.body.dataset.ready = "error"; });
