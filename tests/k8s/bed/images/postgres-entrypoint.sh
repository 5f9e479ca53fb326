#!/usr/bin/env bash
# The process kubelet's stand-in for the `postgres` image's entrypoint (the
# chart's bundled database): Debian's PostgreSQL binaries, with the image's
# environment contract: PGDATA (initialised when empty), POSTGRES_USER,
# POSTGRES_PASSWORD, POSTGRES_DB, PGPORT; extra arguments go to postgres.
# Listens on 127.0.0.1 only (TCP; no Unix socket: a pod folder's path is
# longer than a socket path may be). As root the server runs as the `postgres`
# user, which must be able to reach PGDATA. SIGTERM is a fast shutdown.
set -euo pipefail
bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
: "${PGDATA:?PGDATA is not set}" "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is not set}"
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
port=${PGPORT:-5432}
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
mkdir -p "$PGDATA"
[ "$(id -u)" = 0 ] && chown postgres "$PGDATA" && chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pw=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pw"
  [ "$(id -u)" = 0 ] && chown postgres "$pw"
  as_pg "$bindir/initdb" -D "$PGDATA" -U "$user" --pwfile="$pw" -A scram-sha-256 -E UTF8 --no-locale >/dev/null
  rm -f "$pw"
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\" OWNER \"$user\";" | as_pg "$bindir/postgres" --single -D "$PGDATA" postgres >/dev/null
  fi
  echo "postgres-entrypoint: initialised $PGDATA (database $db, user $user)"
fi
as_pg "$bindir/postgres" -D "$PGDATA" -p "$port" -c listen_addresses=127.0.0.1 \
  -c unix_socket_directories= "$@" &
pg=$!
trap 'kill -INT $pg 2>/dev/null' TERM INT
set +e
while :; do
  wait $pg
  rc=$?
  kill -0 $pg 2>/dev/null || exit $rc
done
