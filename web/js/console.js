// The organizer's console: make a ladder or a tournament, pause, resume and finalize ladders,
// download a tournament's results. Every POST carries the session's CSRF token (GET /api/me gives it).
import { h, getJson, showError, crumbs, postCsrf, say } from "./ui.js";

let me = null;

const post = (url, body) =>
  postCsrf(url, me.csrf, JSON.stringify(body ?? {}), { "Content-Type": "application/json" });

// "hunter:hunt, alice:bot:alice" -> [{name, bot}] (a bot may hold ':' itself)
function anchors(text) {
  return text.split(",").map((s) => s.trim()).filter(Boolean).map((pair) => {
    const at = pair.indexOf(":");
    return at < 0 ? { name: pair, bot: pair } : { name: pair.slice(0, at).trim(), bot: pair.slice(at + 1).trim() };
  });
}

async function act(what, call) {
  try {
    say(await call());
  } catch (err) {
    say(`${what}: ${err.message}`);
  }
  await draw().catch((err) => showError(document.querySelector("main"), err));
}

function ladderActions(l) {
  const out = [];
  if (l.state === "running")
    out.push(h("button", { onclick: () => act(`pause ${l.name}`, async () => { await post(`api/ladders/${l.id}/pause`); return `${l.name}: paused`; }) }, "pause"));
  if (l.state === "paused")
    out.push(h("button", { onclick: () => act(`resume ${l.name}`, async () => { await post(`api/ladders/${l.id}/resume`); return `${l.name}: running`; }) }, "resume"));
  if (l.state !== "frozen") {
    const top = h("input", { type: "number", min: 2, max: 64, value: 4, size: 3, "aria-label": "finalists" });
    out.push(h("label", {}, " top ", top), h("button", {
      onclick: () => act(`finals of ${l.name}`, async () => {
        const f = await post(`api/ladders/${l.id}/finals`, { top: Number(top.value) });
        return `${l.name} is frozen; its finals are tournament ${f.tournament} (${f.matches} matches of ${f.entrants}): arbiter tournament resume ${f.tournament} plays them`;
      }),
    }, "finals"));
  }
  return out;
}

async function draw() {
  const { ladders } = await getJson("api/ladders");
  const body = document.querySelector("#ladders tbody");
  body.replaceChildren(...ladders.map((l) => h("tr", { "data-ladder": l.name, "data-state": l.state },
    h("td", {}, h("a", { href: `ladder.html?id=${l.id}` }, l.name)), h("td", {}, l.game),
    h("td", {}, h("span", { class: l.state === "running" ? "badge live" : "badge" }, l.state)),
    h("td", { class: "num" }, l.entrants), h("td", { class: "num" }, l.rated), h("td", {}, ...ladderActions(l)))));
  if (!ladders.length) body.replaceChildren(h("tr", {}, h("td", { colspan: 6, class: "muted" }, "No ladder yet: make one above.")));
  const { tournaments } = await getJson("api/tournaments");
  const rows = tournaments.filter((t) => t.schedule !== "ladder").reverse();
  document.querySelector("#tournaments tbody").replaceChildren(...rows.map((t) => h("tr", { "data-tournament": t.id },
    h("td", {}, h("a", { href: `tournament.html?id=${t.id}` }, t.name)), h("td", {}, t.game), h("td", {}, t.schedule),
    h("td", { class: "num" }, `${t.progress.done} of ${t.progress.planned}`),
    h("td", {}, h("a", { href: `api/tournaments/${t.id}/export.csv`, download: `${t.name}.csv` }, "results (CSV)")))));
}

async function main() {
  try {
    me = await getJson("api/me");
  } catch {
    location.href = "login.html";
    return;
  }
  if (me.role !== "organizer") {
    location.href = "author.html";
    return;
  }
  crumbs(`${me.name} (organizer)`);
  document.getElementById("logout").addEventListener("click", async () => {
    await post("api/logout").catch(() => {});
    location.href = "login.html";
  });
  const form = document.getElementById("create");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const f = form.elements;
    act("new ladder", async () => {
      const l = await post("api/ladders", { name: f.name.value, game: f.game.value, seats: f.seats.value, anchors: anchors(f.anchors.value) });
      form.reset();
      return `ladder ${l.name} made (id ${l.id}): arbiter ladder run ${l.name} plays it`;
    });
  });
  const made = document.getElementById("tournament");
  made.addEventListener("submit", (event) => {
    event.preventDefault();
    const f = made.elements;
    act("new tournament", async () => {
      const t = await post("api/tournaments", { name: f.name.value, game: f.game.value, schedule: f.schedule.value,
        rounds: Number(f.rounds.value), entrants: anchors(f.entrants.value) });
      made.reset();
      return `tournament ${t.name} made (id ${t.id}, ${t.matches} matches): arbiter tournament resume ${t.id} plays it`;
    });
  });
  const tick = async () => {
    try { await draw(); } catch (err) { showError(document.querySelector("main"), err); }
    document.body.dataset.ready = "1";
    setTimeout(tick, 5000);
  };
  tick();
}

main();
