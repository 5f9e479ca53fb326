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
# That user must be able to reach DIR; a checkout under a folder only root
# may enter (a home directory of mode 0700) cannot give it that. Then what
# the server writes (data, socket, server.log) lives in
# /var/tmp/det-pg-<hash of DIR>, a folder of its own that stays between
# runs, and DIR keeps only the URL and a note of where the data is.
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

# Where the server's own files live (see above).
srv=$dir
if [ "$(id -u)" = 0 ]; then
  chown postgres "$dir"
  if ! runuser -u postgres -- test -w "$dir" -a -x "$dir" 2>/dev/null; then
    srv=/var/tmp/det-pg-$(printf '%s' "$dir" | sha256sum | cut -c1-16)
    mkdir -p "$srv"
    chown postgres "$srv"
    chmod 700 "$srv"
    echo "$srv" >"$dir/server_dir"
  fi
fi

case "$cmd" in
  start)
    if [ -f "$dir/url" ] && as_owner "$bindir/pg_ctl" -D "$srv/data" status >/dev/null 2>&1; then
      cat "$dir/url"; exit 0
    fi
    if [ ! -f "$srv/data/PG_VERSION" ]; then
      as_owner "$bindir/initdb" -D "$srv/data" -U postgres -A trust -E UTF8 \
        --no-locale >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    as_owner "$bindir/pg_ctl" -D "$srv/data" -l "$srv/server.log" -w -t 60 \
      -o "-p $port -k $srv -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB -c max_wal_size=2GB" \
      start >/dev/null || { tail -n 20 "$srv/server.log" >&2; exit 1; }
    echo "postgresql://postgres@127.0.0.1:$port/postgres" >"$dir/url"
    cat "$dir/url"
    ;;
  stop)
    if [ -f "$srv/data/PG_VERSION" ]; then
      as_owner "$bindir/pg_ctl" -D "$srv/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -f "$dir/url"
    ;;
  url)
    cat "$dir/url"
    ;;
  *)
    echo "pg.sh: unknown command '$cmd' (start, stop, url)" >&2; exit 2 ;;
esac
