#!/usr/bin/env bash
# Installs what is missing, builds the dev preset (Debug, assertions on) and runs the whole test
# suite: unit tests, the conformance suite, every course test case and the CLI end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset dev >/dev/null
cmake --build --preset dev
ctest --preset dev
# A short fuzzing run (docs/fuzzing.md) of the targets whose sanitizer build is cheap; the rest,
# and longer runs, with scripts/fuzz.sh.
bash scripts/fuzz.sh "${FUZZ_SECONDS:-5}" q_codec battleship_codec dominosa_codec framer game_log
