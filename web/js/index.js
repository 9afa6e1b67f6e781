// The front page: live matches of this server, the store's ladders and its tournaments.
import { h, getJson, showError } from "./ui.js";

async function live() {
  const { matches } = await getJson("api/live");
  const sec = document.getElementById("live");
  if (!matches.length) return;
  sec.hidden = false;
  const body = document.querySelector("#live-table tbody");
  body.replaceChildren(...matches.slice().reverse().map((m) => h("tr", { "data-live": m.id },
    h("td", {}, h("a", { href: `match.html?live=${m.id}` }, `#${m.id}`)),
    h("td", {}, m.game),
    h("td", {}, (m.seats || []).join(", ")),
    h("td", { class: "num" }, m.lines),
    h("td", {}, h("span", { class: m.finished ? "badge done" : "badge live" }, m.finished ? "finished" : "live")))));
}

async function tournaments() {
  let list;
  try {
    list = (await getJson("api/tournaments")).tournaments;
  } catch (e) {
    document.getElementById("store-note").textContent = e.message;
    return;
  }
  list = list.filter((t) => t.schedule !== "ladder");  // listed with the ladders
  const body = document.querySelector("#tournaments tbody");
  if (!list.length) document.getElementById("store-note").textContent = "The store holds no tournament yet.";
  body.replaceChildren(...list.map((t) => h("tr", { "data-tournament": t.id },
    h("td", {}, t.id),
    h("td", {}, h("a", { href: `tournament.html?id=${t.id}` }, t.name)),
    h("td", {}, t.game),
    h("td", { class: "num" }, `${t.progress.done} / ${t.progress.planned}`),
    h("td", { class: "muted" }, t.created))));
}

async function ladders() {
  let list;
  try {
    list = (await getJson("api/ladders")).ladders;
  } catch {
    return;  // no store: the tournaments' note says so
  }
  if (!list.length) return;
  document.getElementById("ladders-card").hidden = false;
  document.querySelector("#ladders tbody").replaceChildren(...list.map((l) => h("tr", { "data-ladder": l.id },
    h("td", {}, l.id),
    h("td", {}, h("a", { href: `ladder.html?id=${l.id}` }, l.name)),
    h("td", {}, l.game),
    h("td", {}, h("span", { class: l.state === "running" ? "badge live" : "badge" }, l.state)),
    h("td", { class: "num" }, l.entrants),
    h("td", { class: "num" }, l.rated),
    h("td", { class: "muted" }, l.created))));
}

Promise.all([live(), ladders(), tournaments()]).catch((e) => showError(null, e));
setInterval(() => live().catch(() => {}), 3000);
