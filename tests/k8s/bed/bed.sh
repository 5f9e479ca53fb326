#!/usr/bin/env bash
# The Kubernetes test bed: a real control plane on 127.0.0.1 (etcd, the
# kube-apiserver, kube-controller-manager, kube-scheduler) plus kwok for fake
# nodes, all as local processes under one state folder.
#
#   bed.sh build           build the programs once (build.sh), print bin/
#   bed.sh up   [DIR]      certificates, processes, fake nodes, kubeconfig
#   bed.sh down [DIR]      stop every process the bed started, keep DIR
#   bed.sh env  [DIR]      print the bed's env file (source it)
#   bed.sh restart-apiserver [DIR]
#                          kill the kube-apiserver, compact etcd to its
#                          current revision, start it again: every watch is
#                          cut, and one resumed from a resourceVersion seen
#                          before gets the real server's 410 Gone
#
# DIR defaults to $K8S_BED_DIR, else .run/k8s-bed in the repository. `up`
# writes DIR/kubeconfig (the admin: client certificate in system:masters),
# DIR/admin-token (the same rights as a static bearer token), DIR/pki/ and
# DIR/bed.env (KUBECONFIG, K8S_BED_* ports, K8S_BED_BIN). Ports come from
# K8S_BED_ETCD_PORT (2379), K8S_BED_ETCD_PEER_PORT (2380),
# K8S_BED_APISERVER_PORT (6443), K8S_BED_KWOK_PORT (10250),
# K8S_BED_KUBELET_PORT (10350); pass free ports to run several beds side by
# side. Every process runs in its own process
# group whose id is in DIR/pids/<name>.pid; `down` sends SIGTERM to each
# group, waits up to 10 s, then SIGKILL, so nothing is left behind.
#
# Fake nodes (kwok manages Nodes annotated kwok.x-k8s.io/node=fake; pods on
# them go Running at once and never execute): kwok-gpu-0 and kwok-gpu-1
# (8 nvidia.com/gpu, 32 CPU), kwok-cpu-0 (16 CPU), kwok-cpu-tainted (16 CPU,
# taint det-bed/dedicated=special:NoSchedule). All carry label det-bed=kwok.
# K8S_BED_KWOK_NODES=0 leaves them (and kwok) out.
#
# Process nodes (process_kubelet.py: pods on them run as local processes):
# det-proc-gpu-0 (4 nvidia.com/gpu, 8 CPU) and det-proc-cpu-0 (8 CPU), label
# det-bed=process; K8S_BED_PROCESS_NODES changes them ("" for none) and
# K8S_BED_KUBELET_ARGS passes more options (--image NAME=CMD, --bin N=PATH).
# Its log is DIR/logs/process-kubelet.log, its pods' files DIR/kubelet/.
#
# The scheduler has two profiles: default-scheduler and coscheduler (the
# coscheduler plugin is not available here; the profile only places pods).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
cmd=${1:-}
dir=${2:-${K8S_BED_DIR:-$repo/.run/k8s-bed}}
log() { echo "k8s-bed: $*" >&2; }

etcd_port=${K8S_BED_ETCD_PORT:-2379}
etcd_peer_port=${K8S_BED_ETCD_PEER_PORT:-2380}
api_port=${K8S_BED_APISERVER_PORT:-6443}
kwok_port=${K8S_BED_KWOK_PORT:-10250}
kubelet_port=${K8S_BED_KUBELET_PORT:-10350}
# The process kubelet's nodes (process_kubelet.py --node syntax), blank for
# none; K8S_BED_KUBELET_ARGS adds its --image/--bin maps.
proc_nodes=${K8S_BED_PROCESS_NODES-det-proc-gpu-0:gpu=4,cpu=8 det-proc-cpu-0:cpu=8}
kwok_nodes=${K8S_BED_KWOK_NODES:-1}

start() { # name cmd...: start in a new process group, log to DIR/logs/name.log
  local name=$1; shift
  setsid "$@" >"$dir/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/pids/$name.pid"
}

wait_for() { # what seconds command...: poll until the command succeeds;
  # fails at once when `what` names a started process that has exited
  local what=$1 secs=$2 i; shift 2
  for ((i = 0; i < secs * 10; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    if [ -f "$dir/pids/$what.pid" ] && ! kill -0 "$(cat "$dir/pids/$what.pid")" 2>/dev/null; then
      log "$what exited; the end of $dir/logs/$what.log:"
      tail -n 5 "$dir/logs/$what.log" >&2
      return 1
    fi
    sleep 0.1
  done
  log "$what did not come up in ${secs}s; see $dir/logs/"
  return 1
}

stop_all() {
  local f pg i alive
  [ -d "$dir/pids" ] || return 0
  for f in "$dir"/pids/*.pid; do
    [ -f "$f" ] || continue
    pg=$(cat "$f")
    kill -TERM -- "-$pg" 2>/dev/null || true
  done
  for ((i = 0; i < 100; i++)); do
    alive=0
    for f in "$dir"/pids/*.pid; do
      [ -f "$f" ] || continue
      kill -0 -- "-$(cat "$f")" 2>/dev/null && alive=1
    done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for f in "$dir"/pids/*.pid; do
    [ -f "$f" ] || continue
    kill -KILL -- "-$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
  done
}

make_pki() {
  local p=$dir/pki
  mkdir -p "$p"
  cd "$p"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=det-k8s-bed-ca" \
    -keyout ca.key -out ca.crt 2>/dev/null
  cert() { # name subject [sans]: a certificate signed by the bed's CA
    local name=$1 subj=$2 sans=${3:-}
    openssl req -newkey rsa:2048 -nodes -subj "$subj" -keyout "$name.key" -out "$name.csr" 2>/dev/null
    if [ -n "$sans" ]; then
      printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$sans" >"$name.ext"
    else
      printf 'extendedKeyUsage=clientAuth\n' >"$name.ext"
    fi
    openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
      -extfile "$name.ext" -out "$name.crt" 2>/dev/null
    rm -f "$name.csr" "$name.ext"
  }
  cert apiserver "/CN=kube-apiserver" \
    "IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert admin "/O=system:masters/CN=det-bed-admin"
  cert kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
  cert kubelet "/CN=det-bed-kubelet" "IP:127.0.0.1,DNS:localhost"
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  openssl rand -hex 24 >"$dir/admin-token"
  echo "$(cat "$dir/admin-token"),det-bed-admin,det-bed-admin,system:masters" >tokens.csv
  chmod 600 ./*.key tokens.csv "$dir/admin-token"
  cd - >/dev/null
}

write_kubeconfig() {
  cat >"$dir/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: det-bed
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority: $dir/pki/ca.crt
users:
- name: det-bed-admin
  user:
    client-certificate: $dir/pki/admin.crt
    client-key: $dir/pki/admin.key
contexts:
- name: det-bed
  context: {cluster: det-bed, user: det-bed-admin, namespace: default}
current-context: det-bed
EOF
  chmod 600 "$dir/kubeconfig"
}

fake_nodes() {
  local n gpu cpu taint
  for spec in "kwok-gpu-0 8 32 -" "kwok-gpu-1 8 32 -" "kwok-cpu-0 0 16 -" \
    "kwok-cpu-tainted 0 16 det-bed/dedicated=special"; do
    read -r n gpu cpu taint <<<"$spec"
    cat <<EOF
---
apiVersion: v1
kind: Node
metadata:
  name: $n
  annotations: {kwok.x-k8s.io/node: fake, node.alpha.kubernetes.io/ttl: "0"}
  labels: {det-bed: kwok, type: kwok, kubernetes.io/hostname: $n, kubernetes.io/os: linux, kubernetes.io/arch: amd64}
spec:
EOF
    if [ "$taint" != - ]; then
      echo "  taints: [{key: ${taint%%=*}, value: ${taint#*=}, effect: NoSchedule}]"
    fi
    local res="{cpu: \"$cpu\", memory: 128Gi, pods: \"110\""
    [ "$gpu" != 0 ] && res="$res, nvidia.com/gpu: \"$gpu\""
    res="$res}"
    cat <<EOF
status:
  allocatable: $res
  capacity: $res
EOF
  done
}

start_apiserver() { # bin: the kube-apiserver on $api_port, waited for
  local bin=$1 p=$dir/pki
  start kube-apiserver "$bin/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$etcd_port" --etcd-prefix=/registry \
    --bind-address=127.0.0.1 --secure-port="$api_port" --advertise-address=127.0.0.1 \
    --tls-cert-file="$p/apiserver.crt" --tls-private-key-file="$p/apiserver.key" \
    --client-ca-file="$p/ca.crt" --token-auth-file="$p/tokens.csv" \
    --kubelet-client-certificate="$p/kubelet-client.crt" --kubelet-client-key="$p/kubelet-client.key" \
    --kubelet-preferred-address-types=InternalIP \
    --service-account-key-file="$p/sa.pub" --service-account-signing-key-file="$p/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-cluster-ip-range=10.96.0.0/16 --service-node-port-range=30000-32767 \
    --authorization-mode=Node,RBAC --endpoint-reconciler-type=none \
    --enable-priority-and-fairness=false --allow-privileged=true
  wait_for kube-apiserver 60 curl -fsS --cacert "$p/ca.crt" --cert "$p/admin.crt" --key "$p/admin.key" \
    "https://127.0.0.1:$api_port/readyz"
}

restart_apiserver() {
  # shellcheck disable=SC1091 # the bed's own env file
  . "$dir/bed.env"
  api_port=$K8S_BED_APISERVER_PORT etcd_port=$K8S_BED_ETCD_PORT
  local pg i rev
  pg=$(cat "$dir/pids/kube-apiserver.pid")
  kill -KILL -- "-$pg" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    kill -0 -- "-$pg" 2>/dev/null || break
    sleep 0.1
  done
  # One write outside the API's keys moves the revision past every
  # resourceVersion a client has seen; compacted there while no API server
  # runs, the new one cannot serve any of them: each resumed watch is
  # answered 410.
  rev=$(curl -fsS "http://127.0.0.1:$etcd_port/v3/kv/put" \
    -d "{\"key\":\"$(printf /det-bed/bump | base64)\",\"value\":\"$(date +%s%N | base64)\"}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["header"]["revision"])')
  curl -fsS "http://127.0.0.1:$etcd_port/v3/kv/compaction" \
    -d "{\"revision\":\"$rev\",\"physical\":true}" >/dev/null
  start_apiserver "$K8S_BED_BIN"
  log "kube-apiserver restarted; etcd compacted at revision $rev"
}

up() {
  local bin
  bin=$("$here/build.sh")
  mkdir -p "$dir/logs" "$dir/pids"
  stop_all
  rm -rf "$dir/etcd" "$dir/pki" "$dir/kubelet"
  local t0=$SECONDS
  make_pki
  write_kubeconfig
  start etcd etcd --name det-bed --data-dir "$dir/etcd" --unsafe-no-fsync \
    --listen-client-urls "http://127.0.0.1:$etcd_port" \
    --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer_port" \
    --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
    --initial-cluster "det-bed=http://127.0.0.1:$etcd_peer_port"
  wait_for etcd 20 curl -fsS "http://127.0.0.1:$etcd_port/health"
  local p=$dir/pki
  start_apiserver "$bin"
  start kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig="$dir/kubeconfig" --authentication-kubeconfig="$dir/kubeconfig" \
    --authorization-kubeconfig="$dir/kubeconfig" --leader-elect=false \
    --bind-address=127.0.0.1 --secure-port=0 \
    --service-account-private-key-file="$p/sa.key" --root-ca-file="$p/ca.crt" \
    --cluster-signing-cert-file="$p/ca.crt" --cluster-signing-key-file="$p/ca.key" \
    --use-service-account-credentials=true --controllers='*,-nodeipam' \
    --service-cluster-ip-range=10.96.0.0/16
  cat >"$dir/scheduler.yaml" <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: "$dir/kubeconfig"}
leaderElection: {leaderElect: false}
profiles:
- schedulerName: default-scheduler
- schedulerName: coscheduler
EOF
  start kube-scheduler "$bin/kube-scheduler" --config="$dir/scheduler.yaml" \
    --authentication-kubeconfig="$dir/kubeconfig" --authorization-kubeconfig="$dir/kubeconfig" \
    --bind-address=127.0.0.1 --secure-port=0
  local k=("$bin/kubectl" --kubeconfig="$dir/kubeconfig")
  if [ "$kwok_nodes" = 1 ]; then
    start kwok "$bin/kwok" --kubeconfig="$dir/kubeconfig" --manage-all-nodes=false \
      --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
      --node-ip=127.0.0.1 --node-port="$kwok_port" --server-address="127.0.0.1:$kwok_port" \
      --cidr=10.244.0.1/24
    fake_nodes | "${k[@]}" apply -f - >/dev/null
  fi
  if [ -n "$proc_nodes" ]; then
    local nodes=() n
    for n in $proc_nodes; do nodes+=(--node "$n"); done
    # shellcheck disable=SC2086 # K8S_BED_KUBELET_ARGS is a word list
    start process-kubelet python3 -u "$here/process_kubelet.py" --kubeconfig "$dir/kubeconfig" \
      --work "$dir/kubelet" --port "$kubelet_port" --cert "$p/kubelet.crt" --key "$p/kubelet.key" \
      --client-ca "$p/ca.crt" "${nodes[@]}" ${K8S_BED_KUBELET_ARGS:-}
  fi
  # Pods are refused in a namespace until its default service account
  # exists (the controller-manager creates it).
  wait_for "the default service account" 30 "${k[@]}" get serviceaccount default -n default
  [ "$kwok_nodes" = 1 ] && wait_for "the fake nodes" 30 \
    "${k[@]}" wait --for=condition=Ready node -l det-bed=kwok --timeout=1s
  [ -n "$proc_nodes" ] && wait_for "the process kubelet's nodes" 30 \
    "${k[@]}" wait --for=condition=Ready node -l det-bed=process --timeout=1s
  cat >"$dir/bed.env" <<EOF
export KUBECONFIG=$dir/kubeconfig
export K8S_BED_DIR=$dir
export K8S_BED_BIN=$bin
export K8S_BED_SERVER=https://127.0.0.1:$api_port
export K8S_BED_CA=$dir/pki/ca.crt
export K8S_BED_ADMIN_TOKEN_FILE=$dir/admin-token
export K8S_BED_KUBELET_CERT=$dir/pki/kubelet.crt
export K8S_BED_KUBELET_KEY=$dir/pki/kubelet.key
export K8S_BED_ETCD_PORT=$etcd_port
export K8S_BED_APISERVER_PORT=$api_port
export K8S_BED_KWOK_PORT=$kwok_port
export K8S_BED_KUBELET_PORT=$kubelet_port
EOF
  log "up in $((SECONDS - t0))s: source $dir/bed.env (kubectl and helm are in $bin)"
}

case $cmd in
  build) "$here/build.sh" ;;
  up)
    set -E
    trap 'log "up failed: stopping what it started (logs in $dir/logs)"; stop_all' ERR
    up
    ;;
  down) stop_all; log "down ($dir)" ;;
  restart-apiserver) restart_apiserver ;;
  env) cat "$dir/bed.env" ;;
  *) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 2 ;;
esac
