#!/usr/bin/env bash
# The C++ lines changed since scripts/format-base (a commit) are formatted as .clang-format says:
# git clang-format compares them with what clang-format would make of them. Lines older than
# the base are left as they are until they change. Prints the changes it would make and exits 1
# if there are any; `git clang-format $(cat scripts/format-base)` makes them.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "check_format: not a git checkout, so no changed lines can be told (clone the repository)" >&2
  exit 1
fi
base=$(cat scripts/format-base)
if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
  echo "check_format: the base commit $base is not in this clone (fetch its history)" >&2
  exit 1
fi
diff=$(git clang-format --binary "$(command -v clang-format)" --diff --extensions h,cpp "$base" -- \
  src tests bench bots fuzz 2>&1) || true
case "$diff" in
  "" | "no modified files to format" | "clang-format did not modify any files") exit 0 ;;
esac
echo "$diff"
echo "check_format: the lines above are not formatted as .clang-format says; run:" \
  "git clang-format $base" >&2
exit 1
