// An author's page: their versions (an organizer's: every bot's), redrawn when the server's
// event stream says one changed; an upload form; a version's build log; retire and bring
// back. Every POST carries the session's CSRF token (GET /api/me gives it).
import { h, getJson, showError, crumbs } from "./ui.js";

let me = null;
let shown = null;  // [bot, version] whose build log is open

async function post(url, body, headers = {}) {
  const res = await fetch(url, { method: "POST", body, headers: { "X-CSRF-Token": me.csrf, ...headers } });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(answer.error || `HTTP ${res.status}`);
  return answer;
}

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

function say(text) {
  const p = document.getElementById("said");
  p.textContent = text;
  p.hidden = false;
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
  return rows.some((v) => v.status === "building" || v.status === "checking");
}

async function main() {
  try {
    me = await getJson("api/me");
  } catch {
    location.href = "login.html";
    return;
  }
  crumbs(`${me.name} (${me.role})`);
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
  const tick = async () => {
    try { await refresh(); } catch (err) { showError(document.querySelector("main"), err); }
    document.body.dataset.ready = "1";
    setTimeout(tick, 15000);
  };
  tick();
}

main();
