#!/usr/bin/env bash
# Builds the fuzz preset (ASan + UBSan, coverage; docs/fuzzing.md) and runs every fuzz target for
# SECONDS each (default 10) from its seed corpus and dictionary, one after another. Exits nonzero
# at the first target that finds a crash or a broken property; the input is kept in
# build/fuzz/crashes/.
#   scripts/fuzz.sh [SECONDS] [TARGET...]      e.g. scripts/fuzz.sh 300 framer
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(q_codec battleship_codec speed_scrabble_codec dominosa_codec abalone_codec framer
           game_log spec store_rows bot_archive)
fi
cmake --preset fuzz >/dev/null
cmake --build build/fuzz --target "${targets[@]/#/fuzz_}"
mkdir -p build/fuzz/crashes
for t in "${targets[@]}"; do
  max_len=4096
  # Game logs are long; the seeds include a whole one.
  [ "$t" = game_log ] && max_len=65536
  build/fuzz/fuzz/fuzz_"$t" --seconds "$seconds" --seed "${FUZZ_SEED:-1}" --max-len "$max_len" \
    --dict fuzz/dict/"$t".dict --crash-dir build/fuzz/crashes fuzz/corpus/"$t"
done
