// Two ladder entrants head to head: their record in the matches where both sat, and the meetings.
import { h, getJson, showError, crumbs, param, fmtNum } from "./ui.js";

const ladder = Number.parseInt(param("l") || "", 10);
const a = Number.parseInt(param("a") || "", 10);
const b = Number.parseInt(param("b") || "", 10);

function draw(d) {
  document.title = `${d.a.name} v ${d.b.name} · arbiter viewer`;
  document.getElementById("title").textContent = `${d.a.name} v ${d.b.name}`;
  crumbs(h("a", { href: "./" }, "ladders"), h("a", { href: `ladder.html?id=${ladder}` }, d.ladder.name), "head to head");
  document.getElementById("facts").textContent =
    `${d.a.name} (${d.a.bot}) against ${d.b.name} (${d.b.bot}): ${d.meetings} meetings in ${d.ladder.name}; in a match of more seats, the better place wins`;
  document.getElementById("record").replaceChildren(
    h("span", { "data-wins": d.wins }, h("a", { href: `bot.html?l=${ladder}&e=${d.a.index}` }, d.a.name), ` won ${d.wins}`),
    h("span", { "data-draws": d.draws }, `drew ${d.draws}`),
    h("span", { "data-losses": d.losses }, h("a", { href: `bot.html?l=${ladder}&e=${d.b.index}` }, d.b.name), ` won ${d.losses}`),
    h("span", { class: "muted" }, `points ${fmtNum(d.a_points, 1)} – ${fmtNum(d.b_points, 1)}`));
  document.querySelector("#meetings tbody").replaceChildren(...d.matches.map((m) => h("tr", { "data-match": m.index },
    h("td", {}, h("a", { href: `match.html?t=${ladder}&i=${m.index}` }, `#${m.index}`)),
    h("td", {}, m.round),
    h("td", {}, (m.seats || []).join(" vs ")),
    h("td", {}, m.outcome === "win" ? `won by ${m.winners.join(", ")}` : m.outcome),
    h("td", { class: "muted" }, (m.scores || []).join(" – ")))));
}

if (![ladder, a, b].every(Number.isInteger)) {
  showError(null, "the address needs a ladder and two entrants (h2h.html?l=N&a=E&b=F)");
  document.body.dataset.ready = "error";
} else {
  getJson(`api/ladders/${ladder}/head-to-head?a=${a}&b=${b}`)
    .then((d) => { draw(d); document.body.dataset.ready = "1"; })
    .catch((e) => { showError(null, e); document.body.dataset.ready = "error"; });
}
