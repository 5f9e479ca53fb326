#!/usr/bin/env bash
# What `make test` runs once its tree is built: every suite against the one
# sanitized tree (ASan+UBSan, unoptimised, asserts on), then the fuzz
# targets.
#
#   scripts/test.sh SAN_BUILD FUZZ_BUILD JOBS "PYTEST_DIRS" "FUZZERS"
#
# Stages, each announced with the time it starts:
#   1. ctest, all but the Kubernetes suites, with leak checking;
#   2. the pytest folders, one run each (each has its own conftest.py);
#      meanwhile the Kubernetes bed's programs (scripts/k8s-bed/build.sh)
#      and the clang fuzz tree build at low priority: the pytest suites
#      mostly wait on processes and leave about half the CPU idle;
#   3. the Kubernetes suites: ctest's bed fixture and tests/k8s;
#   4. each fuzz target for FUZZ_SECONDS from seed FUZZ_SEED.
# The first failure ends the run; a background build that failed shows its
# log's end. Leak checking is on for ctest and the fuzzers, and off for the
# programs the pytest suites start and stop (SIGTERM, SIGKILL in the chaos
# suite): their leaks at exit are ctest's to find, in tests that can say
# where.
# Environment: CTEST_ARGS, FUZZ_SECONDS (default 25), FUZZ_SEED (default 1),
# CHAOS_SEED (default 1).
set -euo pipefail

san=$1; fuzz=$2; jobs=$3; pytest_dirs=$4; fuzzers=$5
src=$(cd "$(dirname "$0")/.." && pwd)
logs=$san/test-logs
mkdir -p "$logs"

stage() { echo "== make test: $* from $(date -u +%T)"; }

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$src/tests/lsan.supp
export CHAOS_SEED=${CHAOS_SEED:-1}

background=()
stop_background() {
  local p
  for p in "${background[@]}"; do kill -- "-$p" 2>/dev/null || true; done
}
trap stop_background EXIT

# Waits for background job $1 (pid) named $2, whose log is $3.
await() {
  if ! wait "$1"; then
    echo "== make test: $2 failed; the end of $3:"
    tail -n 40 "$3"
    exit 1
  fi
}

stage "ctest under ASan+UBSan"
(cd "$san" && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j "$jobs" -LE k8s ${CTEST_ARGS:-})

stage "pytest suites (the Kubernetes bed and the fuzz tree build beside them)"
set -m # each background job in its own process group, killed whole
# The bed is needed first (stage 3), so it gets most of the idle CPU: nice
# 10 weighs about seven times nice 19 in the kernel's scheduler.
nice -n 10 bash "$src/scripts/k8s-bed/build.sh" >"$logs/k8s-bed-build.log" 2>&1 &
bed=$!; background+=("$bed")
(CC=clang CXX=clang++ cmake -S "$src" -B "$fuzz" -G Ninja -DDET_FUZZ=ON \
  && nice -n 19 cmake --build "$fuzz" -j "$jobs") >"$logs/fuzz-build.log" 2>&1 &
fuzzb=$!; background+=("$fuzzb")
set +m
for d in $pytest_dirs; do
  echo "== pytest $d"
  ASAN_OPTIONS=detect_leaks=0 DET_BUILD_DIR=$san \
    python3 -m pytest -q -p no:cacheprovider --durations=8 "$src/$d"
done

stage "kubernetes"
await "$bed" "the Kubernetes bed's build" "$logs/k8s-bed-build.log"
(cd "$san" && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -L k8s ${CTEST_ARGS:-})
ASAN_OPTIONS=detect_leaks=0 DET_BUILD_DIR=$san \
  python3 -m pytest -q -p no:cacheprovider --durations=8 "$src/tests/k8s"

stage "fuzzing"
await "$fuzzb" "the fuzz tree's build" "$logs/fuzz-build.log"
FUZZ_FRESH=1 FUZZ_SEED=${FUZZ_SEED:-1} \
  bash "$src/scripts/fuzz.sh" "$fuzz" "${FUZZ_SECONDS:-25}" $fuzzers

stage done
