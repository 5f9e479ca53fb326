#!/usr/bin/env bash
# A private PostgreSQL cluster in a directory of ours, never the system one.
#
#   scripts/pg.sh start DIR   initdb DIR/data if needed, start on a free port
#                             on 127.0.0.1 (socket in DIR), write the URL to
#                             DIR/url and print it
#   scripts/pg.sh stop DIR    stop it (fast shutdown); no error if not running
#   scripts/pg.sh url DIR     print the URL of a running cluster
#
# As root, the server runs as the "postgres" user (PostgreSQL refuses root).
set -euo pipefail

cmd=${1:?usage: pg.sh start|stop|url DIR}
dir=${2:?usage: pg.sh start|stop|url DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bindir/pg_ctl" ] || { echo "pg.sh: PostgreSQL server binaries not found under /usr/lib/postgresql (run scripts/install-deps.sh)" >&2; exit 1; }

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$cmd" in
  start)
    if [ -f "$dir/url" ] && as_owner "$bindir/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      cat "$dir/url"; exit 0
    fi
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 \
        --no-locale >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB -c max_wal_size=2GB" \
      start >/dev/null || { tail -n 20 "$dir/server.log" >&2; exit 1; }
    echo "postgresql://postgres@127.0.0.1:$port/postgres" >"$dir/url"
    cat "$dir/url"
    ;;
  stop)
    if [ -f "$dir/data/PG_VERSION" ]; then
      as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -f "$dir/url"
    ;;
  url)
    cat "$dir/url"
    ;;
  *)
    echo "pg.sh: unknown command '$cmd' (start, stop, url)" >&2; exit 2 ;;
esac
