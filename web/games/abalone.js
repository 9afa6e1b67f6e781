// Concurrent Abalone renderer (contract: web/games/README.md; rules: docs/games/abalone.md).
//   replay(lines) -> {steps, seats, draw(root, k, seat), summary(k), problems, world(k)}
// The pieces are rebuilt from the log alone: the start hexes, then every "spawn", every
// "resolution" (chains move one hex along dir, pushed enemies farthest first, a push off the
// board kills and scores) and every "end_bot" that is not a push-off (the piece leaves, the enemy
// scores). Steps: 0 = the start, then one per cycle that has a line; a line without a cycle
// (a call's args carry one; result, unknown lines) joins the step in progress. Drawn: 61 hexes,
// pieces (data-piece=PID, data-team, data-hex), this step's chains as arrows (dashed red when
// refused), pushed pieces ringed, killed pieces as crossed ghosts, scores (data-score). Both teams
// see the whole world: a seat only highlights its team. `problems` lists where the log
// disagrees with the reconstruction (a chain head elsewhere, the end world different).
import { style, svg as s, html as h, prefixed, SHARED_CSS } from "./draw.js";

const P = 'abalone';
const TEAMS = ['black', 'white'];
const STEP = [null, [0, 1], [1, 1], [1, 0], [0, -1], [-1, -1], [-1, 0]];
const DIRNAME = ['', 'R', 'UR', 'UL', 'L', 'DL', 'DR'];
const S = 24, R3 = Math.sqrt(3);

const CSS = (SHARED_CSS + `
.P-ok{background:#e3f4e8;color:#276749}.P-bad{background:#fde8e8;color:#c53030}.P-win{background:#fff4c2;color:#7a5b00}
.P-list{margin:0;padding:0 0 0 2px;list-style:none;font-size:13px;max-height:11em;overflow:auto}
.P-list li{padding:1px 0}.P-refused{color:#c53030}
.P-main{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}
.P-main>svg{flex:0 1 500px}.P-side{flex:1 1 220px;min-width:200px}.P-side .P-list{max-height:30em}
.P-dot{display:inline-block;width:12px;height:12px;border-radius:50%;vertical-align:-1px;margin-right:5px;border:1px solid #444}
`).replace(/P-/g, P + '-');

const cls = prefixed(P);

const onBoard = (r, d) => Math.abs(r) <= 4 && Math.abs(d) <= 4 && Math.abs(r - d) <= 4;
function parseHex(name) {
  const m = /^([A-I])([-~]?)([0-9])$/.exec(String(name));
  if (!m) return null;
  const r = m[1].charCodeAt(0) - 69, d = (m[2] ? -1 : 1) * Number(m[3]);
  return onBoard(r, d) ? { r, d } : null;
}
const hexName = (r, d) => String.fromCharCode(69 + r) + (d < 0 ? '-' + -d : String(d));
const xy = (r, d) => [R3 * S * (d - r / 2), -1.5 * S * r];
const teamIx = (t) => TEAMS.indexOf(t);

export function replay(lines) {
  lines = Array.isArray(lines) ? lines : [];
  const head = lines[0] && lines[0].type === 'match' ? lines[0] : {};
  const seats = Array.isArray(head.seats) ? head.seats.map(String) : ['black', 'white'];
  const problems = [];
  let cfg = head.config && typeof head.config === 'object' ? head.config : {};
  const w = { pieces: new Map(), scores: [0, 0], over: false, cycle: 0, turns: 0,
              talk: [null, null], forfeit: null, end: null, result: null, next: 3 };
  const startWorld = (c) => {
    w.pieces.clear();
    const b = parseHex(c.black_start || 'B-1') || { r: -3, d: -1 };
    const wh = parseHex(c.white_start || 'H1') || { r: 3, d: 1 };
    w.pieces.set(1, { pid: 1, team: 'black', r: b.r, d: b.d, dir: 0 });
    w.pieces.set(2, { pid: 2, team: 'white', r: wh.r, d: wh.d, dir: 0 });
  };
  startWorld(cfg);
  const winAt = () => Number(cfg.winning_score) || 6;
  const award = (t) => { if (++w.scores[t] >= winAt()) w.over = true; };

  const steps = [], snaps = [];
  let ev = null, cur = { line: 0, cycle: null };
  const fresh = () => ({ res: [], spawns: [], gone: [], talks: [], notes: [] });
  ev = fresh();
  const close = () => {
    snaps.push({ pieces: [...w.pieces.values()].map((p) => ({ ...p })), scores: [...w.scores],
                 over: w.over, cycle: w.cycle, turns: w.turns, talk: [...w.talk],
                 forfeit: w.forfeit, end: w.end, result: w.result, ev });
    steps.push({ line: cur.line, label: steps.length === 0 ? 'start' : label(cur.cycle, ev) });
  };

  const apply = (L) => {
    const c = Number.isFinite(L.cycle) ? L.cycle : null;
    if (c != null) w.cycle = c;
    switch (L.type) {
      case 'start':
        if (L.config && typeof L.config === 'object') cfg = { ...cfg, ...L.config };
        startWorld(cfg);
        break;
      case 'spawn': {
        const at = parseHex(L.hex), par = w.pieces.get(L.parent);
        const team = par ? par.team : TEAMS.includes(L.team) ? L.team : null;
        if (!at || !team || !Number.isInteger(L.pid)) { problems.push(`cycle ${c}: spawn of ${L.pid} not placed`); break; }
        w.pieces.set(L.pid, { pid: L.pid, team, r: at.r, d: at.d, dir: 0 });
        ev.spawns.push({ pid: L.pid, team, r: at.r, d: at.d });
        break;
      }
      case 'call': // an external team's commitments, cleared again by its resolution
        if (L.call === 'take_turn' && L.verdict === 'ok' && Array.isArray(L.reply))
          for (const m of L.reply) { const p = m && w.pieces.get(m.pid); if (p && p.team === TEAMS[L.seat] && STEP[m.dir]) p.dir = m.dir; }
        break;
      case 'resolution': resolve(L, c); break;
      case 'end_bot': {
        const p = w.pieces.get(L.pid);
        if (L.why === 'pushed off') {
          if (p) { problems.push(`cycle ${c}: ${L.pid} pushed off but still on the board`); w.pieces.delete(L.pid); }
          break;
        }
        if (!p || w.over) break;
        w.pieces.delete(L.pid);
        award(1 - teamIx(p.team));
        ev.gone.push({ ...p, why: String(L.why || 'ended'), detail: L.detail });
        break;
      }
      case 'talk': {
        const p = w.pieces.get(L.pid);
        if (p) { w.talk[teamIx(p.team)] = { pid: L.pid, text: String(L.text || '') }; ev.talks.push({ team: p.team, pid: L.pid, text: String(L.text || '') }); }
        break;
      }
      case 'forfeit':
        w.over = true;
        w.forfeit = { team: L.team, why: L.why, verdict: L.verdict };
        ev.notes.push(`${L.team} forfeits (${L.verdict})`);
        break;
      case 'end': w.over = true; w.end = L; checkEnd(L); ev.notes.push(`the game ends: ${L.reason || 'over'}${L.winner ? ', ' + L.winner + ' wins' : ', no winner'}`); break;
      case 'result': w.result = L; break;
      default: break;
    }
  };

  function resolve(L, c) {
    const team = teamIx(L.team);
    if (team < 0) return;
    const rec = { team: L.team, chains: [] };
    w.turns++;
    for (const ch of Array.isArray(L.chains) ? L.chains : []) {
      const dir = Number(ch && ch.dir), pids = Array.isArray(ch && ch.chain) ? ch.chain : [];
      const mv = STEP[dir];
      const from = pids.map((p) => w.pieces.get(p)).filter(Boolean).map((p) => ({ r: p.r, d: p.d }));
      const hh = parseHex(ch.head), hp = w.pieces.get(pids[pids.length - 1]);
      if (hh && hp && (hh.r !== hp.r || hh.d !== hp.d))
        problems.push(`cycle ${c}: the log has chain head ${ch.head}, the reconstruction ${hexName(hp.r, hp.d)}`);
      if (!from.length && hh) from.push(hh);
      const item = { dir, legal: !!ch.legal, from, pushed: [], killed: null, pids };
      for (const p of pids) { const q = w.pieces.get(p); if (q) q.dir = 0; }
      if (ch.legal && mv) {
        const pushed = Array.isArray(ch.pushed) ? ch.pushed : [];
        for (let j = pushed.length - 1; j >= 0; j--) {
          const q = w.pieces.get(pushed[j]);
          if (!q) continue;
          const r = q.r + mv[0], d = q.d + mv[1];
          if (onBoard(r, d)) { q.r = r; q.d = d; item.pushed.push({ r, d }); }
          else { w.pieces.delete(q.pid); item.killed = { pid: q.pid, team: q.team, r, d }; award(team); }
        }
        if ((ch.killed != null) !== (item.killed != null))
          problems.push(`cycle ${c}: the log's killed ${ch.killed} differs from the reconstruction`);
        for (let j = pids.length - 1; j >= 0; j--) {
          const q = w.pieces.get(pids[j]);
          if (q) { q.r += mv[0]; q.d += mv[1]; }
        }
      }
      rec.chains.push(item);
    }
    ev.res.push(rec);
  }

  function checkEnd(L) {
    const world = L.world && Array.isArray(L.world.pieces) ? L.world.pieces : null;
    if (!world) return;
    const mine = [...w.pieces.values()].map((p) => `${p.pid}:${p.team}:${hexName(p.r, p.d)}`).sort();
    const theirs = world.map((p) => `${p.pid}:${p.team}:${p.hex}`).sort();
    if (mine.join() !== theirs.join()) problems.push(`end: the log's world ${theirs.join(' ')} differs from the reconstruction ${mine.join(' ')}`);
    const sc = L.world.scores;
    if (sc && (sc.black !== w.scores[0] || sc.white !== w.scores[1])) problems.push(`end: scores ${sc.black}-${sc.white} differ from ${w.scores.join('-')}`);
    for (const p of world) { const q = w.pieces.get(p.pid); if (q && STEP[p.dir]) q.dir = p.dir; }
  }

  for (let i = 1; i < lines.length; i++) {
    const L = lines[i];
    if (!L || typeof L !== 'object') { cur.line = i; continue; }
    let c = Number.isFinite(L.cycle) ? L.cycle : null;
    if (c == null && L.type === 'call' && Array.isArray(L.args) && L.args[0] && Number.isFinite(L.args[0].cycle)) c = L.args[0].cycle;
    if (c != null && c !== cur.cycle) {
      close();
      ev = fresh();
      cur = { line: i, cycle: c };
    }
    try { apply(L); } catch (e) { problems.push(`line ${i}: ${e && e.message}`); }
    cur.line = i;
  }
  close();

  const draw = (root, k, seat) => drawStep(root, snaps[clamp(k, snaps.length)], seats, seat, cfg, problems);
  const summary = (k) => {
    const sn = snaps[clamp(k, snaps.length)];
    return TEAMS.map((t, i) => ({ seat: i, text: `${seats[i] === t ? '' : t + ', '}score ${sn.scores[i]}, ${sn.pieces.filter((p) => p.team === t).length} pieces` }));
  };
  const world = (k) => snaps[clamp(k, snaps.length)].pieces.map((p) => ({ pid: p.pid, team: p.team, hex: hexName(p.r, p.d) }));
  return { steps, seats, draw, summary, problems, world };
}

const clamp = (k, n) => Math.max(0, Math.min(n - 1, Number.isInteger(k) ? k : n - 1));
const plural = (n, one, many) => `${n} ${n === 1 ? one : many || one + 's'}`;

function label(cycle, ev) {
  const parts = [];
  if (ev.spawns.length) parts.push(plural(ev.spawns.length, 'spawn'));
  for (const r of ev.res) {
    const moved = r.chains.filter((c) => c.legal).length, pushes = r.chains.reduce((a, c) => a + c.pushed.length + (c.killed ? 1 : 0), 0);
    const off = r.chains.filter((c) => c.killed).length;
    let t = `${r.team} resolves ${plural(r.chains.length, 'chain')}`;
    if (r.chains.length) t += `, ${moved} move`;
    if (pushes) t += `, ${plural(pushes, 'push', 'pushes')}`;
    if (off) t += `, ${off} off`;
    parts.push(t);
  }
  if (ev.gone.length) parts.push(`${plural(ev.gone.length, ev.gone[0].team + ' bot')} end (${ev.gone[0].why})`);
  if (ev.talks.length) parts.push(plural(ev.talks.length, 'talk'));
  parts.push(...ev.notes);
  return `cycle ${cycle}: ${parts.join('; ') || 'nothing visible'}`;
}

function hexPoints(cx, cy, rad) {
  const pts = [];
  for (let i = 0; i < 6; i++) { const a = Math.PI / 180 * (60 * i - 30); pts.push(`${(cx + rad * Math.cos(a)).toFixed(1)},${(cy + rad * Math.sin(a)).toFixed(1)}`); }
  return pts.join(' ');
}

function arrow(x1, y1, x2, y2, color, dashed, halo, dim) {
  const L = Math.hypot(x2 - x1, y2 - y1) || 1, ux = (x2 - x1) / L, uy = (y2 - y1) / L;
  const bx = x2 - ux * 9, by = y2 - uy * 9;
  const g = s('g', { class: cls('arrow'), opacity: dim ? 0.3 : 0.95 });
  const line = (st, wd) => s('line', { x1, y1, x2: bx, y2: by, stroke: st, 'stroke-width': wd, 'stroke-linecap': 'round', 'stroke-dasharray': dashed ? '5 4' : null });
  const head = (st, extra) => s('polygon', { points: `${x2},${y2} ${bx - uy * 6},${by + ux * 6} ${bx + uy * 6},${by - ux * 6}`, fill: color, stroke: st, 'stroke-width': extra, 'stroke-linejoin': 'round' });
  g.append(line(halo, 6), head(halo, 3), line(color, 3), head(color, 0));
  return g;
}

function cross(x, y, r, color) {
  return s('path', { d: `M${x - r},${y - r}L${x + r},${y + r}M${x - r},${y + r}L${x + r},${y - r}`, stroke: color, 'stroke-width': 3, 'stroke-linecap': 'round' });
}

function drawStep(root, sn, seats, seat, cfg, problems) {
  style(P + '-style', CSS);
  root.replaceChildren();
  const me = seat === 0 || seat === 1 ? seat : null;
  const box = h('div', { class: cls('root') });
  root.append(box);
  const res = sn.result, winners = res && Array.isArray(res.winners) ? res.winners : null;
  const endWinner = sn.end ? teamIx(sn.end.winner) : -1;

  const bar = h('div', { class: cls('bar') });
  TEAMS.forEach((t, i) => {
    const n = sn.pieces.filter((p) => p.team === t).length;
    const won = winners ? winners.includes(i) && winners.length === 1 : endWinner === i;
    const talk = sn.talk[i];
    bar.append(h('div', { class: cls('card', me === i && 'me') },
      h('div', { class: cls('title') }, h('span', { class: cls('dot'), style: `background:${i ? '#f4f1ea' : '#1b1b1b'}` }),
        seats[i] != null && seats[i] !== t ? `${t} · ${seats[i]}` : t, ' ', won ? h('span', { class: cls('chip', 'win') }, 'winner') : null,
        sn.forfeit && sn.forfeit.team === t ? h('span', { class: cls('chip', 'bad') }, 'forfeit') : null),
      h('div', null, 'score', h('span', { class: cls('score'), 'data-score': String(i) }, String(sn.scores[i])),
        h('span', { class: cls('muted') }, `/ ${Number(cfg.winning_score) || 6} · ${plural(n, 'piece')}`)),
      talk ? h('div', { class: cls('muted') }, `#${talk.pid} says “${talk.text.slice(0, 60)}”`) : null));
  });
  let status = `cycle ${sn.cycle} · ${plural(sn.turns, 'resolution')}`;
  if (sn.end) status += ` · over: ${sn.end.reason || 'ended'}${sn.end.winner ? ', ' + sn.end.winner + ' wins' : ', no winner'}`;
  else if (sn.over) status += ' · over';
  bar.append(h('div', { class: cls('card') }, h('div', { class: cls('title') }, status),
    sn.forfeit ? h('div', { class: cls('muted') }, `${sn.forfeit.team}: ${sn.forfeit.why || ''}`.slice(0, 160)) : null,
    winners && !winners.length ? h('div', null, h('span', { class: cls('chip') }, 'no winner')) : null));
  box.append(bar);

  // The board, with one hex of margin for pieces pushed off.
  const ext = 5.5 * R3 * S + 8, top = 1.5 * S * 5 + S;
  const svg = s('svg', { 'data-board': P, class: cls('svg'), viewBox: `${-ext} ${-top} ${2 * ext} ${2 * top}`, width: 500, role: 'img', 'aria-label': 'Abalone board' });
  const corners = [[4, 0], [4, 4], [0, 4], [-4, 0], [-4, -4], [0, -4]].map(([r, d]) => xy(r, d).map((v) => v * 1.2));
  svg.append(s('polygon', { points: corners.map((p) => p.join(',')).join(' '), fill: '#7a5230', stroke: '#5c3b1f', 'stroke-width': 22, 'stroke-linejoin': 'round' }));
  for (let r = 4; r >= -4; r--) {
    const d0 = Math.max(-4, r - 4);
    const [lx, ly] = xy(r, d0 - 1);
    svg.append(s('text', { x: lx + 6, y: ly + 4, 'font-size': 11, 'font-weight': 700, fill: '#f0dcb8', 'text-anchor': 'middle' }, String.fromCharCode(69 + r)));
    for (let d = -4; d <= 4; d++) {
      if (!onBoard(r, d)) continue;
      const [x, y] = xy(r, d);
      svg.append(s('polygon', { points: hexPoints(x, y, S - 1.2), fill: '#e6cc9a', stroke: '#b68d59', 'stroke-width': 1.2, 'data-hex': hexName(r, d) }),
        s('circle', { cx: x, cy: y, r: S * 0.62, fill: '#d7b77f', opacity: 0.55 }));
    }
  }
  const dimTeam = (t) => me != null && t !== TEAMS[me];
  const defs = s('defs');
  for (const t of TEAMS) {
    const g = s('radialGradient', { id: `${P}-g-${t}`, cx: '35%', cy: '30%', r: '70%' });
    const [a, b] = t === 'black' ? ['#6b6b6b', '#0d0d0d'] : ['#ffffff', '#cfc8b8'];
    g.append(s('stop', { offset: '0%', 'stop-color': a }), s('stop', { offset: '100%', 'stop-color': b }));
    defs.append(g);
  }
  svg.append(defs);
  const spawned = new Set(sn.ev.spawns.map((p) => p.pid));
  for (const p of sn.pieces) {
    const [x, y] = xy(p.r, p.d);
    const g = s('g', { 'data-piece': String(p.pid), 'data-team': p.team, 'data-hex': hexName(p.r, p.d), opacity: dimTeam(p.team) ? 0.5 : 1 });
    g.append(s('circle', { cx: x + 1.2, cy: y + 2, r: S * 0.8, fill: 'rgba(0,0,0,.28)' }),
      s('circle', { cx: x, cy: y, r: S * 0.8, fill: `url(#${P}-g-${p.team})`, stroke: p.team === 'black' ? '#000' : '#8a826f', 'stroke-width': 1 }));
    if (STEP[p.dir]) {
      const [dx, dy] = xy(STEP[p.dir][0], STEP[p.dir][1]), L = Math.hypot(dx, dy);
      g.append(s('circle', { cx: x + dx / L * S * 0.55, cy: y + dy / L * S * 0.55, r: 3, fill: p.team === 'black' ? '#f6e05e' : '#b7791f' }));
    }
    g.append(s('text', { x, y: y + 3.5, 'font-size': 10, 'text-anchor': 'middle', fill: p.team === 'black' ? '#e2e2e2' : '#4a4a4a', 'font-weight': 600 }, String(p.pid)));
    if (me != null && !dimTeam(p.team)) g.append(s('circle', { cx: x, cy: y, r: S * 0.8 + 1.5, fill: 'none', stroke: '#3b82f6', 'stroke-width': 2.5 }));
    if (spawned.has(p.pid)) g.append(s('circle', { cx: x, cy: y, r: S * 0.92, fill: 'none', stroke: '#38a169', 'stroke-width': 2, 'stroke-dasharray': '3 3' }));
    svg.append(g);
  }
  for (const r of sn.ev.res) {
    const dim = dimTeam(r.team);
    for (const c of r.chains) {
      const mv = STEP[c.dir];
      if (!mv || !c.from.length) continue;
      const a = c.from[0], b = c.from[c.from.length - 1];
      const [x1, y1] = xy(a.r - mv[0] * 0.35, a.d - mv[1] * 0.35), [x2, y2] = xy(b.r + mv[0] * 0.8, b.d + mv[1] * 0.8);
      const col = !c.legal ? '#e53e3e' : r.team === 'black' ? '#1a1a1a' : '#ffffff';
      svg.append(arrow(x1, y1, x2, y2, col, !c.legal, c.legal && r.team === 'white' ? '#2d2d2d' : '#ffffff', dim));
      for (const q of c.pushed) { const [x, y] = xy(q.r, q.d); svg.append(s('circle', { cx: x, cy: y, r: S * 0.9, fill: 'none', stroke: '#dd6b20', 'stroke-width': 3, 'data-pushed': '1' })); }
      if (c.killed) {
        const [x, y] = xy(c.killed.r, c.killed.d);
        svg.append(s('g', { 'data-killed': String(c.killed.pid) }, s('circle', { cx: x, cy: y, r: S * 0.7, fill: `url(#${P}-g-${c.killed.team})`, opacity: 0.45, stroke: '#c53030', 'stroke-width': 2, 'stroke-dasharray': '4 3' }), cross(x, y, 8, '#c53030')));
      }
    }
  }
  for (const p of sn.ev.gone) {
    const [x, y] = xy(p.r, p.d);
    svg.append(s('g', { 'data-killed': String(p.pid) }, s('circle', { cx: x, cy: y, r: S * 0.7, fill: `url(#${P}-g-${p.team})`, opacity: 0.45, stroke: '#c53030', 'stroke-width': 2, 'stroke-dasharray': '4 3' }), cross(x, y, 7, '#c53030')));
  }
  const main = h('div', { class: cls('main') }, svg);
  box.append(main);

  const items = [];
  for (const r of sn.ev.res) {
    const moved = r.chains.filter((c) => c.legal).length;
    items.push(h('b', null, `${r.team} resolves ${plural(r.chains.length, 'chain')}: ${moved} moved, ${r.chains.length - moved} refused`));
    for (const c of r.chains) {
      const n = c.pushed.length + (c.killed ? 1 : 0);
      items.push(h('span', { class: cls(c.legal ? '' : 'refused') }, `· ${c.pids.join('+')} ${DIRNAME[c.dir] || c.dir}` +
        (c.legal ? '' : ': refused') + (n ? `, pushes ${n}` : '') + (c.killed ? `, ${c.killed.pid} off the board` : '')));
    }
  }
  if (sn.ev.spawns.length) items.push(`spawned: ${sn.ev.spawns.map((p) => `${p.pid} (${p.team}) on ${hexName(p.r, p.d)}`).join(', ')}`);
  const groups = new Map();
  for (const p of sn.ev.gone) { const key = `${p.team}|${p.why}|${p.detail || ''}`; groups.set(key, [...(groups.get(key) || []), p]); }
  for (const ps of groups.values()) {
    const p = ps[0];
    items.push(`${p.team} ${ps.map((q) => q.pid).join(', ')} ${ps.length > 1 ? 'leave' : 'leaves'} the board: ${p.why}${p.detail ? ' (' + String(p.detail).slice(0, 80) + ')' : ''}`);
  }
  for (const t of sn.ev.talks) items.push(`${t.team} ${t.pid} says “${t.text.slice(0, 80)}”`);
  for (const n of sn.ev.notes) items.push(n);
  if (problems.length) items.push(`⚠ ${problems.length} mismatch(es) between the log and the reconstruction: ${problems[0]}`);
  main.append(h('div', { class: cls('card', 'side') }, h('div', { class: cls('title') }, `cycle ${sn.cycle}`),
    h('ul', { class: cls('list') }, items.length ? items.map((t) => h('li', null, t)) : h('li', { class: cls('muted') }, 'nothing happened in this step')),
    h('div', { class: cls('muted') }, 'arrows: moves resolved this step (dashed red: refused) · orange ring: pushed · ✕: left the board · dashed green ring: spawned · dot: committed direction')));
}
