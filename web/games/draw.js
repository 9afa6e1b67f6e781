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
