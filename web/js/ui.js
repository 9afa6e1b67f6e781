// Small helpers every page shares: building elements, fetching the API, showing errors.

// h("td", {class: "num"}, "12", child...) → an element; attributes set as given, children
// appended (strings become text nodes, so nothing a player wrote is ever parsed as HTML).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "onclick" || k === "onchange" || k === "oninput") el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export async function getJson(url) {
  const res = await fetch(url, { headers: { Accept: "application/json" } });
  let body = null;
  try { body = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) throw new Error((body && body.error) || `${url}: HTTP ${res.status}`);
  return body;
}

// Shows `text` in the page's #said line.
export function say(text) {
  const p = document.getElementById("said");
  p.textContent = text;
  p.hidden = false;
}

// A POST carrying the session's CSRF token: the answer's JSON, or an Error with its words.
export async function postCsrf(url, csrf, body, headers = {}) {
  const res = await fetch(url, { method: "POST", body, headers: { "X-CSRF-Token": csrf, ...headers } });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(answer.error || `HTTP ${res.status}`);
  return answer;
}

export async function getText(url) {
  const res = await fetch(url);
  if (!res.ok) {
    let msg = `${url}: HTTP ${res.status}`;
    try { msg = (await res.json()).error || msg; } catch { /* keep */ }
    throw new Error(msg);
  }
  return { text: await res.text(), damage: res.headers.get("X-Arbiter-Damage") };
}

// Parses JSON lines; a line that is not JSON becomes {type: "unreadable", text}.
export function parseLines(text) {
  const out = [];
  for (const raw of text.split("\n")) {
    if (!raw.trim()) continue;
    try { out.push(JSON.parse(raw)); } catch { out.push({ type: "unreadable", text: raw.slice(0, 200) }); }
  }
  return out;
}

export function showError(where, err) {
  const box = h("div", { class: "error", role: "alert", "data-error": "1" }, String(err && err.message || err));
  (where || document.querySelector("main")).prepend(box);
}

export function crumbs(...parts) {
  const c = document.querySelector(".crumbs");
  if (!c) return;
  c.replaceChildren();
  parts.forEach((p, i) => { if (i) c.append(" / "); c.append(p); });
}

export const param = (name) => new URLSearchParams(location.search).get(name);

export function fmtNum(x, digits = 1) {
  return typeof x === "number" && isFinite(x) ? x.toFixed(digits) : "–";
}
