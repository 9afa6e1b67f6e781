#!/usr/bin/env bash
# Configures and builds a CMake preset, saying what it does: one line per step, and while it
# compiles a progress line (how much of the build is done) instead of the compiler's output,
# which goes to build/PRESET.log; when something fails, the end of that log.
# Usage: scripts/build.sh PRESET [EXTRA cmake --build ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:?usage: scripts/build.sh PRESET}
shift
mkdir -p build
log=build/$preset.log
: > "$log"
failed() {
  tail -n 40 "$log" >&2
  echo "build: $1 failed; the whole output is in $log" >&2
  exit 1
}
echo "build: configuring the $preset build (cmake --preset $preset)" >&2
cmake --preset "$preset" >> "$log" 2>&1 || failed "configuring"
if [ -f "build/$preset/.ninja_log" ]; then
  echo "build: compiling what changed since the last $preset build" >&2
else
  echo "build: compiling arbiter ($preset) for the first time: about 10 minutes on 2 cores" >&2
fi
# Ninja's "[done/total]" lines become a percentage: rewritten in place on a terminal, a line
# every 10 % otherwise (a log, CI).
tty=0
[ -t 2 ] && tty=1
set +e
cmake --build --preset "$preset" "$@" 2>&1 | tee -a "$log" | awk -v tty="$tty" '
  match($0, /^\[[0-9]+\/[0-9]+\]/) {
    split(substr($0, 2, RLENGTH - 2), n, "/")
    if (n[2] == 0) next
    pct = int(100 * n[1] / n[2])
    if (tty) { printf "\rbuild: %3d%% (%d of %d steps)", pct, n[1], n[2] > "/dev/stderr"; shown = 1 }
    else if (pct >= next_pct) { printf "build: %d%% (%d of %d steps)\n", pct, n[1], n[2] > "/dev/stderr"; next_pct = pct - pct % 10 + 10 }
  }
  END { if (tty && shown) printf "\n" > "/dev/stderr" }'
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || failed "compiling"
echo "build: done (build/$preset)" >&2
