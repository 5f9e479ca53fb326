#!/usr/bin/env bash
# make bench: runs every benchmark program in BUILD/bin/bench-* and bench_* against a
# private PostgreSQL (fsync on, default synchronous_commit), printing one
# JSON line per result.
set -euo pipefail
build=${1:?usage: bench.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
pgdir="$build/bench-pg"
url=$("$root/scripts/pg.sh" start "$pgdir")
trap '"$root/scripts/pg.sh" stop "$pgdir"' EXIT
export DET_BENCH_PG_URL="$url"
status=0
for b in "$build"/bin/bench[-_]*; do
  [ -x "$b" ] || continue
  echo "# $(basename "$b")" >&2
  "$b" || { echo "{\"bench\":\"$(basename "$b")\",\"error\":\"exited with $?\"}"; status=1; }
done
# Python benchmarks (the whole system end to end).
for b in "$root"/bench/*/run.py; do
  [ -f "$b" ] || continue
  echo "# $b" >&2
  python3 "$b" "$build" || { echo "{\"bench\":\"$b\",\"error\":\"failed\"}"; status=1; }
done
exit $status
