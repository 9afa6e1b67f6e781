#!/usr/bin/env bash
# The main job, as a demo: installs what is missing, builds the release preset, then runs small
# tournaments between the house bots of every game (Q, Battleship, Speed Scrabble, Dominosa,
# Concurrent Abalone) and a Battleship ladder (house anchors and a stored starter-kit bot) into
# one SQLite store, prints their standings and ratings, and replays a stored match from its log.
# Everything goes to ./demo-logs/ (the store is demo-logs/demo.db; it is made afresh each run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
arbiter=build/release/src/apps/arbiter
mkdir -p demo-logs
rm -f demo-logs/demo.db demo-logs/demo.db-wal demo-logs/demo.db-shm
store=sqlite:demo-logs/demo.db

echo "== arbiter games"
"$arbiter" games
echo
echo "== Q: four house bots (one cheats), every seating of two, 10 rounds"
"$arbiter" tournament run --name q-league -g q -p dag:dag -p ldasg:ldasg -p dag2:dag \
  -p cheat:dag+cheat=no-fit --rounds 10 --seed 1 --store "$store" --csv demo-logs/q-standings.csv
echo
echo "== Battleship: four shooters, both seat orders, 10 rounds"
"$arbiter" tournament run --name battleship-league -g battleship -p density:density \
  -p tracker:tracker -p hunt:hunt -p random:random --rounds 10 --seed 1 --store "$store"
echo
echo "== Speed Scrabble: real-time races of three, two solvers and a slow one"
"$arbiter" tournament run --name scrabble-races -g speed_scrabble -p ann:solver -p ben:solver \
  -p slow:slow=0.3 --seats 3 --rounds 1 --seed 1 --store "$store"
echo
echo "== Dominosa: puzzle races, a solver against one that waits 50 ms"
"$arbiter" tournament run --name dominosa-races -g dominosa -p fast:solver -p wait:slow=0.05 \
  --rounds 5 --seed 1 --store "$store"
echo
echo "== Concurrent Abalone: the coordinated Lua team against the random one, both colours"
"$arbiter" tournament run --name abalone-league -g abalone -p team:team -p simple:simple \
  --rounds 5 --seed 1 --store "$store"
echo
echo "== A ladder: house anchors and the Python starter kit, a stored bot, rated as they play"
"$arbiter" ladder create course -g battleship --anchor hunter:hunt --anchor dart:random \
  --anchor tracker:tracker --seed 1 --store "$store"
"$arbiter" bot add bots/kits/python/battleship --store "$store" --matches 2 \
  --bot-cache demo-logs/bot-cache
"$arbiter" ladder run course --workers 2 --until-rated 200 --store "$store" \
  --bot-cache demo-logs/bot-cache
echo
echo "== The store: every tournament and its progress"
"$arbiter" tournament status --store "$store"
echo
echo "== A stored Q match, replayed from its game log"
"$arbiter" tournament log 1 7 --store "$store" > demo-logs/q-match7.jsonl
"$arbiter" replay demo-logs/q-match7.jsonl
echo
echo "== One Abalone match with its game log, replayed from it"
"$arbiter" play abalone --black bots/abalone/team.lua --white bots/abalone/simple.lua --seed 1 \
  --log demo-logs/abalone.jsonl
"$arbiter" replay demo-logs/abalone.jsonl
echo
echo "== Watch them: every tournament, the ladder, standings and match of this demo in a browser"
echo "   $arbiter serve --store $store"
echo "   then open http://127.0.0.1:8080/ (docs/viewer.md; Ctrl-C stops the viewer)"
