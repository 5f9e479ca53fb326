#!/usr/bin/env bash
# Builds the Kubernetes test bed's programs once, into a cache folder outside
# the repository keyed by their versions, and prints that folder's bin/.
#
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubectl
#       k8s.io/kubernetes through a wrapper module (the module's own go.mod
#       replaces its staging modules with ./staging paths, which `go install
#       pkg@version` refuses; the wrapper maps them to the published v0.x)
#   kwok, helm
#       `go install` as published
#
# A second run finds <cache>/bin/.complete and only prints the path. The cold
# build is about 1,600 CPU-seconds (two cores: 13-15 minutes). The Go build
# and module caches it fills (several GB) are private to the build and
# removed once the programs are in bin/: kept, they cost a CI machine's disk
# more than they would save on the rare version change.
# Environment: DET_TOOL_CACHE (default ~/.cache/det-tools), GO (default: go
# on PATH, else /usr/local/go/bin/go), K8S_BED_JOBS (go build -p, default 2).
set -euo pipefail

K8S_VERSION=v1.33.13
STAGING_VERSION=v0.33.13
KWOK_VERSION=v0.7.0
HELM_VERSION=v3.19.0

cache_root=${DET_TOOL_CACHE:-$HOME/.cache/det-tools}
dir=$cache_root/k8s-$K8S_VERSION-kwok-$KWOK_VERSION-helm-$HELM_VERSION
bin=$dir/bin
progs="kube-apiserver kube-controller-manager kube-scheduler kubectl kwok helm"
complete() {
  local p
  [ -f "$bin/.complete" ] || return 1
  for p in $progs; do [ -x "$bin/$p" ] || return 1; done
}
if complete; then
  echo "$bin"
  exit 0
fi

go_=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
[ -x "$go_" ] || { echo "k8s-bed build: no Go toolchain (scripts/install-deps.sh installs one)" >&2; exit 1; }
jobs=${K8S_BED_JOBS:-2}
mkdir -p "$bin" "$dir/src"
export GOFLAGS=-mod=mod GOBIN="$bin" GOTOOLCHAIN=local
export GOCACHE=$dir/go/cache GOMODCACHE=$dir/go/mod
log() { echo "k8s-bed build: $*" >&2; }

# --- the wrapper module for k8s.io/kubernetes -------------------------------
w=$dir/src/kube
mkdir -p "$w"
modfile=$("$go_" mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
[ -f "$modfile" ] || { log "cannot download k8s.io/kubernetes@$K8S_VERSION"; exit 1; }
staging=$(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$modfile")
{
  echo "module det.local/k8s-bed"
  echo
  echo "go 1.24.0"
  echo
  echo "godebug default=go1.24"
  echo
  echo "require k8s.io/kubernetes $K8S_VERSION"
  echo
  echo "replace ("
  for m in $staging; do
    case $m in
      k8s.io/sample-*)
        # Not published on the module proxy and not needed by the programs
        # built here: an empty local stand-in satisfies the module graph.
        mkdir -p "$w/stub/${m#k8s.io/}"
        echo "module $m" >"$w/stub/${m#k8s.io/}/go.mod"
        echo "	$m => ./stub/${m#k8s.io/}"
        ;;
      *) echo "	$m => $m $STAGING_VERSION" ;;
    esac
  done
  echo ")"
} >"$w/go.mod"
cat >"$w/tools.go" <<'EOF'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
EOF

ver_pkg=k8s.io/component-base/version
minor=$(echo "$K8S_VERSION" | cut -d. -f2)
ldflags="-s -w -X $ver_pkg.gitVersion=$K8S_VERSION -X $ver_pkg.gitMajor=1 \
-X $ver_pkg.gitMinor=$minor -X $ver_pkg.gitTreeState=clean \
-X $ver_pkg.buildDate=1970-01-01T00:00:00Z"
(
  cd "$w"
  log "resolving the module graph"
  "$go_" mod tidy -e >/dev/null 2>&1 || true
  for prog in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    [ -x "$bin/$prog" ] && continue
    log "building $prog $K8S_VERSION"
    CGO_ENABLED=0 "$go_" build -p "$jobs" -trimpath -ldflags "$ldflags" \
      -o "$bin/$prog.tmp" "k8s.io/kubernetes/cmd/$prog"
    # (go build has been seen to write kubectl under its own name here)
    [ -f "$bin/$prog.tmp" ] && mv "$bin/$prog.tmp" "$bin/$prog"
    [ -x "$bin/$prog" ] || { log "$prog was not built"; exit 1; }
  done
)

# --- kwok and helm, as published --------------------------------------------
if [ ! -x "$bin/kwok" ]; then
  log "building kwok $KWOK_VERSION"
  CGO_ENABLED=0 "$go_" install -p "$jobs" -trimpath -ldflags "-s -w" \
    "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
fi
if [ ! -x "$bin/helm" ]; then
  log "building helm $HELM_VERSION"
  CGO_ENABLED=0 "$go_" install -p "$jobs" -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" \
    "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
fi

"$bin/kube-apiserver" --version >&2
touch "$bin/.complete"
# The module cache is read-only (go's own choice): clean asks go to remove
# it; what is left is made writable first. A failed clean-up only costs disk.
"$go_" clean -modcache >/dev/null 2>&1 || true
chmod -R u+w "$dir/go" "$dir/src" 2>/dev/null || true
rm -rf "$dir/go" "$dir/src" || true
echo "$bin"
