#!/usr/bin/env bash
# The dependency rule, checked on every build (the build's check_layering target) and in CI:
# scripts/check_layering.py says which folder may include which, with no exemptions.
exec python3 "$(dirname "$0")/check_layering.py" "$@"
