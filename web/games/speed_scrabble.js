// Speed Scrabble renderer (contract: web/games/README.md; rules: docs/games/speed_scrabble.md).
//   replay(lines) -> {steps, seats, draw(root, k, seat), summary(k)}
// Real-time log: "setup" (config + first tiles, per seat), "message" (what a seat sent, at_us),
// "notice" (verdicts, "new-tiles"), "fault", "ejection", "end", "result". Notices carry no time:
// they are stamped with the arrival that caused them (the last message or fault before them).
// Steps: 0 = the start (the deal), then one per message, notice and fault line, and one for
// "end"; ejection, result and unknown lines join the step before them. Drawn: every seat's
// latest submitted board side by side in one SVG (data-board="speed_scrabble"; each placed
// letter data-letter, each tile of a shown hand data-hand-tile), each seat's hand (setup tiles +
// new tiles; those missing from its board marked), scores (data-score: the largest accepted
// board, then the result's score), tile arrivals with their time, a race timeline, the winner.
// A seat's view holds only the lines of that seat (its setup, its messages, notices to it,
// its faults). Spectator logs (letters replaced by "?") draw "?" tiles.
import { style, svg as s, html as h, prefixed, secs, method, args, SHARED_CSS } from "./draw.js";

const P = 'speed_scrabble';
const COLORS = ['#2b6cb0', '#c05621', '#2f855a', '#6b46c1', '#b83280', '#2c7a7b', '#975a16', '#4a5568'];

const CSS = (SHARED_CSS + `
.P-ok{background:#e3f4e8;color:#276749}.P-bad{background:#fde8e8;color:#c53030}.P-warn{background:#fef3c7;color:#975a16}.P-win{background:#fff4c2;color:#7a5b00}
.P-list{margin:0;padding:0 0 0 2px;list-style:none;font-size:13px;max-height:14em;overflow:auto}
.P-list li{padding:1px 0}.P-list li.P-now{font-weight:650}
.P-dot{display:inline-block;width:10px;height:10px;border-radius:50%;vertical-align:0;margin-right:6px}
`).replace(/P-/g, P + '-');

const cls = prefixed(P);

const isBoard = (b) => Array.isArray(b) && b.length > 0 && b.every((r) => typeof r === 'string');
const lettersOf = (b) => b.join('').replace(/\./g, '').length;
const size = (b) => `${Math.max(...b.map((r) => r.length))}x${b.length}`;
const tileWord = (n) => (n === 1 ? 'a tile' : `${n} tiles`);
const verdictText = (v) => (v === 'accepted' ? 'is accepted' : /^stale/.test(String(v)) ? `is stale (${v})` : `is refused: ${v}`);
const kind = (v) => (v == null ? 'pending' : v === 'accepted' ? 'ok' : /^stale/.test(v) ? 'warn' : 'bad');

export function replay(lines) {
  lines = Array.isArray(lines) ? lines : [];
  const head = lines[0] && lines[0].type === 'match' ? lines[0] : {};
  const seats = Array.isArray(head.seats) ? head.seats.map(String) : [];
  const name = (i) => (seats[i] != null ? seats[i] : `seat ${i}`);
  const steps = [{ line: 0, label: 'start: tiles dealt' }];
  let now = 0;
  for (let i = 1; i < lines.length; i++) {
    const L = lines[i];
    const t = L && typeof L === 'object' ? L.type : null;
    if (Number.isFinite(L && L.at_us)) now = L.at_us;
    let label = null;
    if (t === 'message') {
      const b = args(L)[0];
      label = method(L) === 'submit' && isBoard(b) ? `${name(L.seat)} submits a ${size(b)} board (${lettersOf(b)} letters)`
        : method(L) === 'submit' ? `${name(L.seat)} submits` : `${name(L.seat)} sends ${method(L) || 'a message'}`;
    } else if (t === 'notice') {
      const a = args(L);
      if (method(L) === 'verdict') label = `${name(L.seat)}'s ${a[0]}-letter board ${verdictText(a[1])}`;
      else if (method(L) === 'new-tiles') { const ts = Array.isArray(a[0]) ? a[0] : []; label = `${name(L.seat)} gets ${tileWord(ts.length)}: ${ts.join(' ')}`; }
      else label = `${name(L.seat)} is sent ${method(L) || 'a notice'}`;
    } else if (t === 'fault') label = `${name(L.seat)} faults (${L.why})`;
    else if (t === 'end') label = `the game ends${L.ending ? ' (' + L.ending + ')' : ''}${outcome(lines, name)}`;
    if (label) steps.push({ line: i, label: `${secs(now)}: ${label}` });
    else steps[steps.length - 1].line = i;
  }
  const at = (k) => steps[Math.max(0, Math.min(steps.length - 1, Number.isInteger(k) ? k : steps.length - 1))];
  const draw = (root, k, seat) => drawState(root, fold(lines, seats, at(k).line, seat), seat);
  const summary = (k) => fold(lines, seats, at(k).line, null).players.map((p, i) => ({
    seat: i, text: `${p.hand.length} tiles, best board ${p.best}${p.out ? ', ejected: ' + p.out.why : ''}` }));
  return { steps, seats, draw, summary };
}

// ": a wins" from the result line, when the log has it.
function outcome(lines, name) {
  const r = lines.find((l) => l && l.type === 'result');
  if (!r || !Array.isArray(r.winners)) return '';
  return r.winners.length ? `: ${r.winners.map(name).join(', ')} ${r.winners.length > 1 ? 'win' : 'wins'}` : ': nobody wins';
}

// The state after line `upto`, from everything (seat null) or from one seat's lines.
function fold(lines, seats, upto, seat) {
  const head = lines[0] && lines[0].type === 'match' ? lines[0] : {};
  const st = { cfg: { ...(head.config || {}) }, now: 0, events: [], end: null, result: null,
               players: seats.map((n) => ({ name: n, hand: [], dealt: false, board: null, boardAt: 0, verdict: null,
                                             best: 0, score: 0, subs: 0, refused: 0, stale: 0, pending: [], out: null })) };
  const player = (i) => st.players[i] || (st.players[i] = { name: `seat ${i}`, hand: [], board: null, verdict: null, best: 0, score: 0, subs: 0, refused: 0, stale: 0, pending: [], out: null });
  let trigger = -1, lastArrival = null;
  for (let i = 1; i <= upto && i < lines.length; i++) {
    const L = lines[i];
    if (!L || typeof L !== 'object') continue;
    if (Number.isFinite(L.at_us)) st.now = L.at_us;
    if (L.type === 'message' || L.type === 'fault') trigger = i;
    if (seat != null && Number.isInteger(L.seat) && L.seat !== seat) continue;
    const p = Number.isInteger(L.seat) && L.seat >= 0 && L.seat < 64 ? player(L.seat) : null;
    const ev = (text, k) => st.events.push({ t: st.now, text, kind: k, line: i, seat: L.seat });
    if (L.type === 'setup' && p && method(L) === 'setup') {
      const [cfg, tiles] = args(L);
      if (cfg && typeof cfg === 'object') Object.assign(st.cfg, cfg);
      p.hand = Array.isArray(tiles) ? tiles.map(String) : [];
      p.dealt = true;
    } else if (L.type === 'message' && p) {
      const b = args(L)[0];
      if (method(L) === 'submit') {
        p.subs++;
        const e = { board: isBoard(b) ? b : null, at: st.now, verdict: null };
        p.pending.push(e);
        if (e.board) { p.board = e.board; p.boardAt = st.now; p.verdict = null; p.shown = e; }
        ev(`${p.name} submits ${e.board ? `a ${size(b)} board (${lettersOf(b)} letters)` : 'a board (hidden)'}`, 'submit');
      } else ev(`${p.name} sends ${method(L) || 'something'}`, 'muted');
    } else if (L.type === 'notice' && p) {
      const a = args(L);
      if (method(L) === 'verdict') {
        const e = p.pending.shift(), v = String(a[1]), k = Number(a[0]) || 0;
        if (e) e.verdict = v;
        if (e && e === p.shown) p.verdict = v;
        if (v === 'accepted' && k > p.best) { p.best = k; p.bestAt = e ? e.at : st.now; }
        if (kind(v) === 'bad') p.refused++;
        if (kind(v) === 'warn') p.stale++;
        ev(`${p.name}'s ${k}-letter board ${verdictText(v)}`, kind(v));
      } else if (method(L) === 'new-tiles') {
        const ts = (Array.isArray(a[0]) ? a[0] : []).map(String);
        p.hand.push(...ts);
        if (!lastArrival || lastArrival.trigger !== trigger) {
          const inGame = st.players.filter((q) => !q.out).length;
          lastArrival = { t: st.now, trigger, per: [], inGame };
          st.events.push({ t: st.now, arrival: lastArrival, kind: 'tile', line: i });
        }
        lastArrival.per.push({ name: p.name, tiles: ts });
        lastArrival.line = i;
      } else ev(`${p.name} is sent ${method(L) || 'a notice'}`, 'muted');
    } else if ((L.type === 'fault' || L.type === 'ejection') && p) {
      if (!p.out) { p.out = { why: String(L.why || 'out'), detail: String(L.detail || '') }; ev(`${p.name} is ejected (${p.out.why}): ${p.out.detail}`, 'bad'); }
    } else if (L.type === 'end') {
      st.end = L;
      ev(`the game ends${L.ending ? ' (' + L.ending + ')' : ''}`, 'muted');
    } else if (L.type === 'result') st.result = L;
  }
  st.players.forEach((p, i) => {
    p.score = st.result && Array.isArray(st.result.scores) && Number.isFinite(st.result.scores[i]) ? st.result.scores[i] : p.best;
    p.won = !!(st.result && Array.isArray(st.result.winners) && st.result.winners.includes(i));
  });
  return st;
}

// Which tiles of the hand the board does not use (a multiset match, "?" matching "?").
function unplaced(hand, board) {
  const left = new Map();
  for (const c of (board || []).join('')) if (c !== '.') left.set(c, (left.get(c) || 0) + 1);
  return hand.map((c) => { const n = left.get(c) || 0; if (n) left.set(c, n - 1); return !n; });
}

function tile(x, y, z, letter, attrs, tone) {
  const [fill, stroke, ink] = tone === 'free' ? ['#fff7df', '#d69e2e', '#744210'] : tone === 'bad' ? ['#fbe3e1', '#e08a80', '#9b2c2c'] : tone === 'dim' ? ['#f1ece1', '#d6cbb6', '#a0937c'] : ['#f7e3b5', '#c79a4b', '#3d2c11'];
  return s('g', attrs,
    s('rect', { x: x + 1, y: y + 1.6, width: z - 2, height: z - 2, rx: z * 0.16, fill: 'rgba(0,0,0,.18)' }),
    s('rect', { x: x + 0.5, y: y + 0.5, width: z - 2, height: z - 2, rx: z * 0.16, fill, stroke, 'stroke-width': 1 }),
    s('text', { x: x + z / 2 - 0.5, y: y + z * 0.69, 'text-anchor': 'middle', 'font-size': z * 0.58, 'font-weight': 700, fill: ink, 'font-family': 'Georgia,serif' }, letter));
}

function panel(p, i, area) {
  const g = s('g');
  const W = area + 20, color = COLORS[i % COLORS.length];
  g.append(s('rect', { x: 0, y: 0, width: 6, height: 22, rx: 3, fill: color }),
    s('text', { x: 12, y: 16, 'font-size': 15, 'font-weight': 700, fill: '#1f2933' }, p.name),
    s('text', { x: W, y: 16, 'font-size': 12, 'text-anchor': 'end', fill: p.won ? '#7a5b00' : '#718096', 'font-weight': p.won ? 700 : 400 },
      p.won ? '★ winner' : p.out ? `out: ${p.out.why}` : `best ${p.best}`));
  let y = 30;
  const b = p.board;
  if (b) {
    const cols = Math.max(...b.map((r) => r.length)), rows = b.length;
    const z = Math.max(10, Math.min(area >= 300 ? 40 : 30, Math.floor(area / Math.max(cols, rows, 1))));
    const bx = 10 + (area - cols * z) / 2;
    const tone = kind(p.verdict);
    g.append(s('rect', { x: bx - 4, y: y - 4, width: cols * z + 8, height: rows * z + 8, rx: 6, fill: '#eef2f6', stroke: '#d8dee6' }));
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
      const ch = b[r][c];
      if (ch && ch !== '.') g.append(tile(bx + c * z, y + r * z, z, ch, { 'data-letter': ch }, tone === 'bad' ? 'bad' : null));
      else g.append(s('circle', { cx: bx + c * z + z / 2 - 0.5, cy: y + r * z + z / 2 - 0.5, r: 1.2, fill: '#c3ccd6' }));
    }
    y += rows * z + 10;
    const txt = { ok: 'accepted', bad: String(p.verdict), warn: String(p.verdict), pending: 'waiting for the verdict' }[tone];
    g.append(s('text', { x: 10, y: y + 12, 'font-size': 12, fill: { ok: '#276749', bad: '#c53030', warn: '#975a16', pending: '#718096' }[tone] },
      `${size(b)}, ${lettersOf(b)} letters at ${secs(p.boardAt)}: ${txt.length > 44 ? txt.slice(0, 43) + '…' : txt}`));
    y += 22;
  } else {
    g.append(s('rect', { x: 10, y, width: area, height: 70, rx: 6, fill: 'none', stroke: '#cbd5e0', 'stroke-dasharray': '5 4' }),
      s('text', { x: 10 + area / 2, y: y + 40, 'text-anchor': 'middle', 'font-size': 13, fill: '#a0aec0' }, p.subs ? 'board not shown' : 'no board yet'));
    y += 80;
  }
  if (p.dealt || p.hand.length) {
    const free = unplaced(p.hand, b), z = 22, per = Math.max(1, Math.floor(area / z));
    const nFree = free.filter(Boolean).length;
    g.append(s('text', { x: 10, y: y + 11, 'font-size': 12, fill: '#4a5568' }, `hand: ${p.hand.length} tiles${nFree ? `, ${nFree} not on the board` : ''}`));
    y += 16;
    p.hand.forEach((c, j) => g.append(tile(10 + (j % per) * z, y + Math.floor(j / per) * z, z, c, { 'data-hand-tile': c }, free[j] ? 'free' : 'dim')));
    y += Math.ceil(p.hand.length / per) * z + 4;
  }
  return { g, w: W + 10, h: y };
}

function timeline(st, seat, width) {
  const ps = st.players.map((p, i) => [p, i]).filter(([, i]) => seat == null || i === seat);
  const T = Math.max(1, st.now, st.end ? Number(st.end.at_us) || 0 : 0);
  const left = 70, lane = 20, H = ps.length * lane + 24, X = (t) => left + (width - left - 14) * (t / T);
  const svg = s('svg', { class: cls('svg'), width, viewBox: `0 0 ${width} ${H}`, role: 'img', 'aria-label': 'race timeline' });
  ps.forEach(([p, i], n) => {
    const y = 10 + n * lane;
    svg.append(s('text', { x: left - 8, y: y + 4, 'text-anchor': 'end', 'font-size': 12, fill: COLORS[i % COLORS.length], 'font-weight': 600 }, p.name),
      s('line', { x1: left, x2: width - 14, y1: y, y2: y, stroke: '#e2e8f0', 'stroke-width': 2 }));
  });
  const laneOf = (name) => ps.findIndex(([p]) => p.name === name);
  for (const e of st.events) {
    if (e.arrival) {
      for (const a of e.arrival.per) { const n = laneOf(a.name); if (n >= 0) svg.append(s('path', { d: `M${X(e.t) - 4},${10 + n * lane - 10}h8l-4,6z`, fill: '#d69e2e' })); }
    } else if (Number.isInteger(e.seat) && laneOf(st.players[e.seat] && st.players[e.seat].name) >= 0) {
      const y = 10 + laneOf(st.players[e.seat].name) * lane, x = X(e.t);
      if (e.kind === 'submit') svg.append(s('circle', { cx: x, cy: y, r: 4, fill: '#fff', stroke: '#4a5568', 'stroke-width': 1.5 }));
      else if (e.kind === 'ok' || e.kind === 'warn') svg.append(s('circle', { cx: x, cy: y, r: 4, fill: e.kind === 'ok' ? '#38a169' : '#d69e2e' }));
      else if (e.kind === 'bad') svg.append(s('path', { d: `M${x - 4},${y - 4}l8,8m0,-8l-8,8`, stroke: '#e53e3e', 'stroke-width': 2 }));
    }
  }
  const yb = H - 6;
  svg.append(s('text', { x: left, y: yb, 'font-size': 11, fill: '#718096' }, '0 s'), s('text', { x: width - 14, y: yb, 'font-size': 11, fill: '#718096', 'text-anchor': 'end' }, secs(T)));
  return svg;
}

function drawState(root, st, seat) {
  style(P + '-style', CSS);
  root.replaceChildren();
  const box = h('div', { class: cls('root') });
  root.append(box);
  const shown = st.players.map((p, i) => [p, i]).filter(([, i]) => seat == null || i === seat);
  const res = st.result;
  const bar = h('div', { class: cls('bar') });
  for (const [p, i] of shown)
    bar.append(h('div', { class: cls('card', seat === i && 'me') },
      h('div', { class: cls('title') }, h('span', { class: cls('dot'), style: `background:${COLORS[i % COLORS.length]}` }), p.name, ' ',
        p.won ? h('span', { class: cls('chip', 'win') }, 'winner') : null, p.out ? h('span', { class: cls('chip', 'bad') }, `ejected: ${p.out.why}`) : null),
      h('div', null, 'score', h('span', { class: cls('score'), 'data-score': String(i) }, String(p.score)),
        h('span', { class: cls('muted') }, `· ${p.subs} boards, ${p.refused} refused${p.stale ? `, ${p.stale} stale` : ''}`))));
  const hand = Number(st.cfg.hand) || 0;
  let status = `${secs(st.now)} · hand ${hand || '?'}, start ${st.cfg.start || '?'}, ${st.cfg.bag || 'bag ?'}, ${st.cfg.dictionary || ''}`;
  let outcome = null;
  if (res && Array.isArray(res.winners)) {
    const names = res.winners.map((w) => (st.players[w] ? st.players[w].name : `seat ${w}`));
    outcome = seat != null ? (res.winners.includes(seat) ? 'you won' : 'you did not win')
      : names.length ? `${names.join(', ')} won` : 'nobody won';
  } else if (st.end) outcome = 'the game is over';
  bar.append(h('div', { class: cls('card') }, h('div', { class: cls('title') }, outcome || 'racing…'), h('div', { class: cls('muted') }, status)));
  box.append(bar);

  // One SVG for every board, laid out in rows.
  const area = seat != null ? 340 : shown.length <= 2 ? 300 : 220, maxW = 800;
  const panels = shown.map(([p, i]) => panel(p, i, area));
  const svg = s('svg', { 'data-board': P, class: cls('svg'), role: 'img', 'aria-label': 'Speed Scrabble boards' });
  let x = 0, y = 0, rowH = 0, W = 0;
  for (const pn of panels) {
    if (x > 0 && x + pn.w > maxW) { x = 0; y += rowH + 14; rowH = 0; }
    pn.g.setAttribute('transform', `translate(${x + 4},${y + 4})`);
    svg.append(pn.g);
    x += pn.w + 12; rowH = Math.max(rowH, pn.h); W = Math.max(W, x);
  }
  const H = y + rowH + 8;
  svg.setAttribute('viewBox', `0 0 ${Math.max(W, 200)} ${H}`);
  svg.setAttribute('width', Math.max(W, 200));
  box.append(h('div', { class: cls('card') }, svg));

  const tl = timeline(st, seat, 780);
  const items = [...st.events].reverse().slice(0, 60).map((e) => {
    let text = e.text;
    if (e.arrival) {
      const a = e.arrival, all = seat == null && a.per.length >= a.inGame && a.per.length > 1;
      const n = a.per.reduce((m, q) => Math.max(m, q.tiles.length), 0);
      const who = seat != null ? 'you get' : all ? 'everyone gets' : a.per.map((q) => q.name).join(', ') + (a.per.length > 1 ? ' get' : ' gets');
      text = `${who} ${tileWord(n)}: ${a.per.map((q) => (seat != null || a.per.length === 1 ? '' : q.name + ' ') + q.tiles.join(' ')).join(' · ')}`;
    }
    const chip = { ok: 'ok', bad: 'bad', warn: 'warn', tile: 'win' }[e.kind];
    return h('li', null, h('span', { class: cls('chip', chip) }, `t=${secs(e.t)}`), ' ', text);
  });
  box.append(h('div', { class: cls('card') }, h('div', { class: cls('title') }, 'the race'), tl,
    h('div', { class: cls('muted') }, '○ board sent · ● accepted (amber: stale) · ✕ refused · ▼ tile arrival'),
    h('ul', { class: cls('list') }, items.length ? items : h('li', { class: cls('muted') }, 'nothing yet'))));
}
