# The two set-up commands for a fresh Debian machine are `make run` and
# `make test`; both install what they need first (scripts/install-deps.sh).

BUILD      ?= build
BUILD_SAN  ?= build-asan
# Seconds per fuzz target: `make fuzz`, and the shorter run in `make test`.
FUZZ_SECONDS      ?= 30
FUZZ_TEST_SECONDS ?= 25
# make test fuzzes from a fixed seed: every run tries the same inputs in the
# same order (how far it gets in the time depends on the machine), so a
# crash it finds is there on every run, not one run in ten.
FUZZ_TEST_SEED    ?= 1
FUZZ_FRESH        ?= 0
FUZZ_SEED         ?=
FUZZERS := fuzz_master_config fuzz_experiment_config fuzz_event_decode \
           fuzz_agent_protocol fuzz_http_request fuzz_k8s_api
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
CTEST_ARGS ?=

.PHONY: all deps configure build build-all package webui test test-build test-unit test-sanitize test-e2e test-k8s chaos fuzz fuzz-build bench run clean format-check check-layers

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(if $(CI),-DDET_WERROR=ON) $(CMAKE_ARGS)

configure: $(BUILD)/CMakeCache.txt

# The release build: the programs (build/bin) and the WebUI's bundle. The
# tests and benchmarks of the same tree are built by the targets that run
# them (test-unit, test-e2e, bench, package's checks).
PROGRAMS := det-master det-agent det-replay det-inspect det-deploy
build: deps configure webui
	cmake --build $(BUILD) -j $(JOBS) --target $(PROGRAMS)

# Everything in the release tree: programs, tests and benchmarks.
build-all: deps configure webui
	cmake --build $(BUILD) -j $(JOBS)

# The determined-master .deb (cmake/Packaging.cmake) in $(BUILD)/package,
# where det-deploy (build/bin) finds it to stage when `up` has no --package.
package: build
	cpack -G DEB --config $(BUILD)/CPackConfig.cmake -B $(abspath $(BUILD))/package

# The WebUI's bundle (webui/, docs/webui.md) into $(BUILD)/webui, where
# det-master finds it: `npm ci` when the lock file changed, the build when
# a source changed; nothing when neither did.
WEBUI_SOURCES := $(shell find webui/src -type f 2>/dev/null) webui/index.html \
                 webui/vite.config.ts webui/tsconfig.json webui/package.json
webui: $(BUILD)/webui/index.html

webui/node_modules/.installed: webui/package-lock.json
	cd webui && python3 ../scripts/timed.py "webui: npm ci" npm ci --no-audit --no-fund --loglevel=error
	@touch $@

%/webui/index.html: webui/node_modules/.installed $(WEBUI_SOURCES)
	cd webui && python3 ../scripts/timed.py "webui: bundle" npm run --silent build -- --outDir $(abspath $*)/webui --emptyOutDir --logLevel warn

# Every test, against one tree built with ASan+UBSan ($(BUILD_SAN), a
# warning fails it in CI): the C++ suites (unit, integration against a
# private PostgreSQL), the pytest suites, the Kubernetes suites, then each
# fuzz target for FUZZ_TEST_SECONDS in the clang tree. The stages and why
# they run in that order: scripts/test.sh, which prints the time each
# starts. `make test-unit` and `make test-e2e` run suites against the
# normal tree instead.
test: check-layers deps $(BUILD_SAN)/webui/index.html
	@CTEST_ARGS='$(CTEST_ARGS)' FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) \
	  FUZZ_SEED=$(FUZZ_TEST_SEED) CHAOS_SEED=$${CHAOS_SEED:-$(CHAOS_TEST_SEED)} \
	  bash scripts/test.sh $(abspath $(BUILD_SAN)) \
	  $(JOBS) "$(PYTEST_DIRS)" "$(FUZZERS)" $(SAN_CMAKE)

# make test's tree, with the WebUI bundle the WebUI suite serves: clang
# with ASan+UBSan, and the libFuzzer targets built in the same tree (one
# compile serves the suites and the fuzzers), in unity batches of
# SAN_UNITY_BATCH sources (cold, larger batches compile faster; docs/
# testing.md has the figures). In CI a warning fails the build: read from
# the build's output rather than set with -Werror, so the compile commands
# (and the compiler cache's keys) are the same in CI and out of it, and a
# cached object's warning still shows (ccache replays what the compiler
# printed).
SAN_UNITY_BATCH ?= 16
SAN_CMAKE = cmake -S . -B $(BUILD_SAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DDET_SANITIZE=ON \
	  -DDET_FUZZ=ON -DDET_BENCH=OFF -DDET_UNITY_BATCH=$(SAN_UNITY_BATCH) $(CMAKE_ARGS)
test-build: deps $(BUILD_SAN)/webui/index.html
	$(SAN_CMAKE) >/dev/null
	bash -o pipefail -c 'cmake --build $(BUILD_SAN) -j $(JOBS) 2>&1 | tee $(BUILD_SAN)/build.log'
	@if [ -n "$(CI)" ] && grep -q 'warning:' $(BUILD_SAN)/build.log; then \
	  echo "== make test: warnings are errors in CI:"; \
	  grep -B2 -A6 'warning:' $(BUILD_SAN)/build.log | head -n 80; exit 1; fi

test-unit: build-all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L unit $(CTEST_ARGS)

# pytest suites that drive real processes: every program's command line
# and the documents' paths (tests/cmd), det-deploy templates and packaging
# (tests/deploy), the end-to-end cluster (tests/e2e) and the aws
# provisioner against moto (tests/provisioner), and the chaos suite
# (tests/chaos: the master SIGKILLed CHAOS_KILLS times, 50 unless set,
# during a mixed workload; docs/chaos.md), and the WebUI in Debian's
# Chromium (tests/webui). Those that start masters share tests/harness/.
# One pytest run per folder: each has its own conftest.py, and test modules
# import theirs by name (`from conftest import ...`).
# The chaos suite here replays a fixed seed's decisions (CHAOS_TEST_SEED),
# as the fuzz stage does: what it finds it finds on every run; `make
# chaos` draws a new seed each time.
PYTEST_DIRS := $(wildcard tests/cmd tests/deploy tests/e2e tests/webui tests/provisioner tests/chaos)
CHAOS_TEST_SEED ?= 1
test-e2e: build-all
	@set -e; for d in $(PYTEST_DIRS); do \
	  echo "== pytest $$d"; \
	  CHAOS_SEED=$${CHAOS_SEED:-$(CHAOS_TEST_SEED)} DET_BUILD_DIR=$(abspath $(BUILD)) \
	    python3 -m pytest -q -p no:cacheprovider $$d; \
	done

# The Kubernetes suites (tests/k8s, docs/kubernetes.md): a real API server,
# controller-manager and scheduler with kwok's fake nodes and the process
# kubelet, and the Helm chart. Their programs are built once into
# DET_TOOL_CACHE, default ~/.cache/det-tools (tests/k8s/bed/build.sh: about
# 15 minutes on two cores the first time, nothing after).
test-k8s: build
	@bash tests/k8s/bed/build.sh >/dev/null
	DET_BUILD_DIR=$(abspath $(BUILD)) python3 -m pytest -q -p no:cacheprovider tests/k8s

# The chaos suite alone, longer: 200 master kills unless CHAOS_KILLS says
# otherwise; CHAOS_SEED=N replays a run's decisions (docs/chaos.md).
CHAOS_KILLS ?= 200
chaos: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target det-master det-agent det-replay
	CHAOS_KILLS=$(CHAOS_KILLS) CHAOS_SEED=$(CHAOS_SEED) DET_BUILD_DIR=$(abspath $(BUILD)) \
	  python3 -m pytest -q -p no:cacheprovider tests/chaos

# The C++ suites alone under ASan+UBSan, in make test's tree.
test-sanitize: test-build
	cd $(BUILD_SAN) && ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp) UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# libFuzzer targets (fuzz/, docs/fuzzing.md), built in make test's tree:
# only the fuzz targets and the libraries they link.
fuzz-build: deps
	$(SAN_CMAKE) >/dev/null
	cmake --build $(BUILD_SAN) -j $(JOBS) --target fuzzers

# Each target for FUZZ_SECONDS on a copy of its seed corpus; a crash fails
# the run and leaves its input under $(BUILD_SAN)/fuzz/run/<target>/.
fuzz: fuzz-build
	@FUZZ_FRESH=$(FUZZ_FRESH) FUZZ_SEED=$(FUZZ_SEED) bash scripts/fuzz.sh $(abspath $(BUILD_SAN)) $(FUZZ_SECONDS) $(FUZZERS)

bench: build-all
	@bash scripts/bench.sh $(abspath $(BUILD))

# Builds only the programs it starts (the master and the agents its local
# pool launches), not the tests and benchmarks.
run: deps configure webui
	cmake --build $(BUILD) -j $(JOBS) --target det-master det-agent
	@bash scripts/run.sh $(abspath $(BUILD))

clean:
	rm -rf $(BUILD) $(BUILD_SAN)

# The floors of the design: a folder includes only the folders below it.
check-layers:
	@python3 scripts/check-layers.py

format-check:
	git ls-files '*.cpp' '*.hpp' | xargs clang-format --dry-run --Werror
