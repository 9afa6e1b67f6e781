// Battleship renderer (web/games/README.md). export replay(lines) -> {steps, seats, draw, summary}.
// lines: a Battleship game log (docs/protocol.md, "Battleship"), header first; may be a prefix or
// the spectator projection. Unknown or malformed lines are skipped, never thrown on.
// Steps: 0 = start (the fleets), then one per take_turn call; a step runs up to the line before
// the next take_turn (the last one includes the win calls and the result).
// Full view (seat null): both seats' waters side by side, each with its fleet (the setup reply, or
// a later args.fleet) and every accepted shot fired at it; a shot's answer is worked out from the
// fleet when the log holds it, else taken from the shooter's later args.outgoing (unknown: "?").
// Per-seat view (seat i): i's own waters (its fleet, args.incoming) and the enemy waters as i
// knows them (args.outgoing) from the latest view i was sent, plus i's own shots fired since,
// not answered yet. Never the enemy fleet.
// Attributes: svg[data-board="battleship"]; [data-ship] per drawn ship cell, data-sunk="1" when
// its ship is sunk; [data-shot] per shot, data-hit="1" on hits (sinking shots included);
// [data-score="<seat>"] holds the hits that seat has landed (the result's score).

import { style, svg, html, obj } from "./draw.js";

const DEF = { rows: 10, cols: 10, ships: [5, 4, 3, 3, 2], no_touch: false, announce_sunk: true, salvo: false, max_turns: 200 };
const WATER = '#dbe7f3', HULL = '#334155', SUNK = '#8f1d1d', HIT = '#e5484d', MISS = '#5b6b80';
const ACCENT = '#f59e0b', DANGER = '#dc2626';

const CSS = `
.battleship-root{display:flex;flex-direction:column;gap:10px;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink,#1d2330)}
.battleship-caption{font-weight:600}
.battleship-note,.battleship-muted{color:var(--muted,#6b7280);font-size:12px}
.battleship-cards{display:flex;flex-wrap:wrap;gap:10px}
.battleship-card{flex:1 1 200px;background:var(--card,#fff);border:1px solid var(--line,#e3e6ea);border-radius:10px;padding:8px 10px}
.battleship-card.battleship-mover{border-color:${ACCENT};box-shadow:0 0 0 2px #fde68a}
.battleship-head{display:flex;justify-content:space-between;align-items:baseline;gap:8px}
.battleship-name{font-weight:600}
.battleship-score{font-variant-numeric:tabular-nums;font-weight:700;font-size:18px}
.battleship-tag{font-size:12px;color:var(--bad,${DANGER})}
.battleship-win{font-size:12px;color:var(--ok,#15803d);font-weight:600}
.battleship-board{background:var(--card,#fff);border:1px solid var(--line,#e3e6ea);border-radius:10px;padding:8px;box-sizing:border-box}
.battleship-board svg{display:block;width:100%;height:auto;max-height:72vh;margin:0 auto}
.battleship-legend{display:flex;flex-wrap:wrap;gap:14px;align-items:center;color:#4b5563;font-size:12px}
.battleship-legend svg{vertical-align:middle;margin-right:4px}
`;

const int = Number.isInteger;
const isCell = (p) => int(obj(p).row) && int(obj(p).col);
const key = (r, c) => r + ',' + c;
const isHit = (res) => res === 'hit' || res === 'sunk';

function parseConfig(c) {
  const out = { ...DEF };
  for (const k of ['rows', 'cols', 'max_turns']) if (int(obj(c)[k]) && c[k] > 0) out[k] = Math.min(c[k], k === 'max_turns' ? 1e9 : 64);
  for (const k of ['no_touch', 'announce_sunk', 'salvo']) if (typeof obj(c)[k] === 'boolean') out[k] = c[k];
  if (Array.isArray(obj(c).ships)) out.ships = c.ships.filter(int);
  return out;
}
function parseFleet(f) {
  if (!Array.isArray(f)) return null;
  const ships = f.filter((s) => isCell(s) && int(s.length) && s.length > 0 && s.length <= 64 && (s.dir === 'h' || s.dir === 'v'))
    .map((s) => ({ row: s.row, col: s.col, dir: s.dir, length: s.length }));
  return ships.length ? ships : null;
}
const cellsOf = (s) => Array.from({ length: s.length }, (_, j) => s.dir === 'h' ? [s.row, s.col + j] : [s.row + j, s.col]);
const parseShots = (r) => (Array.isArray(r) ? r : [r]).filter(isCell).map((p) => ({ row: p.row, col: p.col }));
const parseResults = (a) => (Array.isArray(a) ? a : []).filter(isCell).map((p) => ({ row: p.row, col: p.col,
  result: ['miss', 'hit', 'sunk'].includes(p.result) ? p.result : null, length: int(p.length) ? p.length : null }));

// The answers to `shots` on a fleet, in order: miss, hit, or sunk with the ship's length.
function answer(fleet, shots) {
  const at = new Map(), left = fleet.map((s) => s.length);
  fleet.forEach((s, j) => cellsOf(s).forEach(([r, c]) => at.set(key(r, c), j)));
  const seen = new Set();
  return shots.map((p) => {
    const k = key(p.row, p.col), j = at.get(k);
    if (j === undefined || seen.has(k)) return { result: j === undefined ? 'miss' : 'hit', length: null };
    seen.add(k);
    return --left[j] === 0 ? { result: 'sunk', length: fleet[j].length } : { result: 'hit', length: null };
  });
}

export function replay(lines) {
  lines = Array.isArray(lines) ? lines : [];
  const head = obj(lines[0]).type === 'match' ? lines[0] : {};
  const seats = Array.isArray(head.seats) && head.seats.length ? head.seats.map(String) : ['seat 0', 'seat 1'];
  const n = seats.length, opp = (s) => (s + 1) % n;
  let cfg = head.config ? parseConfig(head.config) : null;
  const fleet = Array(n).fill(null), shots = seats.map(() => []), told = seats.map(() => []);
  const out = Array(n).fill(null), views = [], viewOf = Array(n).fill(-1);
  const steps = [], snaps = [], moves = [];
  let cur = null, ghost = [], result = null, label = 'start', tail = '';
  const close = (line) => {
    steps.push({ line: Math.max(0, line), label });
    moves.push({ cur, tail });
    snaps.push({ count: shots.map((x) => x.length), cur, ghost, out: out.slice(), view: viewOf.slice(), result });
  };
  const eject = (s, why, call, detail) => {
    if (!out[s]) out[s] = { why: String(why), call: String(call || ''), detail: detail == null ? '' : String(detail) };
  };
  function takeView(s, a, i) {
    if (!cfg && a.config) cfg = parseConfig(a.config);
    const f = parseFleet(a.fleet);
    if (f && !fleet[s]) fleet[s] = f;
    const v = { line: i, fleet: f, incoming: parseResults(a.incoming), outgoing: parseResults(a.outgoing) };
    if (v.outgoing.length >= told[s].length) told[s] = v.outgoing;
    views.push(v);
    viewOf[s] = views.length - 1;
  }

  for (let i = 1; i < lines.length; i++) {
    const l = lines[i];
    try {
      if (!l || typeof l !== 'object') continue;
      if (l.type === 'result') {
        for (const e of Array.isArray(l.ejections) ? l.ejections : [])
          if (int(obj(e).seat) && e.seat >= 0 && e.seat < n) eject(e.seat, e.why, e.call, e.detail);
        result = { winners: (Array.isArray(l.winners) ? l.winners : []).filter((w) => int(w) && w >= 0 && w < n),
          scores: Array.isArray(l.scores) ? l.scores : [], aborted: !!l.aborted };
        continue;
      }
      const s = l.seat;
      if (l.type !== 'call' || !int(s) || s < 0 || s >= n) continue;
      const ok = l.verdict === 'ok', a = l.args;
      if (l.call === 'take_turn') { close(i - 1); cur = null; ghost = []; label = ''; tail = ''; }
      if ((l.call === 'setup' || l.call === 'take_turn') && a && typeof a === 'object' && !Array.isArray(a)) takeView(s, a, i);
      if (l.call === 'setup') {
        if (ok && parseFleet(l.reply)) fleet[s] = parseFleet(l.reply);
        if (!ok) eject(s, l.verdict, l.call, l.detail);
      } else if (l.call === 'take_turn') {
        cur = { seat: s, from: shots[s].length, to: shots[s].length };
        if (ok) {
          shots[s].push(...parseShots(l.reply));
          cur.to = shots[s].length;
        } else {
          label = `${seats[s]}: ${l.verdict}${l.verdict === 'foul' && typeof l.detail === 'string' ? ' ' + l.detail.split(':')[0] : ''} (ejected)`;
          ghost = parseShots(l.reply);
          eject(s, l.verdict, l.call, l.detail);
        }
      } else if (l.call === 'win' && !ok) {
        tail += `; ${seats[s]}: win ${l.verdict} (ejected)`;
        eject(s, l.verdict, l.call, l.detail);
      }
    } catch (e) { /* a line this renderer does not understand: skipped */ }
  }
  close(lines.length - 1);
  cfg = cfg || { ...DEF };

  // Each shot's answer: from the target fleet when known, else as the shooter was told.
  const res = shots.map((list, s) => {
    if (fleet[opp(s)]) return answer(fleet[opp(s)], list);
    return list.map((p, j) => {
      const t = told[s][j];
      return t && t.row === p.row && t.col === p.col && t.result ? { result: t.result, length: t.length } : { result: null, length: null };
    });
  });
  const say = (x) => (x.result === 'sunk' ? `sunk (length ${x.length})` : x.result);
  function moveLabel(m) {
    const name = seats[m.seat], list = shots[m.seat].slice(m.from, m.to), r = res[m.seat].slice(m.from, m.to);
    if (!list.length) return `${name} moves`;
    if (list.length === 1) return `${name} fires at (${list[0].row}, ${list[0].col})` + (r[0].result ? ': ' + say(r[0]) : '');
    const hits = r.filter((x) => isHit(x.result)).length, sunk = r.filter((x) => x.result === 'sunk').map((x) => x.length);
    return `${name} fires ${list.length} shots` + (r.every((x) => x.result) ? `: ${hits} hit${hits === 1 ? '' : 's'}` : '') +
      (sunk.length ? `, sinks length ${sunk.join(', ')}` : '');
  }
  steps.forEach((st, k) => {
    if (moves[k].cur && !st.label) st.label = moveLabel(moves[k].cur);
    st.label += moves[k].tail;
  });

  // One seat's waters: ships (with sunk state from the shots) and the shots fired at them.
  function drawGrid(g, x0, y0, title, sub, ships, list, hl) {
    const { rows, cols } = cfg;
    const labels = [], rules = [];
    for (let c = 0; c < cols; c++) labels.push(svg('text', { x: x0 + c + 0.5, y: y0 - 0.2 }, c));
    for (let r = 0; r < rows; r++) labels.push(svg('text', { x: x0 - 0.4, y: y0 + r + 0.62 }, r));
    for (let c = 1; c < cols; c++) rules.push(svg('line', { x1: x0 + c, x2: x0 + c, y1: y0, y2: y0 + rows }));
    for (let r = 1; r < rows; r++) rules.push(svg('line', { y1: y0 + r, y2: y0 + r, x1: x0, x2: x0 + cols }));
    g.append(svg('text', { x: x0, y: y0 - 1.35, 'font-size': 0.55, 'font-weight': 600, fill: '#1d2330' }, title),
      svg('text', { x: x0, y: y0 - 0.8, 'font-size': 0.36, fill: '#6b7280' }, sub),
      svg('g', { 'font-size': 0.32, fill: '#9aa3ae', 'text-anchor': 'middle' }, labels),
      svg('rect', { x: x0, y: y0, width: cols, height: rows, fill: WATER, rx: 0.12 }),
      svg('g', { stroke: '#ffffff', 'stroke-width': 0.05 }, rules));
    const fired = new Set(list.map((p) => key(p.row, p.col)));
    for (const s of ships || []) {
      const cells = cellsOf(s), sunk = cells.every(([r, c]) => fired.has(key(r, c)));
      const w = s.dir === 'h' ? s.length : 1, h = s.dir === 'h' ? 1 : s.length;
      g.append(svg('rect', { x: x0 + s.col + 0.12, y: y0 + s.row + 0.12, width: w - 0.24, height: h - 0.24, rx: 0.36,
        fill: sunk ? SUNK : HULL }),
        ...cells.map(([r, c]) => svg('g', { 'data-ship': '', 'data-row': r, 'data-col': c, 'data-sunk': sunk ? '1' : null },
          svg('circle', { cx: x0 + c + 0.5, cy: y0 + r + 0.5, r: 0.1, fill: sunk ? '#d99' : '#8391a7' }))));
    }
    list.forEach((p, j) => {
      if (p.row < 0 || p.col < 0 || p.row >= rows || p.col >= cols) return;
      const cx = x0 + p.col + 0.5, cy = y0 + p.row + 0.5, hit = isHit(p.result);
      g.append(svg('g', { 'data-shot': '', 'data-row': p.row, 'data-col': p.col, 'data-hit': hit ? '1' : null,
        'data-result': p.result || 'unknown' },
        svg('title', {}, `(${p.row}, ${p.col}): ${p.result === 'sunk' ? `sunk (length ${p.length})` : p.result || 'not answered yet'}`),
        hl.has(j) ? svg('circle', { cx, cy, r: 0.44, fill: 'none', stroke: ACCENT, 'stroke-width': 0.09 }) : null,
        hit ? [svg('circle', { cx, cy, r: 0.28, fill: p.result === 'sunk' && !ships ? SUNK : HIT }),
          svg('path', { d: `M${cx - 0.13},${cy - 0.13}L${cx + 0.13},${cy + 0.13}M${cx + 0.13},${cy - 0.13}L${cx - 0.13},${cy + 0.13}`,
            stroke: '#fff', 'stroke-width': 0.07, 'stroke-linecap': 'round' })]
          : p.result === 'miss' ? svg('circle', { cx, cy, r: 0.13, fill: MISS })
            : [svg('circle', { cx, cy, r: 0.24, fill: '#fff', stroke: MISS, 'stroke-width': 0.05, 'stroke-dasharray': '0.1 0.07' }),
              svg('text', { x: cx, y: cy + 0.12, 'font-size': 0.34, 'text-anchor': 'middle', fill: MISS }, '?')]));
    });
  }

  function draw(root, k, seat) {
    style('battleship-style', CSS);
    root.replaceChildren();
    k = Math.max(0, Math.min(steps.length - 1, int(k) ? k : 0));
    const st = snaps[k], mine = seat == null || seat === '' ? null : Number(seat);
    if (mine != null && !(int(mine) && mine >= 0 && mine < n)) { root.append(html('div', { class: 'battleship-note' }, `No seat ${seat} in this match.`)); return; }
    const wrap = html('div', { class: 'battleship-root' },
      html('div', { class: 'battleship-caption' }, mine == null ? steps[k].label : `${seats[mine]}'s view · ${steps[k].label}`));
    root.append(wrap);
    const fired = (s) => shots[s].slice(0, st.count[s]).map((p, j) => ({ ...p, ...res[s][j] }));
    const hlOf = (s) => new Set(st.cur && st.cur.seat === s ? Array.from({ length: st.cur.to - st.cur.from }, (_, j) => st.cur.from + j) : []);
    let panels, score;
    if (mine == null) {
      panels = [0, 1].filter((o) => o < n).map((o) => ({ title: `${seats[o]}'s waters`,
        sub: `${seats[opp(o)]} fires here · ${st.count[opp(o)]} shot${st.count[opp(o)] === 1 ? '' : 's'}`,
        ships: fleet[o], list: fired(opp(o)), hl: hlOf(opp(o)), ghost: st.cur && st.cur.seat === opp(o) ? st.ghost : [] }));
      score = seats.map((_, s) => (st.result && int(st.result.scores[s]) ? st.result.scores[s] : fired(s).filter((p) => isHit(p.result)).length));
    } else {
      const v = views[st.view[mine]], o = opp(mine);
      const outgoing = v ? v.outgoing : [], known = outgoing.length;
      const pending = shots[mine].slice(known, st.count[mine]).map((p) => ({ ...p, result: null, length: null }));
      panels = [
        { title: `${seats[mine]}'s waters`, sub: `shots ${seats[o]} fired here, as ${seats[mine]} was told`,
          ships: (v && v.fleet) || fleet[mine], list: v ? v.incoming : [], hl: new Set(), ghost: [] },
        { title: `${seats[o]}'s waters, as ${seats[mine]} knows them`, sub: `${seats[mine]}'s shots and their answers`,
          ships: null, list: outgoing.concat(pending), hl: hlOf(mine), ghost: st.cur && st.cur.seat === mine ? st.ghost : [] }];
      score = Array(n).fill(null);
      if (v) { score[mine] = outgoing.filter((p) => isHit(p.result)).length; score[o] = v.incoming.filter((p) => isHit(p.result)).length; }
      wrap.append(html('div', { class: 'battleship-note' }, v ? `From the latest view sent to ${seats[mine]} (line ${v.line}); shots fired since are not answered yet.`
        : `Nothing has been sent to ${seats[mine]} yet.`));
    }
    wrap.append(html('div', { class: 'battleship-cards' }, seats.map((name, s) => {
      const own = mine == null || mine === s;
      return html('div', { class: 'battleship-card' + (st.cur && st.cur.seat === s ? ' battleship-mover' : '') },
        html('div', { class: 'battleship-head' },
          html('span', { class: 'battleship-name' }, name),
          score[s] != null ? html('span', null,
            html('span', { class: 'battleship-score', 'data-score': String(s) }, String(score[s])),
            html('span', { class: 'battleship-muted' }, ` hit${score[s] === 1 ? '' : 's'}`)) : null),
        own ? html('div', { class: 'battleship-muted' }, `${st.count[s]} shot${st.count[s] === 1 ? '' : 's'} fired`) : null,
        own && st.result && st.result.winners.includes(s) ? html('div', { class: 'battleship-win' }, st.result.winners.length > 1 ? 'draw (winner)' : 'winner') : null,
        own && st.out[s] ? html('div', { class: 'battleship-tag' }, `ejected: ${st.out[s].why} in ${st.out[s].call}${st.out[s].detail ? ' — ' + st.out[s].detail : ''}`) : null);
    })));
    const { rows, cols } = cfg, gap = 2.4, x0 = 1.0, y0 = 2.1;
    const W = x0 + panels.length * cols + (panels.length - 1) * gap + 0.3, H = y0 + rows + 0.3;
    wrap.append(html('div', { class: 'battleship-board' }, svg('svg', { 'data-board': 'battleship', viewBox: `0 0 ${W} ${H}`, role: 'img',
      'aria-label': steps[k].label, style: `max-width:${Math.round(W * 46)}px`, 'font-family': 'system-ui,sans-serif' },
      panels.map((p, j) => {
        const gx = x0 + j * (cols + gap), g = svg('g', {});
        drawGrid(g, gx, y0, p.title, p.sub, p.ships, p.list, p.hl);
        for (const q of p.ghost) if (q.row >= 0 && q.col >= 0 && q.row < rows && q.col < cols)
          g.append(svg('rect', { x: gx + q.col + 0.08, y: y0 + q.row + 0.08, width: 0.84, height: 0.84, rx: 0.12, fill: 'none',
            stroke: DANGER, 'stroke-width': 0.07, 'stroke-dasharray': '0.14 0.09' }));
        return g;
      }))));
    const item = (text, ...shapes) => html('span', null, svg('svg', { width: 18, height: 18, viewBox: '-0.5 -0.5 1 1' }, shapes), text);
    const cross = (fill) => [svg('circle', { r: 0.34, fill }),
      svg('path', { d: 'M-0.15,-0.15L0.15,0.15M0.15,-0.15L-0.15,0.15', stroke: '#fff', 'stroke-width': 0.09, 'stroke-linecap': 'round' })];
    wrap.append(html('div', { class: 'battleship-legend' },
      item('ship', svg('rect', { x: -0.42, y: -0.3, width: 0.84, height: 0.6, rx: 0.25, fill: HULL })),
      item('sunk ship', svg('rect', { x: -0.42, y: -0.3, width: 0.84, height: 0.6, rx: 0.25, fill: SUNK })),
      item('hit', cross(HIT)),
      mine != null || !fleet[0] || !fleet[1] ? item('sinking shot', cross(SUNK)) : null,
      item('miss', svg('circle', { r: 0.15, fill: MISS })),
      item('not answered yet', svg('circle', { r: 0.28, fill: '#fff', stroke: MISS, 'stroke-width': 0.06, 'stroke-dasharray': '0.1 0.07' })),
      item('this step', svg('circle', { r: 0.4, fill: 'none', stroke: ACCENT, 'stroke-width': 0.1 })),
      html('span', null, 'score = hits landed (sinking shots included), as in the result')));
    if (mine == null && st.result) {
      const w = st.result.winners.map((s) => seats[s]);
      wrap.append(html('div', { class: 'battleship-caption' }, (st.result.aborted ? 'Stopped at the turn limit. ' : 'Game over. ') +
        (w.length > 1 ? `Draw: ${w.join(', ')} share the win.` : w.length ? `Winner: ${w[0]}.` : 'No winner.')));
    }
  }

  function summary(k) {
    k = Math.max(0, Math.min(steps.length - 1, int(k) ? k : 0));
    const st = snaps[k];
    return seats.map((_, s) => {
      const hits = st.result && int(st.result.scores[s]) ? st.result.scores[s]
        : res[s].slice(0, st.count[s]).filter((x) => isHit(x.result)).length;
      return { seat: s, text: `${hits} hit${hits === 1 ? "" : "s"} / ${st.count[s]} shot${st.count[s] === 1 ? "" : "s"}` + (st.out[s] ? ` · ejected (${st.out[s].why})` : '') };
    });
  }

  return { steps, seats, draw, summary };
}
