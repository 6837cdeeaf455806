# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are used by the scripts that source this file
# Settings and helpers shared by hack/local-cluster.sh and its parts. Sourced, not run.
# Every setting can be overridden from the environment.
: "${K8S_VERSION:=1.35.4}"
: "${SPIRALBENCH_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}"
: "${CLUSTER_DIR:=$SPIRALBENCH_CACHE/cluster}" # all cluster state: PKI, etcd, containerd, kubelet, logs
: "${NODE_NAME:=spiralbench-node}"
: "${CLUSTER_BRIDGE:=spiralbench0}"
: "${POD_CIDR:=10.244.0.0/24}"
# The bridge's gateway address doubles as the node address: the apiserver and kubelet listen
# there and on loopback only, never on the host's real interface.
: "${NODE_IP:=10.244.0.1}"
: "${SERVICE_CIDR:=10.96.0.0/24}"
: "${KUBERNETES_SERVICE_IP:=10.96.0.1}"
: "${APISERVER_PORT:=6443}"
: "${ETCD_PORT:=2379}"
: "${ETCD_PEER_PORT:=2380}"
: "${HUGEPAGES_2M:=64}" # 2 MiB pages reserved for pods while the cluster runs (0: leave vm.nr_hugepages alone)
: "${PAUSE_IMAGE:=docker.io/spiralbench/pause:3.10}"
# containerd: Debian's (1.6); containerd2: built by hack/containerd-assets.sh, which sends the
# kubelet container events. KUBELET_EVENTED_PLEG=1 turns the kubelet's Evented PLEG on (container
# state from those events instead of its 1 s relist; with containerd 1.6 the kubelet falls back).
: "${CLUSTER_RUNTIME:=containerd}"
: "${KUBELET_EVENTED_PLEG:=0}"
export K8S_VERSION SPIRALBENCH_CACHE CLUSTER_DIR

K8S_BIN="$SPIRALBENCH_CACHE/k8s-$K8S_VERSION" # filled by hack/k8s-assets.sh cluster
PIDS="$CLUSTER_DIR/pids"
LOGS="$CLUSTER_DIR/logs"
PKI="$CLUSTER_DIR/pki"
KUBECONFIG_ADMIN="$CLUSTER_DIR/kubeconfig"
CONTAINERD_SOCK="$CLUSTER_DIR/containerd/containerd.sock"
HOST_BEFORE="$CLUSTER_DIR/host-before" # what the host looked like before the first `up`
NAT_CHAIN=SPIRALBENCH-SERVICES
export PATH="$K8S_BIN:$PATH"

ctr_k8s() { ctr --address "$CONTAINERD_SOCK" --namespace k8s.io "$@"; }
kubectl_admin() { kubectl --kubeconfig "$KUBECONFIG_ADMIN" "$@"; }

pid_of() { [[ -f "$PIDS/$1.pid" ]] && cat "$PIDS/$1.pid"; }
alive() { local p; p=$(pid_of "$1") && kill -0 "$p" 2>/dev/null; }

# start NAME CMD...: runs CMD in the background unless NAME already runs; PID in $PIDS/NAME.pid.
start() {
  local name=$1; shift
  if alive "$name"; then echo "$name already running (pid $(pid_of "$name"))"; return; fi
  mkdir -p "$PIDS" "$LOGS"
  rm -f "$PIDS/$name.pid"
  # Own session, so the daemon outlives the calling shell's process group (make, CI). setsid may
  # fork, so the PID is written by the process that then execs the daemon.
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PIDS/$name.pid" "$@" >>"$LOGS/$name.log" 2>&1 </dev/null &
  until [[ -s "$PIDS/$name.pid" ]]; do sleep 0.05; done
  echo "started $name (pid $(pid_of "$name"))"
}

# stop NAME: SIGTERM, up to 10 s to exit, then SIGKILL.
stop() {
  local name=$1 p i
  p=$(pid_of "$name") || return 0
  if kill -0 "$p" 2>/dev/null; then
    kill "$p"
    for ((i = 0; i < 100; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$p" 2>/dev/null && kill -9 "$p"
    echo "stopped $name (pid $p)"
  fi
  rm -f "$PIDS/$name.pid"
}

# wait_for DESC SECONDS CMD...: polls CMD every 0.5 s.
wait_for() {
  local desc=$1 secs=$2 t0=$SECONDS; shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS - t0 >= secs)); then echo "timed out after ${secs}s waiting for $desc" >&2; return 1; fi
    sleep 0.5
  done
  echo "$desc after $((SECONDS - t0))s"
}
