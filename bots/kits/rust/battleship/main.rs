//! A Battleship bot for arbiter: one JSON message per line on stdin, one answer per line on stdout.
//! Its fleet goes in the first places that fit, scanning the grid; it fires next to its open hits
//! first, then on a checkerboard (every ship covers a cell of each colour), then anywhere left.
mod json;

use json::{obj, Json};
use std::collections::HashSet;
use std::io::{self, BufRead, Write};

fn cells(row: i64, col: i64, length: i64, dir: &str) -> Vec<(i64, i64)> {
    (0..length).map(|i| if dir == "v" { (row + i, col) } else { (row, col + i) }).collect()
}

fn num(n: i64) -> Json {
    Json::Num(n as f64)
}

fn place_fleet(config: &Json) -> Json {
    let (rows, cols) = (config.get("rows").int(), config.get("cols").int());
    let mut lengths: Vec<i64> = config.get("ships").items().iter().map(Json::int).collect();
    lengths.sort_by(|a, b| b.cmp(a));
    let mut taken = HashSet::new();
    let mut fleet = Vec::new();
    for length in lengths {
        'search: for r in 0..rows {
            for c in 0..cols {
                for dir in ["h", "v"] {
                    let body = cells(r, c, length, dir);
                    if !body.iter().all(|&(y, x)| y < rows && x < cols && !taken.contains(&(y, x))) {
                        continue;
                    }
                    // Keep a cell of water around each ship, so that it fits no_touch too.
                    for &(y, x) in &body {
                        for dy in -1..=1 {
                            for dx in -1..=1 {
                                taken.insert((y + dy, x + dx));
                            }
                        }
                    }
                    fleet.push(obj(&[("length", num(length)), ("row", num(r)), ("col", num(c)), ("dir", Json::Str(dir.into()))]));
                    break 'search;
                }
            }
        }
    }
    Json::Arr(fleet)
}

fn shots(view: &Json) -> Json {
    let config = view.get("config");
    let (rows, cols, salvo) = (config.get("rows").int(), config.get("cols").int(), config.get("salvo").truthy());
    let mut tried = HashSet::new();
    let mut order = Vec::new();
    for s in view.get("outgoing").items() {
        let (r, c) = (s.get("row").int(), s.get("col").int());
        tried.insert((r, c));
        if s.get("result").str() == "hit" {
            order.extend([(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]);
        }
    }
    for parity in 0..2 {
        for r in 0..rows {
            for c in 0..cols {
                if parity == 1 || (r + c) % 2 == 0 {
                    order.push((r, c));
                }
            }
        }
    }
    let mut want = 1;
    if salvo {
        let hit: HashSet<(i64, i64)> = view
            .get("incoming")
            .items()
            .iter()
            .filter(|s| s.get("result").str() != "miss")
            .map(|s| (s.get("row").int(), s.get("col").int()))
            .collect();
        want = view
            .get("fleet")
            .items()
            .iter()
            .filter(|s| {
                !cells(s.get("row").int(), s.get("col").int(), s.get("length").int(), s.get("dir").str())
                    .iter()
                    .all(|p| hit.contains(p))
            })
            .count();
    }
    let mut chosen = Vec::new();
    for (r, c) in order {
        if r < 0 || c < 0 || r >= rows || c >= cols || !tried.insert((r, c)) {
            continue;
        }
        chosen.push(obj(&[("row", num(r)), ("col", num(c))]));
        if chosen.len() == want {
            break;
        }
    }
    if salvo { Json::Arr(chosen) } else { chosen.swap_remove(0) }
}

fn main() {
    let stdout = io::stdout();
    for line in io::stdin().lock().lines() {
        let line = match line {
            Ok(l) if !l.trim().is_empty() => l,
            Ok(_) => continue,
            Err(_) => return,
        };
        let msg = Json::parse(&line);
        let method = msg.at(0).str();
        if method == "ejected" {
            // The referee says why this bot is out; no answer.
            let why = msg.at(1).at(0);
            eprintln!("ejected: {} during {}: {}", why.get("verdict").str(), why.get("call").str(), why.get("detail").str());
            return;
        }
        let answer = match method {
            "setup" => place_fleet(msg.at(1).at(0)),
            "take-turn" => shots(msg.at(1).at(0)),
            _ => Json::Str("void".into()),
        };
        let mut out = stdout.lock();
        writeln!(out, "{}", answer.write()).ok();
        out.flush().ok();
        if method == "win" {
            return;
        }
    }
}
