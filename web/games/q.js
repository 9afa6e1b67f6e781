// Q renderer (web/games/README.md). export replay(lines) -> {steps, seats, draw, summary}.
// lines: a Q game log (docs/protocol.md, "Q"), header first; may be a prefix or the spectator
// projection. Unknown or malformed lines are skipped, never thrown on.
// Steps: 0 = start, then one per take_turn call; a step runs up to the line before the next
// take_turn (so it includes that turn's new_tiles, and the last step the win calls and result).
// Full view (seat null): the map computed from the first map seen plus every ok placement (each
// take_turn's args.map re-synchronises it), the tiles placed in the step highlighted, a refused
// placement drawn as dashed ghosts, every seat's score and its hand as rebuilt from its own
// views (args.players[0]["tile*"]) and new_tiles. Per-seat view (seat i): the map, scores and
// pile count of the latest view i was sent (setup/take_turn args), i's hand, i's ejection.
// Attributes: svg[data-board="q"]; [data-tile] per map tile (data-new="1" if highlighted);
// [data-hand-tile] per hand tile; [data-score="<seat>"] holds a seat's score.

import { style, svg, html, obj } from "./draw.js";

const COLORS = { red: '#e5484d', green: '#30a46c', blue: '#3e8ef7', yellow: '#f5d90a',
  orange: '#ff8b3e', purple: '#a46bf5' };
const TILE_BG = '#1f2630', ACCENT = '#f59e0b', DANGER = '#dc2626';

function poly(k, ro, ri, rot) {  // a k-pointed star
  const pts = [];
  for (let i = 0; i < 2 * k; i++) {
    const a = rot + Math.PI * i / k, r = i % 2 ? ri : ro;
    pts.push(`${(r * Math.cos(a)).toFixed(3)},${(r * Math.sin(a)).toFixed(3)}`);
  }
  return 'M' + pts.join('L') + 'Z';
}
const disc = (x, y, r) => `M${x - r},${y}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0Z`;
const SHAPES = {
  star: poly(5, 0.37, 0.15, -Math.PI / 2),
  '8star': poly(8, 0.37, 0.2, -Math.PI / 2),
  square: 'M-0.26,-0.26H0.26V0.26H-0.26Z',
  circle: disc(0, 0, 0.28),
  clover: disc(-0.14, 0, 0.14) + disc(0.14, 0, 0.14) + disc(0, -0.14, 0.14) + disc(0, 0.14, 0.14) +
    disc(0, 0, 0.1),
  diamond: 'M0,-0.37L0.25,0L0,0.37L-0.25,0Z',
};

const CSS = `
.q-root{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink,#1d2330)}
.q-board{flex:1 1 420px;min-width:260px;background:var(--card,#fff);border:1px solid var(--line,#e3e6ea);border-radius:10px;padding:8px;box-sizing:border-box}
.q-board svg{display:block;width:100%;height:auto;max-height:72vh;margin:0 auto}
.q-side{flex:0 1 290px;min-width:220px;display:flex;flex-direction:column;gap:8px}
.q-caption{font-weight:600}
.q-note,.q-muted{color:var(--muted,#6b7280);font-size:12px}
.q-seat{background:var(--card,#fff);border:1px solid var(--line,#e3e6ea);border-radius:10px;padding:8px 10px}
.q-seat.q-mover{border-color:${ACCENT};box-shadow:0 0 0 2px #fde68a}
.q-seat.q-out{background:#fafafa}
.q-seat.q-out .q-name{color:var(--muted,#6b7280)}
.q-head{display:flex;justify-content:space-between;align-items:baseline;gap:8px}
.q-name{font-weight:600}
.q-score{font-variant-numeric:tabular-nums;font-weight:700;font-size:18px}
.q-tag{font-size:12px;color:var(--bad,${DANGER})}
.q-win{font-size:12px;color:var(--ok,#15803d);font-weight:600}
.q-hand{display:block;height:30px;max-width:100%;margin-top:6px}
.q-result{background:var(--card,#fff);border:1px solid var(--line,#e3e6ea);border-radius:10px;padding:8px 10px}
`;

const nat = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isTile = (t) => t && typeof t === 'object' && COLORS[t.color] !== undefined &&
  SHAPES[t.shape] !== undefined;
const tiles = (a) => (Array.isArray(a) ? a.filter(isTile).map((t) => ({ color: t.color, shape: t.shape })) : null);
const key = (r, c) => r + ',' + c;

function decodeMap(m) {  // JMap -> [{r, c, color, shape}] or null
  if (!Array.isArray(m)) return null;
  const out = [];
  for (const row of m) {
    if (!Array.isArray(row) || !Number.isInteger(row[0])) continue;
    for (const cell of row.slice(1))
      if (Array.isArray(cell) && Number.isInteger(cell[0]) && isTile(cell[1]))
        out.push({ r: row[0], c: cell[0], color: cell[1].color, shape: cell[1].shape });
  }
  return out;
}
function decodePlacements(a) {
  if (!Array.isArray(a)) return [];
  const out = [];
  for (const p of a) {
    const c = obj(obj(p).coordinate), t = obj(p)['1tile'];
    if (Number.isInteger(c.row) && Number.isInteger(c.column) && isTile(t))
      out.push({ r: c.row, c: c.column, color: t.color, shape: t.shape });
  }
  return out;
}

// §1.6: score a legal placement on the map after it.
function scorePlacement(map, ps, qBonus, finishBonus, finished) {
  const at = (r, c) => map.get(key(r, c));
  const run = (r, c, dr, dc) => {
    while (at(r - dr, c - dc)) { r -= dr; c -= dc; }
    const cells = [], start = key(r, c);
    while (at(r, c)) { cells.push(at(r, c)); r += dr; c += dc; }
    return { start, cells };
  };
  const points = (x) => {
    if (x.cells.length < 2) return 0;
    const isQ = x.cells.length === 6 && (new Set(x.cells.map((t) => t.color)).size === 6 ||
      new Set(x.cells.map((t) => t.shape)).size === 6);
    return x.cells.length + (isQ ? qBonus : 0);
  };
  const alongRow = ps.every((p) => p.r === ps[0].r);
  const [dr, dc] = alongRow ? [0, 1] : [1, 0];
  let pts = ps.length;
  const seen = new Set();
  for (const p of ps) {
    const x = run(p.r, p.c, dr, dc);
    if (!seen.has(x.start)) { seen.add(x.start); pts += points(x); }
  }
  for (const p of ps) pts += points(run(p.r, p.c, dc, dr));
  return pts + (finished ? finishBonus : 0);
}

export function replay(lines) {
  lines = Array.isArray(lines) ? lines : [];
  const head = obj(lines[0]).type === 'match' ? lines[0] : {};
  const cfg = obj(head.config);
  const seats = Array.isArray(head.seats) ? head.seats.map(String) : [];
  if (!seats.length) for (const l of lines) {
    const s = obj(l).seat;
    if (obj(l).type === 'call' && Number.isInteger(s) && s >= 0 && s < 64)
      while (seats.length <= s) seats.push('seat ' + seats.length);
  }
  const n = seats.length;
  const bon = obj(cfg.bonuses);
  const qBonus = nat(bon.q) ? bon.q : 8, finishBonus = nat(bon.finish) ? bon.finish : 4;

  const S = { map: new Map(), score: Array(n).fill(0), hand: Array(n).fill(null),
    out: Array(n).fill(null), pile: null, placed: [], ghost: [], mover: null, result: null,
    view: Array(n).fill(-1) };
  const table = obj(cfg.table);
  for (const t of decodeMap(table.map) || []) S.map.set(key(t.r, t.c), t);
  (Array.isArray(table.players) ? table.players : []).forEach((p, j) => {
    if (j < n && nat(obj(p).score)) S.score[j] = p.score;
  });
  if (Array.isArray(table['tile*'])) S.pile = table['tile*'].length;
  if (!S.map.size) {  // the start map: the first view's (setups and turns do not change it before)
    const first = lines.find((l) => obj(l).type === 'call' && decodeMap(obj(obj(l).args).map));
    for (const t of first ? decodeMap(first.args.map) : []) S.map.set(key(t.r, t.c), t);
  }

  const views = [], steps = [], snaps = [];
  const replacing = Array(n).fill(false);
  let label = 'start';
  const close = (line) => {
    steps.push({ line: Math.max(0, line), label });
    snaps.push({ tiles: [...S.map.values()], placed: new Set(S.placed), ghost: S.ghost.slice(),
      score: S.score.slice(), hand: S.hand.map((h) => h && h.slice()), out: S.out.slice(),
      pile: S.pile, view: S.view.slice(), mover: S.mover, result: S.result });
  };
  const eject = (s, why, call, detail) => {
    if (S.out[s]) return;
    S.out[s] = { why: String(why), call: String(call || ''), detail: detail == null ? '' : String(detail) };
    if (S.hand[s] && S.pile != null) S.pile += S.hand[s].length;
    S.hand[s] = null;
  };
  const code = (l) => (l.verdict === 'foul' && typeof l.detail === 'string' ? ' ' + l.detail.split(':')[0] : '');

  function takeView(s, a, i, call) {
    const m = decodeMap(a.map);
    if (m) S.map = new Map(m.map((t) => [key(t.r, t.c), t]));
    const ps = Array.isArray(a.players) ? a.players : [];
    const me = obj(ps[0]);
    const scores = Array(n).fill(null);
    if (nat(me.score)) scores[s] = me.score;
    // the others still in the game, in turn order after s (a rotation of the seat order)
    const others = [];
    for (let d = 1; d < n; d++) if (!S.out[(s + d) % n]) others.push((s + d) % n);
    others.forEach((o, j) => { if (nat(ps[j + 1])) scores[o] = ps[j + 1]; });
    scores.forEach((v, j) => { if (v != null) S.score[j] = v; });
    const h = tiles(me['tile*']);
    if (h) S.hand[s] = h;
    if (nat(a['tile*'])) S.pile = a['tile*'];
    views.push({ line: i, call, tiles: m || [...S.map.values()], scores, pile: nat(a['tile*']) ? a['tile*'] : null,
      prev: S.view[s] });
    S.view[s] = views.length - 1;
  }

  function call(l, i) {
    const s = l.seat;
    if (!Number.isInteger(s) || s < 0 || s >= n) return;
    const name = seats[s], ok = l.verdict === 'ok', a = l.args;
    if (l.call === 'setup' || l.call === 'take_turn') {
      if (a && typeof a === 'object' && !Array.isArray(a)) takeView(s, a, i, l.call);
      if (l.call === 'setup') { if (!ok) eject(s, l.verdict, l.call, l.detail); return; }
      S.mover = s;
      const r = l.reply;
      if (!ok) {
        label = `${name}: ${l.verdict}${code(l)} (ejected)`;
        S.ghost = decodePlacements(r);
        eject(s, l.verdict, l.call, l.detail);
      } else if (r === 'pass') label = `${name} passes`;
      else if (r === 'replace') { label = `${name} replaces`; replacing[s] = true; }
      else if (Array.isArray(r)) {
        const ps = decodePlacements(r);
        for (const p of ps) { S.map.set(key(p.r, p.c), p); S.placed.push(key(p.r, p.c)); }
        const h = S.hand[s];
        if (h) for (const p of ps) {
          const j = h.findIndex((t) => t.color === p.color && t.shape === p.shape);
          if (j >= 0) h.splice(j, 1);
        }
        const next = obj(lines[i + 1]);
        const finished = h ? h.length === 0 : i + 1 < lines.length &&
          !(next.type === 'call' && next.call === 'new_tiles' && next.seat === s);
        const pts = ps.length ? scorePlacement(S.map, ps, qBonus, finishBonus, finished) : 0;
        S.score[s] += pts;
        label = `${name} places ${ps.length} tile${ps.length === 1 ? '' : 's'} (+${pts})`;
      } else label = `${name} moves`;
    } else if (l.call === 'new_tiles') {
      const t = tiles(a);
      if (t && replacing[s]) S.hand[s] = t;
      else if (t && S.hand[s]) S.hand[s] = t.concat(S.hand[s]);
      else if (replacing[s]) S.hand[s] = null;
      if (t && S.pile != null && !replacing[s]) S.pile = Math.max(0, S.pile - t.length);
      replacing[s] = false;
      if (!ok) { label += `; new_tiles ${l.verdict} (ejected)`; eject(s, l.verdict, l.call, l.detail); }
    } else if (l.call === 'win' && !ok) {
      label += `; ${name}: win ${l.verdict} (ejected)`;
      eject(s, l.verdict, l.call, l.detail);
    }
  }

  for (let i = 1; i < lines.length; i++) {
    const l = lines[i];
    try {
      if (!l || typeof l !== 'object') continue;
      if (l.type === 'call' && l.call === 'take_turn' && Number.isInteger(l.seat) && l.seat >= 0 && l.seat < n) {
        close(i - 1);
        S.placed = []; S.ghost = []; S.mover = null; label = '';
      }
      if (l.type === 'call') call(l, i);
      else if (l.type === 'result') {
        if (Array.isArray(l.scores)) l.scores.forEach((v, j) => { if (j < n && nat(v)) S.score[j] = v; });
        for (const e of Array.isArray(l.ejections) ? l.ejections : []) {
          const x = obj(e);
          if (Number.isInteger(x.seat) && x.seat >= 0 && x.seat < n) eject(x.seat, x.why, x.call, x.detail);
        }
        S.result = { winners: (Array.isArray(l.winners) ? l.winners : []).filter((w) => Number.isInteger(w) && w >= 0 && w < n),
          aborted: !!l.aborted };
      }
    } catch (e) { /* a line this renderer does not understand: skipped */ }
  }
  close(lines.length - 1);

  function drawBoard(parent, list, hl, ghosts, caption) {
    const all = list.concat(ghosts);
    let r0 = 0, r1 = 0, c0 = 0, c1 = 0;
    if (all.length) {
      r0 = Math.min(...all.map((t) => t.r)); r1 = Math.max(...all.map((t) => t.r));
      c0 = Math.min(...all.map((t) => t.c)); c1 = Math.max(...all.map((t) => t.c));
    }
    for (let k = 0; c1 - c0 < 6; k++) k % 2 ? c0-- : c1++;
    for (let k = 0; r1 - r0 < 4; k++) k % 2 ? r0-- : r1++;
    const m = 0.75, x0 = c0 - 0.5 - m, y0 = r0 - 0.5 - m;
    const w = c1 - c0 + 1 + m + 0.3, h = r1 - r0 + 1 + m + 0.3;
    const big = r1 - r0 > 300 || c1 - c0 > 300;  // absurdly spread out: tiles only, no grid
    const rules = [], labels = [];
    if (!big) for (let c = c0; c <= c1 + 1; c++) rules.push(svg('line', { x1: c - 0.5, x2: c - 0.5, y1: r0 - 0.5, y2: r1 + 0.5 }));
    if (!big) for (let r = r0; r <= r1 + 1; r++) rules.push(svg('line', { y1: r - 0.5, y2: r - 0.5, x1: c0 - 0.5, x2: c1 + 0.5 }));
    if (!big) for (let c = c0; c <= c1; c++) labels.push(svg('text', { x: c, y: r0 - 0.62 }, c));
    if (!big) for (let r = r0; r <= r1; r++) labels.push(svg('text', { x: c0 - 0.78, y: r + 0.09 }, r));
    parent.append(svg('svg', { 'data-board': 'q', viewBox: `${x0} ${y0} ${w} ${h}`, role: 'img',
      'aria-label': caption, preserveAspectRatio: 'xMidYMid meet', style: `max-width:${Math.round(w * 52)}px` },
      svg('rect', { x: c0 - 0.5, y: r0 - 0.5, width: c1 - c0 + 1, height: r1 - r0 + 1, fill: '#f1f3f6', rx: 0.15 }),
      svg('g', { stroke: '#dfe3e8', 'stroke-width': 0.02 }, rules),
      svg('g', { fill: '#9aa3ae', 'font-size': 0.26, 'text-anchor': 'middle', 'font-family': 'system-ui,sans-serif' }, labels),
      list.map((t) => {
        const isNew = hl.has(key(t.r, t.c));
        return svg('g', { 'data-tile': '', 'data-row': t.r, 'data-col': t.c, 'data-color': t.color,
          'data-shape': t.shape, 'data-new': isNew ? '1' : null, transform: `translate(${t.c},${t.r})` },
          svg('title', {}, `${t.color} ${t.shape} at (${t.r}, ${t.c})`),
          svg('rect', { x: -0.45, y: -0.45, width: 0.9, height: 0.9, rx: 0.13, fill: TILE_BG,
            stroke: isNew ? ACCENT : null, 'stroke-width': isNew ? 0.08 : null }),
          svg('path', { d: SHAPES[t.shape], fill: COLORS[t.color] }));
      }),
      ghosts.map((t) => svg('g', { class: 'q-ghost', transform: `translate(${t.c},${t.r})` },
        svg('title', {}, `refused: ${t.color} ${t.shape} at (${t.r}, ${t.c})`),
        svg('rect', { x: -0.45, y: -0.45, width: 0.9, height: 0.9, rx: 0.13, fill: 'rgba(220,38,38,0.08)',
          stroke: DANGER, 'stroke-width': 0.05, 'stroke-dasharray': '0.12 0.08' }),
        svg('path', { d: SHAPES[t.shape], fill: COLORS[t.color], opacity: 0.45 })))));
  }

  function drawHand(hand, s) {
    const gap = 0.12, w = Math.max(1, hand.length * (1 + gap) - gap);
    return svg('svg', { class: 'q-hand', viewBox: `0 0 ${w} 1`, width: w * 30, height: 30 },
      hand.map((t, j) => svg('g', { 'data-hand-tile': '', 'data-seat': s, 'data-color': t.color, 'data-shape': t.shape,
        transform: `translate(${j * (1 + gap) + 0.5},0.5)` },
        svg('title', {}, `${t.color} ${t.shape}`),
        svg('rect', { x: -0.5, y: -0.5, width: 1, height: 1, rx: 0.14, fill: TILE_BG }),
        svg('path', { d: SHAPES[t.shape], fill: COLORS[t.color] }))));
  }

  function draw(root, k, seat) {
    style('q-style', CSS);
    root.replaceChildren();
    k = Math.max(0, Math.min(steps.length - 1, Number.isInteger(k) ? k : 0));
    const st = snaps[k];
    const mine = seat == null || seat === '' ? null : Number(seat);
    if (mine != null && !(Number.isInteger(mine) && mine >= 0 && mine < n)) { root.append(html('div', { class: 'q-note' }, `No seat ${seat} in this match.`)); return; }
    const board = html('div', { class: 'q-board' });
    const side = html('div', { class: 'q-side' },
      html('div', { class: 'q-caption' }, mine == null ? steps[k].label : `${seats[mine]}'s view · ${steps[k].label}`));
    root.append(html('div', { class: 'q-root' }, board, side));
    let list = st.tiles, hl = st.placed, ghosts = st.ghost, scores = st.score, pile = st.pile;
    if (mine != null) {
      const v = views[st.view[mine]];
      list = v ? v.tiles : []; ghosts = []; scores = v ? v.scores : Array(n).fill(null);
      pile = v ? v.pile : null;
      const before = v && v.prev >= 0 ? new Set(views[v.prev].tiles.map((t) => key(t.r, t.c))) : null;
      hl = new Set(before ? list.map((t) => key(t.r, t.c)).filter((x) => !before.has(x)) : []);
      side.append(html('div', { class: 'q-note' }, v ? `The map and scores as last sent to ${seats[mine]} (its ${v.call} call, line ${v.line}); highlighted: tiles new since its previous view.`
        : `Nothing has been sent to ${seats[mine]} yet.`));
    }
    if (list.length) {  // a refused placement far off the map is listed, not drawn
      const near = (t) => list.some((u) => Math.abs(u.r - t.r) <= 8 && Math.abs(u.c - t.c) <= 8);
      const far = ghosts.filter((t) => !near(t));
      if (far.length) side.append(html('div', { class: 'q-tag' }, 'refused, far off the map: ' + far.map((t) => `${t.color} ${t.shape} at (${t.r}, ${t.c})`).join(', ')));
      ghosts = ghosts.filter(near);
    } else ghosts = ghosts.slice(0, 6);
    drawBoard(board, list, hl, ghosts, steps[k].label);
    if (pile != null) side.append(html('div', { class: 'q-note' }, `${pile} tile${pile === 1 ? '' : 's'} left in the pile`));
    seats.forEach((name, j) => {
      const out = st.out[j], own = mine == null || mine === j;
      side.append(html('div', { class: 'q-seat' + (st.mover === j ? ' q-mover' : '') + (out && own ? ' q-out' : '') },
        html('div', { class: 'q-head' },
          html('span', { class: 'q-name' }, name),
          scores[j] != null ? html('span', { class: 'q-score', 'data-score': String(j) }, String(scores[j]))
            : html('span', { class: 'q-muted' }, '–')),
        own && st.result && st.result.winners.includes(j) ? html('div', { class: 'q-win' }, 'winner') : null,
        out && own ? html('div', { class: 'q-tag' }, `ejected: ${out.why} in ${out.call}${out.detail ? ' — ' + out.detail : ''}`)
          : own && st.hand[j] ? drawHand(st.hand[j], j)
            : own && !out ? html('div', { class: 'q-muted' }, 'hand not in the log') : null));
    });
    if (mine == null && st.result) {
      const w = st.result.winners.map((j) => seats[j]);
      side.append(html('div', { class: 'q-result' }, (st.result.aborted ? 'Aborted. ' : 'Game over. ') +
        (w.length ? `Winner${w.length > 1 ? 's' : ''}: ${w.join(', ')}` : 'No winner.')));
    }
  }

  function summary(k) {
    k = Math.max(0, Math.min(steps.length - 1, Number.isInteger(k) ? k : 0));
    const st = snaps[k];
    return seats.map((_, j) => ({ seat: j, text: st.out[j] ? `${st.score[j]} pts · ejected (${st.out[j].why})`
      : `${st.score[j]} pts` + (st.hand[j] ? ` · ${st.hand[j].length} tiles` : '') }));
  }

  return { steps, seats, draw, summary };
}
