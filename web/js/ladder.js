// One ladder: its live leaderboard (refreshed every two seconds) and a head-to-head picker.
import { h, getJson, showError, crumbs, param, fmtNum } from "./ui.js";

const id = Number.parseInt(param("id") || "", 10);
let picked = false;

function statusBadge(status) {
  const cls = status === "active" ? "badge done" : status === "benched" ? "badge live" : "badge";
  return h("span", { class: cls }, status);
}

function draw(board) {
  document.title = `${board.ladder} · ladder · arbiter viewer`;
  document.getElementById("title").textContent = `${board.ladder}`;
  crumbs(h("a", { href: "./" }, "ladders"), board.ladder);
  document.getElementById("facts").textContent =
    `${board.game}, ${board.seats} seats per match · ${board.state} · ${board.rated} matches rated` +
    `, ${board.queued} waiting · ${board.rows.length} entrants · rating: Weng-Lin Plackett-Luce`;
  const body = document.querySelector("#board tbody");
  body.replaceChildren(...board.rows.map((r) => h("tr", { "data-entrant": r.entrant, "data-name": r.name },
    h("td", {}, r.rank),
    h("td", { class: r.rank === 1 ? "win" : "" }, h("a", { href: `bot.html?l=${id}&e=${r.entrant}` }, r.name)),
    h("td", { class: "muted" }, r.bot),
    h("td", {}, statusBadge(r.status)),
    h("td", { class: "num", "data-conservative": r.conservative }, fmtNum(r.conservative, 2)),
    h("td", { class: "num" }, fmtNum(r.mu, 2)),
    h("td", { class: "num" }, fmtNum(r.sigma, 2)),
    h("td", { class: "num" }, r.games))));
  if (!picked && board.rows.length >= 2) {
    picked = true;
    for (const [name, pick] of [["a", 0], ["b", 1]]) {
      const sel = document.querySelector(`#compare select[name=${name}]`);
      sel.replaceChildren(...board.rows.map((r, i) => h("option", { value: r.entrant, selected: i === pick }, `${r.name} (${r.bot})`)));
      sel.addEventListener("change", link);
    }
    link();
  }
}

function link() {
  const f = new FormData(document.getElementById("compare"));
  document.getElementById("compare-link").href = `h2h.html?l=${id}&a=${f.get("a")}&b=${f.get("b")}`;
}

async function refresh() {
  draw(await getJson(`api/ladders/${id}`));
}

if (!Number.isInteger(id)) { showError(null, "no ladder id in the address (ladder.html?id=N)"); document.body.dataset.ready = "error"; }
else {
  refresh().then(() => {
    document.body.dataset.ready = "1";
    setInterval(() => refresh().catch(() => {}), 2000);
  }).catch((e) => { showError(null, e); document.body.dataset.ready = "error"; });
}
