#!/usr/bin/env bash
# A real single-node Kubernetes cluster on this machine: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and a kubelet (built from the Go module proxy by
# hack/k8s-assets.sh) with Debian's containerd, runc and CNI plugins. Needs root.
#
#   hack/local-cluster.sh up        start (or finish starting) it; prints the kubeconfig path last
#   hack/local-cluster.sh down      stop everything by PID, put the host back, remove the state
#   hack/local-cluster.sh status    what runs, the node, and what is left on the host
#   hack/local-cluster.sh load TAR...   import image tarballs into the cluster's containerd
#   hack/local-cluster.sh running   exit 0 when the cluster's containerd and apiserver run
#   hack/local-cluster.sh kubelet-restart   restart the kubelet with the current settings
#                                   (KUBELET_EVENTED_PLEG); pods keep running
#
# State lives in $CLUSTER_DIR (default ~/.cache/spiralbench/cluster); see docs/local-cluster.md.
set -euo pipefail
HACK=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HACK/.." && pwd)
# shellcheck source=hack/cluster/common.sh
. "$HACK/cluster/common.sh"
# shellcheck source=hack/cluster/pki.sh
. "$HACK/cluster/pki.sh"
# shellcheck source=hack/cluster/host-state.sh
. "$HACK/cluster/host-state.sh"

# Pods on the bridge reach the apiserver through the `kubernetes` Service IP. There is no
# kube-proxy, so one DNAT rule stands in for it; the route keeps Service IPs on the bridge
# even when the rule is missing, so they never leave through the host's uplink.
network_up() {
  if ! ip link show "$CLUSTER_BRIDGE" >/dev/null 2>&1; then
    ip link add "$CLUSTER_BRIDGE" type bridge
    ip addr add "$NODE_IP/${POD_CIDR#*/}" dev "$CLUSTER_BRIDGE"
    ip link set "$CLUSTER_BRIDGE" up
    ip route add "$SERVICE_CIDR" dev "$CLUSTER_BRIDGE"
  fi
  if ! iptables -t nat -S "$NAT_CHAIN" >/dev/null 2>&1; then
    iptables -t nat -N "$NAT_CHAIN"
    iptables -t nat -A "$NAT_CHAIN" -d "$KUBERNETES_SERVICE_IP/32" -p tcp --dport 443 \
      -j DNAT --to-destination "$NODE_IP:$APISERVER_PORT"
  fi
  local hook
  for hook in PREROUTING OUTPUT; do
    iptables -t nat -C "$hook" -j "$NAT_CHAIN" 2>/dev/null || iptables -t nat -A "$hook" -j "$NAT_CHAIN"
  done
}

control_plane_up() {
  start etcd "$K8S_BIN/etcd" --name spiralbench --data-dir "$CLUSTER_DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "spiralbench=http://127.0.0.1:$ETCD_PEER_PORT" --listen-metrics-urls "" --unsafe-no-fsync
  wait_for "etcd healthy" 60 curl -fsS "http://127.0.0.1:$ETCD_PORT/health"
  start kube-apiserver "$K8S_BIN/kube-apiserver" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address="$NODE_IP" --secure-port="$APISERVER_PORT" --advertise-address="$NODE_IP" \
    --service-cluster-ip-range="$SERVICE_CIDR" --allow-privileged=true \
    --client-ca-file="$PKI/ca.crt" --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
    --kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" --kubelet-client-key="$PKI/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types=InternalIP,Hostname \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local --service-account-key-file="$PKI/sa.pub" \
    --service-account-signing-key-file="$PKI/sa.key" --authorization-mode=Node,RBAC \
    --enable-admission-plugins=NodeRestriction --profiling=false
  wait_for "kube-apiserver ready" 120 kubectl_admin get --raw /readyz
  start kube-controller-manager "$K8S_BIN/kube-controller-manager" \
    --kubeconfig="$CLUSTER_DIR/controller-manager.kubeconfig" \
    --authentication-kubeconfig="$CLUSTER_DIR/controller-manager.kubeconfig" \
    --authorization-kubeconfig="$CLUSTER_DIR/controller-manager.kubeconfig" \
    --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" \
    --cluster-signing-cert-file="$PKI/ca.crt" --cluster-signing-key-file="$PKI/ca.key" \
    --service-cluster-ip-range="$SERVICE_CIDR" --use-service-account-credentials=true \
    --leader-elect=false --bind-address=127.0.0.1 --profiling=false \
    --flex-volume-plugin-dir="$CLUSTER_DIR/flexvolume"
  start kube-scheduler "$K8S_BIN/kube-scheduler" --kubeconfig="$CLUSTER_DIR/scheduler.kubeconfig" \
    --authentication-kubeconfig="$CLUSTER_DIR/scheduler.kubeconfig" \
    --authorization-kubeconfig="$CLUSTER_DIR/scheduler.kubeconfig" \
    --leader-elect=false --bind-address=127.0.0.1 --profiling=false
}

containerd_up() {
  local d="$CLUSTER_DIR/containerd" r
  mkdir -p "$d" "$CLUSTER_DIR/cni/net.d"
  # Pods get no default route: they reach other pods and the node on the bridge and Service IPs
  # through the node, and nothing beyond this machine.
  cat >"$CLUSTER_DIR/cni/net.d/10-spiralbench.conflist" <<JSON
{ "cniVersion": "0.4.0", "name": "spiralbench",
  "plugins": [ { "type": "bridge", "bridge": "$CLUSTER_BRIDGE", "isGateway": true, "ipMasq": false,
                 "hairpinMode": true,
                 "ipam": { "type": "host-local", "dataDir": "$CLUSTER_DIR/cni/ipam",
                           "ranges": [[{ "subnet": "$POD_CIDR", "gateway": "$NODE_IP" }]],
                           "routes": [{ "dst": "$SERVICE_CIDR" }] } } ] }
JSON
  # Registries this project could name resolve to a closed local port: a pod whose image was not
  # imported fails at once (ErrImagePull) instead of reaching out to the Internet.
  for r in docker.io registry.k8s.io ghcr.io nvcr.io quay.io; do
    mkdir -p "$d/certs.d/$r"
    printf 'server = "http://127.0.0.1:9"\n[host."http://127.0.0.1:9"]\n  capabilities = ["pull", "resolve"]\n' \
      >"$d/certs.d/$r/hosts.toml"
  done
  cat >"$d/config.toml" <<TOML
version = 2
root = "$d/root"
state = "$d/state"
[grpc]
  address = "$CONTAINERD_SOCK"
[plugins."io.containerd.internal.v1.opt"]
  path = "$d/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # root here lacks CAP_SYS_RESOURCE: the sandbox's oom_score_adj of -998 fails with EPERM and
  # every pod dies with "can't get final child's PID from pipe: EOF". Clamp to containerd's own.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "$(command -v runc)"
        Root = "$d/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$CLUSTER_DIR/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$d/certs.d"
TOML
  if [[ $CLUSTER_RUNTIME == containerd2 ]]; then
    local bin
    bin=$("$HACK/containerd-assets.sh" | tail -n1)
    # containerd 2 reads this version-2 file and migrates it in memory; the shim comes from PATH
    start containerd env PATH="$bin:$PATH" "$bin/containerd" --config "$d/config.toml"
  else
    start containerd containerd --config "$d/config.toml"
  fi
  wait_for "containerd serving" 30 ctr_k8s version
  [[ -f "$ROOT/build/images/pause.tar" ]] || "$HACK/build-images.sh" pause
  ctr_k8s images import "$ROOT/build/images/pause.tar" >/dev/null
}

kubelet_up() {
  local have
  have=$(sysctl -n vm.nr_hugepages)
  if ((HUGEPAGES_2M > have)); then
    sysctl -qw vm.nr_hugepages="$HUGEPAGES_2M"
    echo "vm.nr_hugepages $have -> $(sysctl -n vm.nr_hugepages)"
  fi
  mkdir -p "$CLUSTER_DIR/kubelet"
  cat >"$CLUSTER_DIR/kubelet/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: "$PKI/ca.crt"}
authorization: {mode: Webhook}
containerRuntimeEndpoint: "unix://$CONTAINERD_SOCK"
cgroupDriver: cgroupfs     # no systemd on these machines
failCgroupV1: false        # 1.35 refuses cgroup v1 hosts by default; these VMs are cgroup v1
failSwapOn: false
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
podLogsDir: "$CLUSTER_DIR/pod-logs"
volumePluginDir: "$CLUSTER_DIR/kubelet/volume-plugins"
resolvConf: ""             # no cluster DNS; pods get no nameserver rather than the host's
registerNode: true
serializeImagePulls: false
evictionHard: {memory.available: "200Mi", nodefs.available: "2%", imagefs.available: "2%", nodefs.inodesFree: "2%"}
YAML
  if [[ $KUBELET_EVENTED_PLEG == 1 ]]; then
    printf 'featureGates: {EventedPLEG: true}\n' >>"$CLUSTER_DIR/kubelet/config.yaml"
  fi
  start kubelet "$K8S_BIN/kubelet" --config="$CLUSTER_DIR/kubelet/config.yaml" \
    --kubeconfig="$CLUSTER_DIR/kubelet.kubeconfig" --root-dir="$CLUSTER_DIR/kubelet" \
    --cert-dir="$CLUSTER_DIR/kubelet/pki" --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" --v=1
  wait_for "node $NODE_NAME Ready" 180 kubectl_admin wait --for=condition=Ready "node/$NODE_NAME" --timeout=1s
  # Pods can be created only once the namespace has its default ServiceAccount.
  wait_for "default ServiceAccount" 60 kubectl_admin -n default get serviceaccount default
}

up() {
  local t0=$SECONDS
  "$HACK/cluster-deps.sh"
  "$HACK/k8s-assets.sh" cluster >/dev/null
  mkdir -p "$CLUSTER_DIR"
  record_host
  make_pki
  network_up
  control_plane_up
  containerd_up
  kubelet_up
  kubectl_admin get node "$NODE_NAME" -o wide
  echo "cluster up in $((SECONDS - t0))s; export KUBECONFIG=$KUBECONFIG_ADMIN" >&2
  echo "$KUBECONFIG_ADMIN"
}

down() {
  local t0=$SECONDS c p
  if alive kube-apiserver && alive kubelet; then
    # No controller may recreate pods while the kubelet tears them down (CNI DEL, unmounts).
    stop kube-controller-manager & stop kube-scheduler & wait
    kubectl_admin delete pods --all -A --grace-period=1 --timeout=60s 2>&1 | tail -n 2 || true
  fi
  stop kubelet
  if alive containerd; then
    for c in $(ctr_k8s tasks ls -q 2>/dev/null); do ctr_k8s tasks kill -s SIGKILL "$c" >/dev/null 2>&1 || true; done
    for c in $(ctr_k8s tasks ls -q 2>/dev/null); do ctr_k8s tasks rm -f "$c" >/dev/null 2>&1 || true; done
    for c in $(ctr_k8s containers ls -q 2>/dev/null); do ctr_k8s containers rm "$c" >/dev/null 2>&1 || true; done
  fi
  # Shims of our containerd outlive it; they name our socket on their command line.
  for p in $(pgrep -f "containerd-shim-runc-v2 .*-address $CONTAINERD_SOCK" || true); do
    kill "$p" 2>/dev/null && echo "stopped shim (pid $p)"
  done
  stop containerd & stop kube-controller-manager & stop kube-scheduler & wait
  stop kube-apiserver
  stop etcd
  restore_host
  if [[ ${KEEP_STATE:-0} != 1 && -d "$CLUSTER_DIR" ]]; then
    rm -rf --one-file-system "$CLUSTER_DIR" && echo "removed $CLUSTER_DIR"
  fi
  echo "cluster down in $((SECONDS - t0))s" >&2
}

status() {
  local n left
  for n in etcd kube-apiserver kube-controller-manager kube-scheduler containerd kubelet; do
    if alive "$n"; then echo "$n: running (pid $(pid_of "$n"))"; else echo "$n: stopped"; fi
  done
  if alive kube-apiserver; then
    echo "kubeconfig: $KUBECONFIG_ADMIN"
    kubectl_admin get nodes -o wide 2>/dev/null || true
  fi
  left=$(host_leftovers)
  if alive kube-apiserver || alive kubelet; then return 0; fi
  if [[ -n $left ]]; then echo "left on the host:"; echo "$left"; return 1; fi
  echo "host: clean"
}

load() {
  alive containerd || { echo "containerd is not running: hack/local-cluster.sh up" >&2; exit 1; }
  local t
  for t in "$@"; do ctr_k8s images import "$t" | sed "s|^|$(basename "$t"): |"; done
}

[[ $(id -u) == 0 ]] || { echo "$0 needs root" >&2; exit 1; }
case ${1:-} in
  up) up ;;
  down) down ;;
  status) status ;;
  load) shift; load "$@" ;;
  running) alive containerd && alive kube-apiserver ;;
  kubelet-restart) stop kubelet; kubelet_up ;;
  *) echo "usage: $0 up|down|status|running|load TAR...|kubelet-restart" >&2; exit 2 ;;
esac
