#!/usr/bin/env bash
# Installs everything the build, the tests and `make run` need on a fresh
# Debian 12 machine. Idempotent: a second run only checks.
set -euo pipefail

apt_pkgs=(
  build-essential cmake ninja-build ccache pkg-config git python3 python3-pip
  libcaf-dev libpqxx-dev libpq-dev nlohmann-json3-dev libyaml-cpp-dev
  libcurl4-openssl-dev libssl-dev libboost-dev libboost-system-dev libre2-dev
  libgtest-dev libgmock-dev postgresql postgresql-contrib clang-format wrk
  libspdlog-dev libcli11-dev libpugixml-dev libarchive-dev zlib1g-dev
  libjemalloc-dev
  clang libclang-rt-14-dev lld
)
# clang and libclang-rt-14-dev build the libFuzzer targets (make fuzz):
# the fuzzer runtime (libclang_rt.fuzzer) is in libclang-rt-14-dev, which
# clang only recommends, and recommends are not installed here. lld links
# the programs and tests (CMakeLists.txt, DET_LLD): GNU ld took six times
# as long for the sanitized ones.

# chromium: the WebUI's browser tests and bench drive Debian's
# /usr/bin/chromium through playwright-core (tests/webui); no test downloads
# a browser.
apt_pkgs+=(chromium)
# etcd-server: the Kubernetes test bed's etcd (tests/k8s/bed/bed.sh); its
# programs are built from the Go module proxy by tests/k8s/bed/build.sh
# with the machine's Go (1.24 or later, preinstalled on this kind of machine).
apt_pkgs+=(etcd-server)
# openssh-server and openssh-client: `det shell` runs /usr/sbin/sshd (and
# its sftp-server) under det-agent, and the CLI connects with ssh through
# the master's proxy (tests/e2e/test_cli_shells.py).
apt_pkgs+=(openssh-server openssh-client)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: apt-get install ${missing[*]}"
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Node.js and npm build the WebUI (webui/, `npm ci` from its lock file).
# A machine that already has a node (Debian's or another) keeps it; else
# Debian's nodejs and npm. Vite 5 needs Node 18 or later.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "install-deps: apt-get install nodejs npm"
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)' \
  || { echo "install-deps: Node.js $(node --version) is older than 18 (the WebUI's build needs 18+)" >&2; exit 1; }
go_=$(command -v go || echo /usr/local/go/bin/go)
if ! "$go_" version 2>/dev/null | grep -qE 'go1\.(2[4-9]|[3-9][0-9])'; then
  echo "install-deps: Go 1.24 or later is needed for the Kubernetes test bed (tests/k8s/bed/build.sh); found: $("$go_" version 2>&1 || true)" >&2
  exit 1
fi
# The distribution's PostgreSQL service is not used: tests and `make run`
# start private clusters (scripts/pg.sh).

# jupyterlab: notebooks run it under det-agent (about 35 s to install);
# websocket-client: the notebook e2e test talks to a kernel through the proxy.
# tensorboard: TensorBoard tasks run it under det-agent.
py_pkgs=(pytest pytest-xdist "moto[server]>=5" boto3 botocore cfn-lint "determined==0.38.1" prometheus_client jupyterlab websocket-client "tensorboard==2.21.0")
need_pip=0
python3 -c 'import pytest, xdist, moto, boto3, botocore, cfnlint, flask, prometheus_client, jupyterlab, websocket, tensorboard' 2>/dev/null || need_pip=1
python3 -c 'import determined, sys; sys.exit(0 if determined.__version__ == "0.38.1" else 1)' 2>/dev/null || need_pip=1
if [ $need_pip = 1 ]; then
  echo "install-deps: pip install ${py_pkgs[*]}"
  python3 -m pip install -q --disable-pip-version-check "${py_pkgs[@]}" 2>&1 | grep -v "^\(WARNING\|DEPRECATION\)" || true
  python3 -c 'import pytest, moto, boto3, determined, jupyterlab, websocket, tensorboard' || { echo "install-deps: pip packages failed to import" >&2; exit 1; }
fi
echo "install-deps: ok"
