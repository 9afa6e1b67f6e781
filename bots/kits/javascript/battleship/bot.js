// A Battleship bot for arbiter: one JSON message per line on stdin, one answer per line on stdout.
// Its fleet goes in the first places that fit, scanning the grid; it fires next to its open hits
// first, then on a checkerboard (every ship covers a cell of each colour), then anywhere left.
"use strict";
const readline = require("readline");

const cells = (row, col, length, dir) =>
  Array.from({length}, (_, i) => (dir === "v" ? [row + i, col] : [row, col + i]));

function placeFleet(config) {
  const {rows, cols} = config;
  const taken = new Set();
  const fleet = [];
  for (const length of [...config.ships].sort((a, b) => b - a)) {
    let spot = null;
    for (let row = 0; row < rows && !spot; row++) {
      for (let col = 0; col < cols && !spot; col++) {
        for (const dir of ["h", "v"]) {
          const ok = cells(row, col, length, dir).every(
            ([r, c]) => r < rows && c < cols && !taken.has(`${r},${c}`));
          if (ok) { spot = {length, row, col, dir}; break; }
        }
      }
    }
    fleet.push(spot);
    // Keep a cell of water around each ship, so that it fits no_touch too.
    for (const [r, c] of cells(spot.row, spot.col, length, spot.dir)) {
      for (let dr = -1; dr <= 1; dr++) for (let dc = -1; dc <= 1; dc++) taken.add(`${r + dr},${c + dc}`);
    }
  }
  return fleet;
}

function shots(view) {
  const {rows, cols, salvo} = view.config;
  const tried = new Set(view.outgoing.map((s) => `${s.row},${s.col}`));
  const near = [];
  for (const s of view.outgoing.filter((s) => s.result === "hit")) {
    for (const [dr, dc] of [[-1, 0], [1, 0], [0, -1], [0, 1]]) near.push([s.row + dr, s.col + dc]);
  }
  const board = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) board.push([r, c]);
  const order = [...near, ...board.filter(([r, c]) => (r + c) % 2 === 0), ...board];
  let want = 1;
  if (salvo) {
    const hit = new Set(view.incoming.filter((s) => s.result !== "miss").map((s) => `${s.row},${s.col}`));
    want = view.fleet.filter((s) => !cells(s.row, s.col, s.length, s.dir).every(([r, c]) => hit.has(`${r},${c}`))).length;
  }
  const chosen = [];
  for (const [r, c] of order) {
    const k = `${r},${c}`;
    if (r < 0 || c < 0 || r >= rows || c >= cols || tried.has(k)) continue;
    tried.add(k);
    chosen.push({row: r, col: c});
    if (chosen.length === want) break;
  }
  return salvo ? chosen : chosen[0];
}

const lines = readline.createInterface({input: process.stdin});
lines.on("line", (line) => {
  if (!line.trim()) return;
  const [method, args] = JSON.parse(line);
  if (method === "ejected") {  // the referee says why this bot is out; no answer
    const {verdict, call, detail} = args[0];
    process.stderr.write(`ejected: ${verdict} during ${call}: ${detail}\n`);
    process.exit(0);
  }
  const answer = method === "setup" ? placeFleet(args[0])
               : method === "take-turn" ? shots(args[0]) : "void";
  process.stdout.write(JSON.stringify(answer) + "\n");
  if (method === "win") lines.close();
});
