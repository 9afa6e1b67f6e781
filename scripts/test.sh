#!/usr/bin/env bash
# Installs what is missing, builds the dev preset (Debug, assertions on) and runs the whole test
# suite: unit tests, the conformance suite, every course test case and the CLI end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset dev >/dev/null
cmake --build --preset dev
ctest --preset dev
