#!/usr/bin/env bash
# make run: the whole system on this machine, no cloud account. Starts a
# private PostgreSQL under .run/pg (kept between runs), det-master with
# conf/master.yaml (a local pool: det-agent processes started on demand),
# submits examples/linear_regression, follows it until it ends, prints a
# summary and stops the master (and the local agents it started).
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
port=${DET_RUN_PORT:-8080}
master="http://127.0.0.1:$port"
example="$root/examples/linear_regression"
mkdir -p "$root/.run"

url=$("$root/scripts/pg.sh" start "$root/.run/pg")
echo "PostgreSQL: data in .run/pg (stop with: scripts/pg.sh stop .run/pg)"
db="${url%/*}/det"
psql "$url" -qAtc "SELECT 1 FROM pg_database WHERE datname = 'det'" | grep -q 1 \
  || psql "$url" -qc "CREATE DATABASE det"

[ -x "$build/bin/det-master" ] || { echo "run.sh: $build/bin/det-master is not built" >&2; exit 1; }
[ -d "$example" ] || { echo "run.sh: $example is missing" >&2; exit 1; }

log="$root/.run/det-master.log"
"$build/bin/det-master" --config "$root/conf/master.yaml" --db "$db" \
  --listen 127.0.0.1 --port "$port" >"$log" 2>&1 &
master_pid=$!
work_dir=$(sed -n 's/^ *work_dir: *//p' "$root/conf/master.yaml" | head -n 1)
work_dir=${work_dir:-/tmp/det-local-agents}
stop_all() {
  kill -TERM "$master_pid" 2>/dev/null && wait "$master_pid" 2>/dev/null || true
  # The master leaves its local agents running (a restarted master adopts
  # them); make run is over, so stop them too: only this cluster's, in the
  # folder whose owner file names its host owner id (docs/security.md).
  local owner
  owner=$(psql "$db" -qAtc "SELECT value FROM cluster_secrets WHERE name = 'host_owner'" 2>/dev/null || true)
  [ -n "$owner" ] || return 0
  for d in "$work_dir"/*/; do
    [ "$(head -n 1 "$d/owner" 2>/dev/null)" = "$owner" ] || continue
    for f in "$d"local-*/pid; do
      [ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null || true
    done
  done
}
trap stop_all EXIT
echo "det-master: pid $master_pid, log in .run/det-master.log, API on $master"
echo "WebUI: open $master/det/ in a browser (user admin, blank password)"

# Wait for the master to answer (it may first wait for the log's lock).
for _ in $(seq 1 300); do
  curl -sf "$master/info" >/dev/null 2>&1 && break
  kill -0 "$master_pid" 2>/dev/null || { echo "det-master exited:"; tail -n 20 "$log"; exit 1; }
  sleep 0.2
done

config=$(ls "$example"/*.yaml | head -n 1)
exp=$(python3 "$root/scripts/submit.py" --master "$master" "$config" "$example")
echo "submitted experiment $exp ($config); watch it at $master/experiments/$exp"

python3 - "$master" "$exp" "$root/scripts" <<'PY'
import json, sys, time, urllib.request
master, exp = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
import submit  # scripts/submit.py: login()
token = submit.login(master)
def get(path):
    req = urllib.request.Request(master + path, headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)
last = None
ended = {"STATE_COMPLETED", "STATE_CANCELED", "STATE_ERROR", "STATE_DELETED"}
while True:
    e = get(f"/api/v1/experiments/{exp}")["experiment"]
    trials = get(f"/api/v1/experiments/{exp}/trials")["trials"]
    lines = [f"experiment {exp}: {e['state']} progress {e.get('progress', 0):.0%}"]
    for t in trials:
        val = (t.get("latestValidation") or {}).get("metrics", {}).get("avgMetrics")
        train = (t.get("summaryMetrics") or {}).get("avg_metrics")
        lines.append(f"  trial {t['id']}: {t['state']} batches {t['totalBatchesProcessed']}"
                     + (f" training {json.dumps(train)}" if train else "")
                     + (f" validation {json.dumps(val)}" if val else ""))
    if lines != last:
        print(time.strftime("%H:%M:%S"), "\n".join(lines), flush=True)
        last = lines
    if e["state"] in ended:
        break
    time.sleep(2)
print("\nsummary:")
for t in trials:
    print(f"  trial {t['id']} {t['state']} after {t['totalBatchesProcessed']} batches,"
          f" best {t.get('searcherMetricValue', 'n/a')},"
          f" checkpoint {(t.get('bestCheckpoint') or {}).get('uuid', 'none')}")
print(f"experiment {exp} ended {e['state']}")
PY

# At a terminal the master stays up, so the finished experiment can be
# looked at in the WebUI; Ctrl-C stops it (and the local agents). Without
# a terminal (scripts, CI), or with DET_RUN_KEEP=0, make run ends here.
if [ -t 0 ] && [ "${DET_RUN_KEEP:-1}" != 0 ]; then
  echo
  echo "The WebUI stays up at $master/det/experiments/$exp (user admin, blank password); Ctrl-C stops the master."
  wait "$master_pid" || true
fi
