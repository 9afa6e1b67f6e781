// Dominosa race renderer (contract: web/games/README.md; rules: docs/games/dominosa.md).
//   replay(lines) -> {steps, seats, draw(root, k, seat), summary(k)}
// Real-time log: "setup" (["setup", [{"n", "grid"}]], the same puzzle for every seat),
// "message" (["submit", ["LRTB..."]], one letter a cell, row-major: L/R the left/right half of
// a horizontal domino, T/B the top/bottom half of a vertical one), "notice" (["verdict",
// ["accepted" | reason]]), "fault", "ejection", "end", "result". Steps: 0 = the start, then one
// per message, notice and fault line, and one for "end"; ejection, result and unknown lines join
// the step before them. Drawn: the number grid (data-board="dominosa", data-cell="r,c" on every
// cell) and the dominoes of one submission (data-domino="a-b" each, data-dup="1" when the
// domino is used twice): in a seat's view its latest submission, in the full view the accepted
// one, else the latest sent. Race status per seat: submissions, refusals, faults, finish time,
// score (data-score). A seat's view holds only that seat's lines. Spectator logs keep only
// ["submit"]: the submission is then hidden and no domino is drawn.
import { style, svg as s, html as h, prefixed, secs, method, args, SHARED_CSS } from "./draw.js";

const P = 'dominosa';
const COLORS = ['#2b6cb0', '#c05621', '#2f855a', '#6b46c1', '#b83280', '#2c7a7b', '#975a16', '#4a5568'];

const CSS = (SHARED_CSS + `
.P-ok{background:#e3f4e8;color:#276749}.P-bad{background:#fde8e8;color:#c53030}.P-warn{background:#fef3c7;color:#975a16}.P-win{background:#fff4c2;color:#7a5b00}
.P-list{margin:0;padding:0 0 0 2px;list-style:none;font-size:13px;max-height:14em;overflow:auto}
.P-list li{padding:1px 0}
.P-main{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}.P-main>.P-card:last-child{flex:1 1 220px;min-width:200px}.P-main .P-list{max-height:34em}
.P-dot{display:inline-block;width:10px;height:10px;border-radius:50%;vertical-align:0;margin-right:6px}
`).replace(/P-/g, P + '-');

const cls = prefixed(P);

const kind = (v) => (v == null ? 'pending' : v === 'accepted' ? 'ok' : 'bad');
const verdictText = (v) => (v === 'accepted' ? 'is accepted' : `is refused: ${v}`);

export function replay(lines) {
  lines = Array.isArray(lines) ? lines : [];
  const head = lines[0] && lines[0].type === 'match' ? lines[0] : {};
  const seats = Array.isArray(head.seats) ? head.seats.map(String) : [];
  const name = (i) => (seats[i] != null ? seats[i] : `seat ${i}`);
  const res = lines.find((l) => l && l.type === 'result');
  const steps = [{ line: 0, label: 'start: the puzzle is dealt' }];
  let now = 0;
  for (let i = 1; i < lines.length; i++) {
    const L = lines[i];
    const t = L && typeof L === 'object' ? L.type : null;
    if (Number.isFinite(L && L.at_us)) now = L.at_us;
    let label = null;
    if (t === 'message') {
      const sol = args(L)[0];
      label = method(L) !== 'submit' ? `${name(L.seat)} sends ${method(L) || 'a message'}`
        : `${name(L.seat)} submits a solution${typeof sol === 'string' ? ` (${sol.length} letters)` : ''}`;
    } else if (t === 'notice') {
      label = method(L) === 'verdict' ? `${name(L.seat)}'s solution ${verdictText(String(args(L)[0]))}` : `${name(L.seat)} is sent ${method(L) || 'a notice'}`;
    } else if (t === 'fault') label = `${name(L.seat)} faults (${L.why})`;
    else if (t === 'end') {
      label = 'the game ends';
      if (res && Array.isArray(res.winners)) label += res.winners.length ? `: ${res.winners.map(name).join(', ')} wins` : ': nobody wins';
    }
    if (label) steps.push({ line: i, label: `${secs(now)}: ${label}` });
    else steps[steps.length - 1].line = i;
  }
  const at = (k) => steps[Math.max(0, Math.min(steps.length - 1, Number.isInteger(k) ? k : steps.length - 1))];
  const draw = (root, k, seat) => drawState(root, fold(lines, seats, at(k).line, seat), seat);
  const summary = (k) => fold(lines, seats, at(k).line, null).players.map((p, i) => ({
    seat: i, text: `${p.subs.length} submitted, ${p.refused} refused${p.solvedAt != null ? ', solved at ' + secs(p.solvedAt) : ''}${p.out ? ', ejected: ' + p.out.why : ''}` }));
  return { steps, seats, draw, summary };
}

function fold(lines, seats, upto, seat) {
  const head = lines[0] && lines[0].type === 'match' ? lines[0] : {};
  const st = { cfg: { ...(head.config || {}) }, puzzle: null, now: 0, events: [], end: null, result: null, last: null,
               players: seats.map((n) => ({ name: n, subs: [], refused: 0, out: null, solvedAt: null })) };
  const player = (i) => st.players[i] || (st.players[i] = { name: `seat ${i}`, subs: [], refused: 0, out: null, solvedAt: null });
  for (let i = 1; i <= upto && i < lines.length; i++) {
    const L = lines[i];
    if (!L || typeof L !== 'object') continue;
    if (Number.isFinite(L.at_us)) st.now = L.at_us;
    if (seat != null && Number.isInteger(L.seat) && L.seat !== seat) continue;
    const p = Number.isInteger(L.seat) && L.seat >= 0 && L.seat < 64 ? player(L.seat) : null;
    const ev = (text, k) => st.events.push({ t: st.now, text, kind: k });
    if (L.type === 'setup' && method(L) === 'setup') {
      const pz = args(L)[0];
      if (!st.puzzle && pz && Array.isArray(pz.grid) && pz.grid.length && pz.grid.every(Array.isArray)) st.puzzle = pz;
    } else if (L.type === 'message' && p) {
      const sol = args(L)[0];
      if (method(L) === 'submit') {
        const sub = { seat: L.seat, at: st.now, sol: typeof sol === 'string' ? sol : null, verdict: null, n: p.subs.length + 1 };
        p.subs.push(sub);
        st.last = sub;
        ev(`${p.name} submits solution #${sub.n}${sub.sol != null ? ` (${sub.sol.length} letters)` : ''}`, 'muted');
      } else ev(`${p.name} sends ${method(L) || 'something'}`, 'muted');
    } else if (L.type === 'notice' && p && method(L) === 'verdict') {
      const v = String(args(L)[0]);
      const sub = p.subs.find((x) => x.verdict == null);
      if (sub) sub.verdict = v;
      if (v === 'accepted') { p.solvedAt = sub ? sub.at : st.now; st.won = sub; } else p.refused++;
      ev(`${p.name}'s solution${sub ? ' #' + sub.n : ''} ${verdictText(v)}`, kind(v));
    } else if ((L.type === 'fault' || L.type === 'ejection') && p) {
      if (!p.out) { p.out = { why: String(L.why || 'out'), detail: String(L.detail || '') }; ev(`${p.name} is ejected (${p.out.why}): ${p.out.detail}`, 'bad'); }
    } else if (L.type === 'end') { st.end = L; ev('the game ends', 'muted'); }
    else if (L.type === 'result') st.result = L;
  }
  st.players.forEach((p, i) => {
    const r = st.result;
    p.won = !!(r && Array.isArray(r.winners) && r.winners.includes(i));
    p.score = r && Array.isArray(r.scores) && Number.isFinite(r.scores[i]) ? r.scores[i] : p.solvedAt != null ? 1 : 0;
  });
  st.shown = seat != null ? (st.players[seat] && st.players[seat].subs.slice(-1)[0]) || null : st.won || st.last;
  return st;
}

// The dominoes a solution string lays on a rows x cols grid, and the cells it leaves unpaired.
function decode(sol, grid) {
  const rows = grid.length, cols = grid[0].length, cells = rows * cols, n = Math.min(sol.length, cells);
  const doms = [], paired = new Set(), count = new Map();
  for (let i = 0; i < n; i++) {
    const r = Math.floor(i / cols), c = i % cols;
    let j = -1;
    if (sol[i] === 'L' && c + 1 < cols && sol[i + 1] === 'R') j = i + 1;
    if (sol[i] === 'T' && r + 1 < rows && sol[i + cols] === 'B' && i + cols < n) j = i + cols;
    if (j < 0) continue;
    const a = grid[r][c], b = grid[Math.floor(j / cols)][j % cols];
    const key = `${Math.min(a, b)}-${Math.max(a, b)}`;
    count.set(key, (count.get(key) || 0) + 1);
    doms.push({ i, j, key });
    paired.add(i).add(j);
  }
  for (const d of doms) d.dup = count.get(d.key) > 1;
  const unpaired = [];
  for (let i = 0; i < n; i++) if (!paired.has(i)) unpaired.push(i);
  return { doms, unpaired, short: sol.length !== cells };
}

function board(st) {
  const grid = st.puzzle.grid, rows = grid.length, cols = Math.max(...grid.map((r) => r.length));
  const z = Math.max(16, Math.min(44, Math.floor(520 / Math.max(cols, 1)))), pad = 8;
  const svg = s('svg', { 'data-board': P, class: cls('svg'), width: cols * z + 2 * pad, viewBox: `0 0 ${cols * z + 2 * pad} ${rows * z + 2 * pad}`, role: 'img', 'aria-label': 'Dominosa grid' });
  svg.append(s('rect', { x: 2, y: 2, width: cols * z + 2 * pad - 4, height: rows * z + 2 * pad - 4, rx: 8, fill: '#f7f9fc', stroke: '#d8dee6' }));
  const sub = st.shown, dec = sub && sub.sol != null && cols === grid[0].length ? decode(sub.sol, grid) : null;
  const bad = new Set(dec ? dec.unpaired : []);
  for (let r = 0; r < rows; r++) for (let c = 0; c < grid[r].length; c++) {
    const x = pad + c * z, y = pad + r * z;
    svg.append(s('rect', { x: x + 1, y: y + 1, width: z - 2, height: z - 2, rx: 4, 'data-cell': `${r},${c}`,
      fill: bad.has(r * cols + c) ? '#fde8e8' : '#ffffff', stroke: bad.has(r * cols + c) ? '#e53e3e' : '#e2e8f0', 'stroke-dasharray': bad.has(r * cols + c) ? '3 2' : null }));
  }
  const tone = sub ? kind(sub.verdict) : 'pending';
  for (const d of dec ? dec.doms : []) {
    const r1 = Math.floor(d.i / cols), c1 = d.i % cols, r2 = Math.floor(d.j / cols), c2 = d.j % cols;
    const x = pad + c1 * z + 3, y = pad + r1 * z + 3, w = (c2 - c1 + 1) * z - 6, hh = (r2 - r1 + 1) * z - 6;
    const [fill, stroke] = d.dup ? ['#fde8e8', '#e53e3e'] : tone === 'ok' ? ['#e3f4e8', '#2f855a'] : tone === 'bad' ? ['#eef1f5', '#718096'] : ['#e8f1fc', '#3182ce'];
    const mid = c2 > c1 ? `M${x + w / 2},${y + 5}v${hh - 10}` : `M${x + 5},${y + hh / 2}h${w - 10}`;
    svg.append(s('g', { 'data-domino': d.key, 'data-dup': d.dup ? '1' : null },
      s('rect', { x, y, width: w, height: hh, rx: z * 0.22, fill, stroke, 'stroke-width': 2 }),
      s('path', { d: mid, stroke, 'stroke-width': 1, opacity: 0.5 })));
  }
  for (let r = 0; r < rows; r++) for (let c = 0; c < grid[r].length; c++)
    svg.append(s('text', { x: pad + c * z + z / 2, y: pad + r * z + z / 2 + z * 0.15, 'text-anchor': 'middle', 'font-size': Math.round(z * 0.42), 'font-weight': 600, fill: '#1f2933', 'font-variant-numeric': 'tabular-nums' }, String(grid[r][c])));
  return { svg, dec };
}

function drawState(root, st, seat) {
  style(P + '-style', CSS);
  root.replaceChildren();
  const box = h('div', { class: cls('root') });
  root.append(box);
  const bar = h('div', { class: cls('bar') });
  st.players.forEach((p, i) => {
    if (seat != null && i !== seat) return;
    const last = p.subs[p.subs.length - 1];
    bar.append(h('div', { class: cls('card', seat === i && 'me') },
      h('div', { class: cls('title') }, h('span', { class: cls('dot'), style: `background:${COLORS[i % COLORS.length]}` }), p.name, ' ',
        p.won ? h('span', { class: cls('chip', 'win') }, 'winner') : null,
        p.solvedAt != null ? h('span', { class: cls('chip', 'ok') }, `solved at ${secs(p.solvedAt)}`) : null,
        p.out ? h('span', { class: cls('chip', 'bad') }, `ejected: ${p.out.why}`) : null),
      h('div', null, 'score', h('span', { class: cls('score'), 'data-score': String(i) }, String(p.score)),
        h('span', { class: cls('muted') }, `· ${p.subs.length} submitted, ${p.refused} refused${last && last.verdict == null ? ', 1 awaiting its verdict' : ''}`))));
  });
  const pz = st.puzzle, res = st.result;
  let outcome = st.end ? 'the game is over' : 'racing…';
  if (res && Array.isArray(res.winners)) {
    const names = res.winners.map((w) => (st.players[w] ? st.players[w].name : `seat ${w}`));
    outcome = seat != null ? (res.winners.includes(seat) ? 'you won' : 'you did not win') : names.length ? `${names.join(', ')} won` : 'nobody won';
  }
  bar.append(h('div', { class: cls('card') }, h('div', { class: cls('title') }, outcome),
    h('div', { class: cls('muted') }, `${secs(st.now)} · ${pz ? `n = ${pz.n}, ${pz.grid.length} x ${pz.grid[0].length}` : 'no puzzle yet'} · ${st.cfg.level || ''}`)));
  box.append(bar);

  const card = h('div', { class: cls('card') });
  const sub = st.shown;
  if (pz) {
    const { svg, dec } = board(st);
    let head = 'no submission yet', chip = null;
    if (sub) {
      const who = st.players[sub.seat] ? st.players[sub.seat].name : `seat ${sub.seat}`;
      head = `${seat != null ? 'latest submission' : who + "'s " + (sub === st.won ? 'winning' : 'latest') + ' submission'} (#${sub.n}, ${secs(sub.at)})`;
      chip = h('span', { class: cls('chip', { ok: 'ok', bad: 'bad', pending: null }[kind(sub.verdict)]) }, sub.verdict == null ? 'awaiting verdict' : sub.verdict === 'accepted' ? 'accepted' : 'refused');
    }
    card.append(h('div', { class: cls('title') }, head, ' ', chip));
    if (sub && sub.verdict && sub.verdict !== 'accepted') card.append(h('div', { class: cls('muted') }, sub.verdict));
    if (sub && sub.sol == null) card.append(h('div', { class: cls('muted') }, 'the submission is hidden until the match ends'));
    if (dec) {
      const dups = dec.doms.filter((d) => d.dup).length;
      card.append(h('div', { class: cls('muted') }, `${dec.doms.length} of ${(pz.grid.length * pz.grid[0].length) / 2} dominoes laid` +
        (dups ? ` · ${dups} duplicated (red)` : '') + (dec.unpaired.length ? ` · ${dec.unpaired.length} cells unpaired (dashed)` : '') +
        (dec.short ? ` · ${sub.sol.length} letters for ${pz.grid.length * pz.grid[0].length} cells` : '')));
    }
    card.append(svg);
  } else card.append(h('div', { class: cls('muted') }, 'the puzzle has not been dealt yet'));
  const main = h('div', { class: cls('main') }, card);
  box.append(main);

  const items = [...st.events].reverse().slice(0, 60).map((e) =>
    h('li', null, h('span', { class: cls('chip', { ok: 'ok', bad: 'bad' }[e.kind]) }, `t=${secs(e.t)}`), ' ', e.text));
  main.append(h('div', { class: cls('card') }, h('div', { class: cls('title') }, 'the race'),
    h('ul', { class: cls('list') }, items.length ? items : h('li', { class: cls('muted') }, 'nothing yet'))));
}
