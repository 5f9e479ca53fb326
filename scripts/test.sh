#!/usr/bin/env bash
# What `make test` runs once the dependencies and the WebUI bundle are in
# place: it builds the one sanitized tree (clang, ASan+UBSan, unoptimised,
# the fuzz targets in it too) and runs every suite against it.
#
#   scripts/test.sh SAN_BUILD JOBS "PYTEST_DIRS" "FUZZERS" CMAKE_COMMAND...
#
# Stages, each run through scripts/timed.py (its wall and CPU seconds land
# in DET_STAGES when that is set; .ci/run prints the table at its end):
#   0. the Kubernetes bed's programs (tests/k8s/bed/build.sh), in the
#      background from the very start at the lowest priority: a cold build
#      is about 1,600 CPU-seconds of Go, and it takes only what the compile
#      and the suites leave idle (the pytest suites mostly wait on
#      processes);
#   1. the build (a warning fails it in CI);
#   2. ctest, all but the Kubernetes suites, with leak checking;
#   3. the pytest folders, one run each (each has its own conftest.py),
#      tests/e2e and tests/deploy a module per core;
#   4. the Kubernetes suites: ctest's bed fixture and tests/k8s;
#   5. each fuzz target for FUZZ_SECONDS from seed FUZZ_SEED, a target per
#      core.
# The first failure ends the run; a background build that failed shows its
# log's end. Leak checking is on for ctest and the fuzzers, and off for the
# programs the pytest suites start and stop (SIGTERM, SIGKILL in the chaos
# suite): their leaks at exit are ctest's to find, in tests that can say
# where.
# Environment: CTEST_ARGS, FUZZ_SECONDS (default 25), FUZZ_SEED (default 1),
# CHAOS_SEED (default 1), CI (a warning fails the build).
set -euo pipefail

san=$1; jobs=$2; pytest_dirs=$3; fuzzers=$4; shift 4
src=$(cd "$(dirname "$0")/.." && pwd)
logs=$san/test-logs
mkdir -p "$logs"

stage() { echo "== make test: $* from $(date -u +%T)"; }
timed() { python3 "$src/scripts/timed.py" "$@"; }

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

set -m # each background job in its own process group, killed whole
nice -n 19 python3 "$src/scripts/timed.py" "k8s bed programs (background)" \
  bash "$src/tests/k8s/bed/build.sh" >"$logs/k8s-bed-build.log" 2>&1 &
bed=$!; background+=("$bed")
set +m

stage "build"
"$@" >/dev/null
timed "build: sanitized tree" bash -o pipefail -c \
  "cmake --build '$san' -j '$jobs' 2>&1 | tee '$san/build.log'"
if [ -n "${CI:-}" ] && grep -q 'warning:' "$san/build.log"; then
  echo "== make test: warnings are errors in CI:"
  grep -B2 -A6 'warning:' "$san/build.log" | head -n 80
  exit 1
fi

stage "ctest under ASan+UBSan"
(cd "$san" && ASAN_OPTIONS=detect_leaks=1 timed "ctest" \
  ctest --output-on-failure -j "$jobs" -LE k8s ${CTEST_ARGS:-})

stage "pytest suites (the Kubernetes bed builds beside them)"
# The folders whose modules are independent of each other (each starts its
# own clusters, databases, emulators and CLI homes, on ports it picks) run
# a module per worker, one worker a core (pytest-xdist): their tests mostly
# wait on processes, and run side by side they take about half the time.
xdist_dirs=" tests/e2e tests/deploy "
# A passing test's tmp_path is removed when it ends (a failing one's is
# kept to read): the suites copy binaries, model definitions and
# checkpoints, and a CI machine's disk is shared and sometimes nearly full.
pytest_opts=(-q -p no:cacheprovider --durations=8 -o tmp_path_retention_policy=failed)
for d in $pytest_dirs; do
  echo "== pytest $d"
  par=()
  [[ $xdist_dirs == *" $d "* ]] && par=(-n "$jobs" --dist loadfile)
  ASAN_OPTIONS=detect_leaks=0 DET_BUILD_DIR=$san \
    timed "pytest $d" python3 -m pytest "${pytest_opts[@]}" "${par[@]}" "$src/$d"
  # In CI, once the packaging tests (whose cpack links every target) are
  # done, the C++ test programs that have run are only weight: about 12 GB
  # of a sanitized tree, and the suites after this one start clusters,
  # databases and checkpoints on a shared disk. The Kubernetes ones run
  # later and stay.
  if [ -n "${CI:-}" ] && [ "$d" = tests/deploy ]; then
    find "$san/tests" -maxdepth 1 -type f -name '*_test' ! -name 'k8s_*' -delete
    df -h "$san" | tail -n 1 | awk '{print "== make test: disk: " $4 " free"}'
  fi
done

stage "kubernetes"
await "$bed" "the Kubernetes bed's build" "$logs/k8s-bed-build.log"
(cd "$san" && ASAN_OPTIONS=detect_leaks=1 timed "ctest kubernetes" \
  ctest --output-on-failure -L k8s ${CTEST_ARGS:-})
ASAN_OPTIONS=detect_leaks=0 DET_BUILD_DIR=$san \
  timed "pytest tests/k8s" python3 -m pytest "${pytest_opts[@]}" "$src/tests/k8s"

stage "fuzzing"
FUZZ_FRESH=1 FUZZ_SEED=${FUZZ_SEED:-1} FUZZ_JOBS=$jobs \
  timed "fuzzing" bash "$src/scripts/fuzz.sh" "$san" "${FUZZ_SECONDS:-25}" $fuzzers

stage done
