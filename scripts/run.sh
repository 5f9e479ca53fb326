#!/usr/bin/env bash
# make run: the embedded default on this machine. Starts a private
# PostgreSQL under .run/pg (kept between runs), creates the event log, and
# shows what the log holds with det-replay.
#
# The master, the local provider and the sample experiment arrive with
# issue 4; until then this shows the event log end to end.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/.run"
url=$("$root/scripts/pg.sh" start "$root/.run/pg")
echo "PostgreSQL: $url (data in .run/pg; stop with: scripts/pg.sh stop .run/pg)"
db="${url%/*}/det"
psql "$url" -qAtc "SELECT 1 FROM pg_database WHERE datname = 'det'" | grep -q 1 \
  || psql "$url" -qc "CREATE DATABASE det"
if [ -x "$build/bin/det-master" ]; then
  exec "$build/bin/det-master" --config "$root/conf/master.yaml" --db "$db"
fi
"$build/tests/store_tool" try "$db" >/dev/null || true
echo "det-master is not built yet; the event log in database 'det':"
"$build/bin/det-replay" --db "$db"
