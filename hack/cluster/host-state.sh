# shellcheck shell=bash
# What the cluster changes on the host, recorded before the first `up` and put back by `down`.
# Sourced by hack/local-cluster.sh after common.sh.
#
# The kubelet rewrites kernel sysctls (overcommit, panic, keys), the CNI bridge plugin turns on
# ip_forward, we reserve hugepages, and the kubelet, containerd's shim and libcni write to fixed
# host paths whatever their configured roots are. Everything else lives in $CLUSTER_DIR.

HOST_SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes vm.nr_hugepages net.ipv4.ip_forward)
HOST_FIXED_PATHS=(/run/containerd /var/lib/kubelet /var/lib/cni /var/log/containers /var/log/pods
  /usr/libexec/kubernetes /etc/cni /opt/cni /etc/kubernetes /run/netns)

record_host() {
  [[ -d "$HOST_BEFORE" ]] && return 0 # keep the first snapshot across repeated `up`s
  mkdir -p "$HOST_BEFORE.tmp"
  sysctl "${HOST_SYSCTLS[@]}" >"$HOST_BEFORE.tmp/sysctl"
  nft list tables >"$HOST_BEFORE.tmp/nft-tables"
  for p in "${HOST_FIXED_PATHS[@]}" /sys/fs/cgroup/*/; do
    [[ $p == /sys/* ]] && p=${p}kubepods # the kubelet's QoS cgroups, one per v1 hierarchy
    [[ -e $p ]] || echo "$p"
  done >"$HOST_BEFORE.tmp/absent-paths"
  mv "$HOST_BEFORE.tmp" "$HOST_BEFORE"
}

# Mounts under the state dir and the fixed paths (overlay rootfs, secret tmpfs, hugepages).
# /run/netns is left alone: `ip netns` makes it a shared mount other tools use too, and pod
# namespaces in it are removed one by one below.
unmount_all() {
  local r m
  for r in "$CLUSTER_DIR" "${HOST_FIXED_PATHS[@]}"; do
    [[ $r == /run/netns ]] && continue
    awk -v r="$r" '$2 == r || index($2, r "/") == 1 {print $2}' /proc/self/mounts
  done | sort -ru | while read -r m; do umount -l "$m" && echo "unmounted $m"; done
}

# Network namespaces the CRI made for pods (cni-*), the bridge (its veths go with the namespaces).
remove_pod_network() {
  local ns
  for ns in /run/netns/cni-*; do
    [[ -e $ns ]] && ip netns delete "${ns##*/}" && echo "removed netns ${ns##*/}"
  done
  if ip link show "$CLUSTER_BRIDGE" >/dev/null 2>&1; then
    ip link delete "$CLUSTER_BRIDGE" && echo "removed bridge $CLUSTER_BRIDGE"
  fi
}

# iptables chains the kubelet (KUBE-*) and we (SPIRALBENCH-*) made, with the rules jumping to them;
# then the nft tables that did not exist before and are empty now.
remove_chains() {
  local fam table ipt chains rule ch
  nft list tables 2>/dev/null | while read -r _ fam table; do
    case $fam in ip) ipt=iptables ;; ip6) ipt=ip6tables ;; *) continue ;; esac
    chains=$($ipt -t "$table" -S | awk '$1 == "-N" && $2 ~ /^(KUBE|SPIRALBENCH)-/ {print $2}')
    [[ -n $chains ]] || continue
    { $ipt -t "$table" -S | grep -E -- '-j (KUBE|SPIRALBENCH)-' || true; } | while read -r rule; do
      eval "$ipt -t $table -D ${rule#-A }" # eval: rules carry quoted comments
    done
    for ch in $chains; do $ipt -t "$table" -F "$ch"; done
    for ch in $chains; do $ipt -t "$table" -X "$ch" && echo "removed $ipt chain $table/$ch"; done
  done
  [[ -f "$HOST_BEFORE/nft-tables" ]] || return 0
  nft list tables | while read -r _ fam table; do
    grep -qx "table $fam $table" "$HOST_BEFORE/nft-tables" && continue
    # A table someone else filled in the meantime stays.
    if ! nft list table "$fam" "$table" | grep -qvE '^\s*(table|chain|type) |^\s*}?\s*$'; then
      nft delete table "$fam" "$table" && echo "removed nft table $fam $table"
    fi
  done
}

restore_host() {
  local line key want p
  unmount_all
  remove_pod_network
  remove_chains
  for p in /sys/fs/cgroup/*/kubepods; do
    [[ -d $p ]] && grep -qx "$p" "$HOST_BEFORE/absent-paths" 2>/dev/null || continue
    find "$p" -depth -type d -exec rmdir {} + 2>/dev/null
    [[ -d $p ]] && echo "cgroup $p still busy" >&2 || echo "removed cgroup $p"
  done
  [[ -d "$HOST_BEFORE" ]] || return 0
  while IFS= read -r line; do
    key=${line%% = *} want=${line#* = }
    [[ "$(sysctl -n "$key")" == "$want" ]] || { sysctl -qw "$key=$want" && echo "restored $key = $want"; }
  done <"$HOST_BEFORE/sysctl"
  while IFS= read -r p; do
    [[ -e $p && $p != /sys/* ]] || continue
    if [[ $p == /run/netns ]]; then rmdir "$p" 2>/dev/null || continue # others may use it by now
    else rm -rf --one-file-system "$p"; fi
    echo "removed $p"
  done <"$HOST_BEFORE/absent-paths"
}

# Prints what is left of the cluster on the host; empty output means clean.
host_leftovers() {
  local p
  awk -v r="$CLUSTER_DIR" '$2 == r || index($2, r "/") == 1 {print "mount " $2}' /proc/self/mounts
  for p in /run/netns/cni-*; do [[ -e $p ]] && echo "netns ${p##*/}"; done
  ip link show "$CLUSTER_BRIDGE" >/dev/null 2>&1 && echo "bridge $CLUSTER_BRIDGE"
  for p in iptables ip6tables; do
    $p-save 2>/dev/null | awk -v p="$p" '/^:(KUBE|SPIRALBENCH)-/ {print p " chain " substr($1, 2)}'
  done
  for p in /sys/fs/cgroup/*/kubepods; do [[ -d $p ]] && echo "cgroup $p"; done
  pgrep -f "$CONTAINERD_SOCK" | sed 's/^/process /'
  for p in "$PIDS"/*.pid; do [[ -f $p ]] && kill -0 "$(cat "$p")" 2>/dev/null && echo "process $(cat "$p") (${p##*/})"; done
  true
}
