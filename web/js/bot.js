// One ladder entrant: its rating over time with its uncertainty, its bot's versions with their
// build state, its recent matches, its ejections by reason and (when the server shows them) the
// last lines of its own stderr per match.
import { h, getJson, showError, crumbs, param, fmtNum } from "./ui.js";
import { lineChart } from "./chart.js";

const ladder = Number.parseInt(param("l") || "", 10);
const entrant = Number.parseInt(param("e") || "", 10);

function outcomeText(m) {
  if (m.outcome === "win") return `won by ${m.winners.join(", ")}`;
  if (m.outcome === "error") return `error: ${m.error}`;
  if (m.outcome === "damaged") return `damaged: ${m.damage}`;
  return m.outcome;
}

function draw(d) {
  const e = d.entrant;
  document.title = `${e.name} · ${d.ladder.name} · arbiter viewer`;
  document.getElementById("title").textContent = `${e.name} (${e.bot})`;
  crumbs(h("a", { href: "./" }, "ladders"), h("a", { href: `ladder.html?id=${ladder}` }, d.ladder.name), e.name);
  document.getElementById("facts").textContent =
    `${e.status} · rank ${e.rank} · μ − 3σ ${fmtNum(e.conservative, 2)} · μ ${fmtNum(e.mu, 2)} · σ ${fmtNum(e.sigma, 2)} · ${e.games} rated games`;

  const xs = d.history.map((p) => p.games);
  const mu = d.history.map((p) => p.mu);
  document.getElementById("chart").replaceChildren(lineChart(xs, [{
    name: "μ",
    values: mu,
    low: d.history.map((p) => p.mu - 3 * p.sigma),
    high: d.history.map((p) => p.mu + 3 * p.sigma),
  }, { name: "μ − 3σ", values: d.history.map((p) => p.mu - 3 * p.sigma) }], { xLabel: "rated games", yLabel: "skill", empty: "no rated games yet" }));

  document.querySelector("#versions tbody").replaceChildren(...d.versions.map((v) => h("tr", { "data-version": v.version },
    h("td", { class: v.this ? "win" : "" }, `${e.bot.split("@")[0]}@${v.version}${v.this ? " (this entrant)" : ""}`),
    h("td", {}, h("span", { class: v.status === "active" ? "badge done" : v.status.endsWith("failed") ? "badge live" : "badge" }, v.status)),
    h("td", { class: "muted" }, v.reason),
    h("td", { class: "muted" }, v.created))));
  document.getElementById("versions-note").textContent = d.versions.length ? "" : "a house bot: it has no stored versions";

  const reasons = Object.entries(d.ejections);
  document.getElementById("ejections-note").textContent =
    `in its last ${d.ejections_over} matches: ${reasons.length ? "" : "never ejected"}`;
  document.querySelector("#ejections tbody").replaceChildren(...reasons.map(([why, n]) => h("tr", { "data-reason": why },
    h("td", { class: "bad" }, why), h("td", { class: "num" }, n))));

  document.querySelector("#recent tbody").replaceChildren(...d.recent.map((m) => h("tr", { "data-match": m.index },
    h("td", {}, h("a", { href: `match.html?t=${ladder}&i=${m.index}` }, `#${m.index}`)),
    h("td", {}, m.round),
    h("td", {}, (m.seats || []).join(" vs ")),
    h("td", { class: m.place === 0 ? "win" : "" }, m.place === undefined ? "–" : m.place + 1),
    h("td", { class: m.outcome === "error" || m.outcome === "damaged" ? "bad" : "" }, outcomeText(m)),
    h("td", { class: "bad" }, (m.ejections || []).map((x) => `${x.name}: ${x.verdict || x.why}`).join("; ")))));

  if (d.stderr) {
    document.getElementById("stderr-card").hidden = false;
    document.getElementById("stderr").replaceChildren(...(d.stderr.length ? d.stderr.map((s) => h("div", { "data-stderr": s.match },
      h("p", { class: "muted" }, `match #${s.match}: ${s.bytes} bytes written`),
      h("pre", { class: "tail" }, s.tail || ""))) : [h("p", { class: "muted" }, "nothing written on stderr in its recent matches")]));
  }
}

if (!Number.isInteger(ladder) || !Number.isInteger(entrant)) {
  showError(null, "the address needs a ladder and an entrant (bot.html?l=N&e=E)");
  document.body.dataset.ready = "error";
} else {
  getJson(`api/ladders/${ladder}/entrants/${entrant}`)
    .then((d) => { draw(d); document.body.dataset.ready = "1"; })
    .catch((e) => { showError(null, e); document.body.dataset.ready = "error"; });
}
