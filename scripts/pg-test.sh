#!/usr/bin/env bash
# A throwaway PostgreSQL 15 on loopback, for the tests and the benchmarks.
#
#   scripts/pg-test.sh start   prints "URL DIR" (URL: postgres://postgres@127.0.0.1:PORT/postgres;
#                              DIR: the cluster's directory, to pass to stop)
#   scripts/pg-test.sh stop DIR  stops that server and removes DIR
#
# - postgresql-15 comes from Debian's packages, installed (as root) only when it is missing.
# - initdb refuses to run as root: as root the cluster is made and run by the `postgres` user
#   (the package creates it); as anyone else, by that user.
# - Loopback only (127.0.0.1), trust authentication, fsync, synchronous commit and full-page
#   writes off: a server for tests, fast and disposable, never for data anyone keeps.
# - The port: PG_TEST_PORT, or a free one picked at random (retried when another server takes it
#   first). The socket directory is DIR, so no access to the system's socket directory is needed.
set -euo pipefail

log() { echo "pg-test: $*" >&2; }

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

bindir() {
  # Debian's package puts the server under /usr/lib/postgresql/15/bin, off PATH.
  dirname "$(dpkg -L postgresql-15 | grep '/bin/initdb$')"
}

free_port() {
  node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })'
}

start() {
  if ! dpkg -s postgresql-15 >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ]; then
      log "postgresql-15 is not installed, and installing it needs root (apt-get install postgresql-15)"
      exit 1
    fi
    log "installing postgresql-15 from Debian's packages"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null
  fi
  local bin dir port attempt
  bin=$(bindir)
  dir=$(mktemp -d "${TMPDIR:-/tmp}/effect-read-pg-XXXXXX")
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
  as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C --no-sync >/dev/null
  for attempt in 1 2 3 4 5; do
    port=${PG_TEST_PORT:-$(free_port)}
    if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -s -t 60 -o \
      "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >&2; then
      echo "postgres://postgres@127.0.0.1:$port/postgres $dir"
      return 0
    fi
    log "could not start on port $port (attempt $attempt):"
    tail -n 5 "$dir/log" >&2 || true
    [ -n "${PG_TEST_PORT:-}" ] && break
  done
  rm -rf "$dir"
  exit 1
}

stop() {
  local dir="${1:?usage: pg-test.sh stop DIR}"
  [ -d "$dir/data" ] || { log "no cluster in $dir"; return 0; }
  as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m immediate -s stop >&2 || true
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: $0 start | stop DIR" >&2; exit 2 ;;
esac
