#!/usr/bin/env bash
# Installs the Debian packages arbiter needs to build, test and benchmark. Idempotent: quiet and
# fast when everything is already there. Needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  nlohmann-json3-dev libfmt-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 scowl curl
  libsqlite3-dev libpqxx-dev libpq-dev postgresql libtomlplusplus-dev zlib1g-dev
  liblua5.4-dev libseccomp-dev
  libcpp-httplib-dev chromium chromium-driver python3-selenium
  cadical clang-format
  libarchive-dev libssl-dev openssl
  # The starter kits' toolchains (bots/kits/): their bots are built and checked by the tests.
  nodejs openjdk-17-jdk-headless rustc golang-go racket
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${#missing[@]} Debian package(s): ${missing[*]}" >&2
echo "setup: this takes a few minutes on a fresh machine (apt-get update, then the download)" >&2
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
echo "setup: updating the package lists" >&2
"${sudo_cmd[@]}" apt-get update -qq >/dev/null
echo "setup: downloading and installing" >&2
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
