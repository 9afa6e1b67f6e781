// Helpers shared by the game renderers (web/games/README.md): plain ES module, no library.
//   style(id, css)                 Appends <style id="id">css</style> to document.head, once: does
//                                  nothing when an element with that id exists or when there is
//                                  no document (replay() may run outside a page).
//   svg(tag, attrs, ...children)   A new element: svg() in the SVG namespace, html() an HTML one.
//   html(tag, attrs, ...children)  `attrs` (an object, or null) is set attribute by attribute, in
//                                  order; a null, undefined or false value is skipped, any other
//                                  is set as a string (0 and "" included). `children` are appended
//                                  in order: arrays are flattened, null, undefined and false are
//                                  skipped, a Node is appended as it is, anything else as text.
//                                  Returns the element, not attached to anything.
//   prefixed(prefix)               A function (...names) -> a class attribute: every truthy name as
//                                  "<prefix>-<name>", joined by spaces ("" when there is none).
//   obj(v)                         v when it is an object and not an array, else {} (never null).
//   secs(us)                       A time in microseconds as seconds, 3 decimals: "1.500 s".
//   method(line), args(line)       A real-time log line's "message" ["method", [args...]]: the
//                                  method name as a string ("" when there is no message), and the
//                                  argument array ([] when it is missing or not an array).
//   SHARED_CSS                     The card, chip, score and text styles several renderers share,
//                                  with "P-" where each puts its own prefix.

const NS = 'http://www.w3.org/2000/svg';

export function style(id, css) {
  if (typeof document === 'undefined' || document.getElementById(id)) return;
  const e = document.createElement('style');
  e.id = id;
  e.textContent = css;
  document.head.append(e);
}

function build(e, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) if (v != null && v !== false) e.setAttribute(k, v);
  for (const c of children.flat(Infinity)) if (c != null && c !== false) e.append(c);
  return e;
}
export const svg = (tag, attrs, ...children) => build(document.createElementNS(NS, tag), attrs, children);
export const html = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);

export const prefixed = (prefix) => (...names) => names.filter(Boolean).map((n) => prefix + '-' + n).join(' ');

export const obj = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
export const secs = (us) => (Number(us) / 1e6).toFixed(3) + ' s';
export const method = (line) => (Array.isArray(line.message) ? String(line.message[0]) : '');
export const args = (line) => (Array.isArray(line.message) && Array.isArray(line.message[1]) ? line.message[1] : []);

export const SHARED_CSS = `
.P-root{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;display:flex;flex-direction:column;gap:10px}
.P-bar{display:flex;flex-wrap:wrap;gap:8px;align-items:stretch}
.P-card{background:#fff;border:1px solid #d8dee6;border-radius:8px;padding:6px 12px;box-shadow:0 1px 2px rgba(16,24,40,.06)}
.P-card.P-me{border-color:#3b82f6;box-shadow:0 0 0 2px rgba(59,130,246,.35)}
.P-title{font-weight:650}
.P-chip{display:inline-block;padding:0 8px;border-radius:999px;font-size:12px;font-weight:600;background:#edf2f7;color:#4a5568;white-space:nowrap}
.P-chip+.P-chip{margin-left:4px}
.P-score{font-size:20px;font-weight:750;font-variant-numeric:tabular-nums;margin:0 4px}
.P-muted{color:#718096;font-size:12px}
.P-svg{max-width:100%;height:auto;display:block}
`;
