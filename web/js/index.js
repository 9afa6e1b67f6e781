// The front page: live matches of this server and the store's tournaments.
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
  const body = document.querySelector("#tournaments tbody");
  if (!list.length) document.getElementById("store-note").textContent = "The store holds no tournament yet.";
  body.replaceChildren(...list.map((t) => h("tr", { "data-tournament": t.id },
    h("td", {}, t.id),
    h("td", {}, h("a", { href: `tournament.html?id=${t.id}` }, t.name)),
    h("td", {}, t.game),
    h("td", { class: "num" }, `${t.progress.done} / ${t.progress.planned}`),
    h("td", { class: "muted" }, t.created))));
}

Promise.all([live(), tournaments()]).catch((e) => showError(null, e));
setInterval(() => live().catch(() => {}), 3000);
