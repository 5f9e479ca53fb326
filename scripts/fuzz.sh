#!/usr/bin/env bash
# Runs each libFuzzer target of fuzz/ for a bounded time on a working copy
# of its checked-in seed corpus (fuzz/corpus/<target>/ is never written).
#
#   scripts/fuzz.sh BUILD_DIR SECONDS TARGET...
#
# Per target, under BUILD_DIR/fuzz/run/<target>/: corpus/ (the seeds plus
# what earlier runs found; new inputs land here), dict (its dictionaries
# from fuzz/dict/), log (libFuzzer's output),
# and crash-*/leak-*/timeout-*/oom-* files for anything found. Every target
# runs even after one fails; the exit status is non-zero when any did, and
# the failing inputs are listed at the end. With FUZZ_FRESH=1 (make test)
# the working corpus starts again from the seeds, so the run's length does
# not grow with what earlier runs kept (libFuzzer reads its whole corpus
# before the time limit counts). FUZZ_JOBS targets run at a time (default
# 1; make test runs one per core): each still gets SECONDS of one core.
set -uo pipefail

build=$1; seconds=$2; shift 2
src=$(cd "$(dirname "$0")/.." && pwd)

# Longest input per target: room for a config file, an event, a frame, a
# request with headers over the 16 KiB header limit.
max_len() {
  case $1 in
    fuzz_master_config|fuzz_experiment_config) echo 16384 ;;
    fuzz_http_request) echo 20000 ;;
    *) echo 4096 ;;
  esac
}

# Dictionaries (fuzz/dict/): tokens the mutator would rarely build itself.
dicts() {
  case $1 in
    fuzz_master_config|fuzz_experiment_config) echo yaml json ;;
    fuzz_http_request) echo http json ;;
    *) echo json ;;
  esac
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$src/tests/lsan.supp}

# One target: its report on stdout, its exit status as the function's.
fuzz_one() {
  local t=$1 bin=$build/fuzz/$1 run=$build/fuzz/run/$1 seeds start rc took stats execs d
  [ "${FUZZ_FRESH:-0}" = 1 ] && rm -rf "$run/corpus"
  mkdir -p "$run/corpus"
  cp -n "$src/fuzz/corpus/$t/"* "$run/corpus/" 2>/dev/null || true
  seeds=$(ls "$run/corpus" | wc -l)
  for d in $(dicts "$t"); do cat "$src/fuzz/dict/$d.dict"; done >"$run/dict"
  start=$(date +%s)
  (cd "$run" && "$bin" -max_total_time="$seconds" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
      -max_len="$(max_len "$t")" \
      -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 -dict=dict \
      -artifact_prefix="$run/" corpus >log 2>&1)
  rc=$?
  took=$(( $(date +%s) - start ))
  stats=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$run/log" | tail -1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log")
  echo "== $t: ${seconds}s on $seeds inputs (log: $run/log)"
  echo "   ${took}s, $execs runs, rc=$rc; last: $stats"
  if [ $rc -ne 0 ]; then
    grep -E 'ERROR|runtime error|SUMMARY|Test unit written|fuzz_[a-z_]+:' "$run/log" | head -20 | sed 's/^/   /'
  fi
  return $rc
}

# FUZZ_JOBS targets at a time (each is one process on one core); each
# report is printed whole when its target ends.
jobs_=${FUZZ_JOBS:-1}
failed=()
declare -A pids=()
reap() {
  local done_pid=$1 rc=$2 t=${pids[$1]}
  cat "$build/fuzz/run/$t.report"
  rm -f "$build/fuzz/run/$t.report"
  [ "$rc" -ne 0 ] && failed+=("$t")
  unset "pids[$done_pid]"
}
mkdir -p "$build/fuzz/run"
for t in "$@"; do
  while [ ${#pids[@]} -ge "$jobs_" ]; do
    rc=0; wait -n -p done_pid "${!pids[@]}" || rc=$?
    reap "$done_pid" "$rc"
  done
  fuzz_one "$t" >"$build/fuzz/run/$t.report" 2>&1 &
  pids[$!]=$t
done
while [ ${#pids[@]} -gt 0 ]; do
  rc=0; wait -n -p done_pid "${!pids[@]}" || rc=$?
  reap "$done_pid" "$rc"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}; inputs:" >&2
  for t in "${failed[@]}"; do
    ls "$build/fuzz/run/$t/" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | sed "s|^|  $build/fuzz/run/$t/|" >&2
  done
  echo "fuzz: reproduce with: $build/fuzz/<target> <input>" >&2
  exit 1
fi
echo "fuzz: ok"
