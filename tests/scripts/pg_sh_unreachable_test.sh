#!/usr/bin/env bash
# scripts/pg.sh from a checkout the server's user cannot reach: as root the
# server runs as "postgres", and a clone under a 0700 home directory once
# made initdb fail with "Permission denied". The cluster must start, answer,
# keep its data across a restart, and stop. Skipped (77) when not root.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "not root: nothing to test"; exit 77; }
parent=$(mktemp -d /tmp/det-pg-private-XXXXXX)
chmod 700 "$parent"
dir="$parent/checkout/.run/pg"
cleanup() { "$root/scripts/pg.sh" stop "$dir" >/dev/null 2>&1 || true
            srv=$(cat "$dir/server_dir" 2>/dev/null || true)
            rm -rf "$parent"; [ -n "$srv" ] && rm -rf "$srv"; true; }
trap cleanup EXIT
runuser -u postgres -- test -x "$parent" && { echo "postgres can enter $parent: the test proves nothing"; exit 1; }
url=$("$root/scripts/pg.sh" start "$dir")
psql "$url" -qAtc "CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)"
"$root/scripts/pg.sh" stop "$dir"
url=$("$root/scripts/pg.sh" start "$dir")
got=$(psql "$url" -qAtc "SELECT v FROM kept")
[ "$got" = 42 ] || { echo "data not kept across a restart: '$got'"; exit 1; }
echo "ok: started from a 0700 parent, data kept across a restart"
