#!/usr/bin/env bash
# The main job, as a demo: installs what is missing, builds the release preset, then plays Q
# matches between the house bots (one with scripted bad actors, to show ejections), a Battleship
# match and a Speed Scrabble race, writes their game logs and replays some. Logs go to ./demo-logs/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release >/dev/null
arbiter=build/release/src/apps/arbiter
mkdir -p demo-logs

echo "== arbiter games"
"$arbiter" games
echo
echo "== A two-player match: dag against ldasg"
"$arbiter" play q --player alice:dag --player bob:ldasg --seed 1 --log demo-logs/q-2p.jsonl
echo
echo "== A four-player match"
"$arbiter" play q --player ann:ldasg --player ben:dag --player cat:ldasg --player dan:dag --seed 42 \
  --log demo-logs/q-4p.jsonl
echo
echo "== Bad actors: a cheat, an exception, a player that never answers (0.5 s limit)"
"$arbiter" play q --player honest:ldasg --player cheat:dag+cheat=no-fit \
  --player crash:dag+raise=take-turn --player stall:ldasg+hang=take-turn/1 --seed 7 --per-call 0.5 \
  --log demo-logs/q-bad-actors.jsonl
echo
echo "== Replaying the four-player match from its log"
"$arbiter" replay demo-logs/q-4p.jsonl
echo
echo "== Battleship: density against hunt, salvo rules"
"$arbiter" play battleship --player ann:density --player bob:hunt+evasive --config '{"salvo": true}' \
  --seed 3 --log demo-logs/battleship.jsonl
echo
echo "== Speed Scrabble: a real-time race of four solvers and a slow one"
"$arbiter" play speed_scrabble --player ann:solver --player ben:solver --player cat:solver \
  --player dan:solver --player slo:slow=0.5 --seed 5 --log demo-logs/speed-scrabble.jsonl
"$arbiter" replay demo-logs/speed-scrabble.jsonl
