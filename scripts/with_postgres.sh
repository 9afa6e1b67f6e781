#!/usr/bin/env bash
# Runs a command next to a throwaway PostgreSQL server: starts one in a new temporary directory
# (127.0.0.1 only, a free port, trust authentication), creates the database `arbiter`, exports
# ARBITER_TEST_POSTGRES_URL, runs the command, then stops the server and removes everything.
# Usage: bash scripts/with_postgres.sh COMMAND [ARGS...]; exits with the command's status, or
# non-zero with the server's log when the server cannot be started.
# WITH_POSTGRES_LISTEN: more addresses to listen on (comma-separated; they must exist now);
# WITH_POSTGRES_HBA: lines added to pg_hba.conf (e.g. password logins from them). The command
# also gets ARBITER_TEST_POSTGRES_DATA and ARBITER_TEST_POSTGRES_BIN, to restart the server.
set -euo pipefail

if [[ $# -eq 0 ]]; then
  echo "usage: $0 COMMAND [ARGS...]" >&2
  exit 2
fi

pg_bin=${ARBITER_PG_BIN:-/usr/lib/postgresql/15/bin}
if [[ ! -x $pg_bin/initdb ]]; then
  echo "with_postgres: no PostgreSQL server binaries in $pg_bin (Debian package postgresql;" \
    "or set ARBITER_PG_BIN)" >&2
  exit 1
fi

# initdb and postgres refuse to run as root: as root, the server belongs to the postgres user.
as_server_user() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

dir=$(mktemp -d "${TMPDIR:-/tmp}/arbiter-pg-XXXXXX")
data=$dir/data
server_log=$dir/server.log

# shellcheck disable=SC2317  # run by the trap
cleanup() {
  # Whenever a server may be running, even one whose start timed out.
  if [[ -e $data/postmaster.pid ]]; then
    as_server_user "$pg_bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail_with_log() {
  echo "with_postgres: $1" >&2
  if [[ -f $server_log ]]; then
    echo "--- last lines of the server log ---" >&2
    tail -n 30 "$server_log" >&2
  fi
  exit 1
}

if [[ $(id -u) -eq 0 ]]; then
  chown postgres: "$dir"
fi
chmod 700 "$dir"

# The trap cannot run when this script is killed outright (a ctest timeout SIGKILLs the process
# tree, and the server, started by pg_ctl, is not in it). So a watchdog outside the tree, holding
# none of our output open, stops the server and removes the directory once this script is gone.
# shellcheck disable=SC2016
(setsid bash -c '
  while kill -0 "$1" 2>/dev/null; do sleep 1; done
  stop=("$2/pg_ctl" -D "$3/data" -m immediate -w stop)
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "${stop[@]}"; else "${stop[@]}"; fi
  rm -rf "$3"
' watchdog "$$" "$pg_bin" "$dir" </dev/null >/dev/null 2>&1 &)

if ! init_out=$(as_server_user "$pg_bin/initdb" -D "$data" -A trust -U postgres -E UTF8 \
    --no-locale --no-sync 2>&1); then
  echo "$init_out" >&2
  fail_with_log "initdb failed"
fi
if [[ -n ${WITH_POSTGRES_HBA:-} ]]; then
  printf '%s\n' "$WITH_POSTGRES_HBA" >>"$data/pg_hba.conf"
fi

free_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
  else
    echo $((20000 + RANDOM % 20000))
  fi
}

# The port is free when chosen but another process may take it before the server binds it, so a
# failed start is retried on a new port a few times.
port=
for _ in 1 2 3; do
  candidate=$(free_port)
  # The settings trade durability for speed: the data dies with this script anyway.
  if as_server_user "$pg_bin/pg_ctl" -D "$data" -l "$server_log" -w -t 30 -o \
      "-c listen_addresses=127.0.0.1${WITH_POSTGRES_LISTEN:+,$WITH_POSTGRES_LISTEN} -p $candidate -c unix_socket_directories=$dir \
       -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >/dev/null 2>&1; then
    port=$candidate
    break
  fi
  if ! grep -q "could not bind\|Address already in use" "$server_log" 2>/dev/null; then
    break
  fi
done
[[ -n $port ]] || fail_with_log "the server did not start"

"$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$port" -t 20 ||
  fail_with_log "the server does not accept connections on 127.0.0.1:$port"
"$pg_bin/createdb" -h 127.0.0.1 -p "$port" -U postgres arbiter ||
  fail_with_log "could not create the database arbiter"

export ARBITER_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:$port/arbiter"
export ARBITER_TEST_POSTGRES_DATA=$data ARBITER_TEST_POSTGRES_BIN=$pg_bin

set +e
"$@"
status=$?
set -e
exit $status
