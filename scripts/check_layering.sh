#!/usr/bin/env bash
# Fails when rules code (src/core, src/games/*, except registry and harness/ glue) includes a
# socket, thread or referee header. Games are deterministic, single-threaded and transport-blind.
set -u
src=${1:-src}
pattern='#include[[:space:]]*[<"](sys/socket\.h|netinet/|arpa/inet\.h|asio|boost/asio|thread|future|referee/|remote/|tournament/)'
hits=$(grep -rnE "$pattern" "$src/core" "$src/games" --include='*.h' --include='*.cpp' 2>/dev/null | grep -v '_test\.cpp:' | grep -v 'src/games/registry' | grep -v '/harness/')
if [ -n "$hits" ]; then
  echo "layering violation: rules code must not include transport, thread or referee headers:" >&2
  echo "$hits" >&2
  exit 1
fi
exit 0
