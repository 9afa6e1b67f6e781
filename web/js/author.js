// An author's page: their versions (an organizer's: every bot's), redrawn when the server's
// event stream says one changed; an upload form; a version's build log; retire and bring
// back; their entrants in each ladder, test matches asked for and followed. Every POST carries
// the session's CSRF token (GET /api/me gives it).
import { h, getJson, showError, crumbs, postCsrf, say } from "./ui.js";

let me = null;
let shown = null;  // [bot, version] whose build log is open

const post = (url, body, headers = {}) => postCsrf(url, me.csrf, body, headers);

function badge(status) {
  const cls = status === "active" ? "badge done" : status === "building" || status === "checking" ? "badge live" : "badge";
  return h("span", { class: cls, "data-status": status }, status);
}

function actions(v) {
  const act = (label, path) => h("button", {
    onclick: async () => {
      try { await post(`api/bots/${v.bot}/versions/${v.version}/${path}`); await refresh(); }
      catch (err) { say(`${v.bot}@${v.version}: ${err.message}`); }
    },
  }, label);
  const out = [h("button", { onclick: () => openLog(v.bot, v.version) }, "build log")];
  if (v.status === "active") out.push(act("retire", "retire"));
  if (v.status === "retired" && v.artifact) out.push(act("bring back", "activate"));
  return out;
}

async function openLog(bot, version) {
  shown = [bot, version];
  try {
    const v = await getJson(`api/bots/${bot}/versions/${version}`);
    document.getElementById("detail").hidden = false;
    document.getElementById("detail-title").textContent = `${bot}@${version}: ${v.status}`;
    document.getElementById("build-log").textContent =
      (v.reason ? `why: ${v.reason}\n\n` : "") + (v.build_log ?? "(no build step, and the check has not run yet)");
  } catch (err) {
    showError(document.getElementById("detail"), err);
  }
}

async function refresh() {
  const list = await getJson("api/my/bots");
  const body = document.querySelector("#versions tbody");
  const rows = [...list.versions].reverse();
  body.replaceChildren(...rows.map((v) => h("tr", { "data-bot": v.bot, "data-version": v.version },
    h("td", {}, v.bot), h("td", { class: "num" }, v.version), h("td", {}, badge(v.status)),
    h("td", { class: "muted" }, v.reason), h("td", { class: "muted" }, v.created),
    h("td", { class: "muted" }, v.author || "(organizer)"), h("td", {}, ...actions(v)))));
  if (!rows.length) body.replaceChildren(h("tr", {}, h("td", { colspan: 7, class: "muted" }, "No versions yet: upload one above.")));
  if (shown) await openLog(...shown);
  await drawLadders(new Set(list.versions.map((v) => v.bot)));
  const testsUnderWay = await drawTests();
  return testsUnderWay || rows.some((v) => v.status === "building" || v.status === "checking");
}

// The ladders with the reader's own entrants (an organizer's: every entrant), each with a form
// for a test match of one of them against any entrant that plays.
async function drawLadders(myBots) {
  const where = document.getElementById("ladders");
  const { ladders } = await getJson("api/ladders");
  const cards = [];
  const signature = [];
  for (const l of ladders) {
    const board = await getJson(`api/ladders/${l.id}`);
    const playing = board.rows.filter((r) => r.status !== "benched");
    const mine = playing.filter((r) => me.role === "organizer" || myBots.has(r.bot.split("@")[0]));
    if (!mine.length) continue;
    signature.push([l.id, l.state, mine.map((r) => r.name), playing.map((r) => r.name)]);
    const own = h("select", { name: "own" }, ...mine.map((r) => h("option", { value: r.name }, r.name)));
    const other = h("select", { name: "other" }, ...playing.map((r) => h("option", { value: r.name }, r.name)));
    if (playing.length > 1 && other.options.length > 1) other.selectedIndex = playing.findIndex((r) => r.name !== mine[0].name);
    const form = h("form", { class: "filters", "data-ladder": l.id },
      h("label", {}, "mine ", own), h("label", {}, "against ", other), h("button", { type: "submit" }, "play a test match"));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const t = await post(`api/ladders/${l.id}/tests`, JSON.stringify({ seats: [own.value, other.value] }),
          { "Content-Type": "application/json" });
        say(`test match ${t.index} in ${l.name}: queued`);
        await drawTests();
      } catch (err) {
        say(`Test match refused: ${err.message}`);
      }
    });
    cards.push(h("div", { class: "ladder-mine", "data-ladder": l.id },
      h("h3", {}, h("a", { href: `ladder.html?id=${l.id}` }, l.name), ` · ${l.game} · ${l.state}`),
      h("p", {}, "entrants: ", ...mine.flatMap((r, i) => [i ? ", " : "",
        h("a", { href: `bot.html?l=${l.id}&e=${r.entrant}`, class: "entrant" }, r.name)])),
      form));
  }
  // Redrawn only when something in it changed: a refresh never resets a choice being made.
  const drawn = JSON.stringify(signature);
  if (cards.length && drawn !== where.dataset.drawn) {
    where.replaceChildren(...cards);
    where.dataset.drawn = drawn;
  }
}

function outcome(t) {
  if (!t.result) return "";
  if (t.result.error) return `error: ${t.result.error}`;
  const winners = (t.result.winners || []).map((s) => t.seats[s]);
  return winners.length ? `won by ${winners.join(", ")}` : "a draw";
}

async function drawTests() {
  const { tests } = await getJson("api/my/tests");
  const body = document.querySelector("#tests tbody");
  body.replaceChildren(...tests.map((t) => h("tr", { "data-index": t.index, "data-state": t.state },
    h("td", {}, t.ladder_name), h("td", {}, t.seats.join(" vs ")),
    h("td", {}, h("span", { class: t.state === "over" ? "badge done" : "badge live" }, t.state)),
    h("td", { class: "muted" }, outcome(t)),
    h("td", {}, h("a", { href: t.match }, t.state === "over" ? "replay" : "watch")))));
  if (!tests.length) body.replaceChildren(h("tr", {}, h("td", { colspan: 5, class: "muted" }, "None yet.")));
  return tests.some((t) => t.state !== "over");
}

async function main() {
  try {
    me = await getJson("api/me");
  } catch {
    location.href = "login.html";
    return;
  }
  crumbs(`${me.name} (${me.role})`);
  document.getElementById("console").hidden = me.role !== "organizer";
  document.getElementById("title").textContent = me.role === "organizer" ? "Every bot" : `${me.name}'s bots`;
  document.getElementById("facts").textContent = me.role === "organizer"
    ? "As an organizer you see, retire and bring back every bot's versions."
    : "Only you (and the organizers) see these build logs.";
  document.getElementById("logout").addEventListener("click", async () => {
    await post("api/logout").catch(() => {});
    location.href = "login.html";
  });
  const form = document.getElementById("upload");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData();
    data.append("archive", form.elements.archive.files[0]);
    try {
      const v = await post("api/bots", data);
      say(`${v.bot}@${v.version}: ${v.status}`);
      shown = [v.bot, v.version];
      form.reset();
    } catch (err) {
      say(`Refused: ${err.message}`);
    }
    await refresh().catch((err) => showError(document.querySelector("main"), err));
  });
  // The server says when a version's status changes; a slow poll is only the fallback for a
  // stream cut off (a restart logs everyone out: the next refresh goes to the login page).
  const events = new EventSource("api/my/events");
  events.onmessage = () => refresh().catch((err) => showError(document.querySelector("main"), err));
  events.addEventListener("end", () => events.close());
  // Every 15 s; every 3 s while a test match waits or plays (its state is not an event).
  const tick = async () => {
    let busy = false;
    try { busy = await refresh(); } catch (err) { showError(document.querySelector("main"), err); }
    document.body.dataset.ready = "1";
    setTimeout(tick, busy ? 3000 : 15000);
  };
  tick();
}

main();
