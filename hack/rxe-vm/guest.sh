#!/usr/bin/env bash
# Runs inside the Soft-RoCE test VM (Debian's kernel, the host's / read-only), started by init.
# Sets up two Soft-RoCE devices across one veth pair, then runs the commands the host queued in
# the work folder (cmd.1, cmd.2, ...) one by one from the repository root, each with its output
# in out.N and its exit code in rc.N; writes "done" last so the host knows the list ran through.
#
#   rxe0 on veth0 10.99.0.1  <==== veth, MTU $MTU ====>  rxe1 on veth1 10.99.0.2
#
# rxe (6.1) is not netns-aware, so both ends share one namespace. Without help the kernel would
# deliver 10.99.0.2 -> 10.99.0.1 through lo and rxe would drop it: rules for locally generated
# traffic (iif lo) send each address's packets out of the other end's veth, the local table moves
# behind them, and accept_local/rp_filter let the packets in on the far end.
set -uo pipefail
WORK=/tmp/rxe-vm
exec 3>/dev/console
say() { echo "rxe-vm guest: $*" >&3; }
# shellcheck source=/dev/null
source "$WORK/env"  # REPO, MTU, CMD_TIMEOUT from the host
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp LC_ALL=C.UTF-8

setup() {
  set -e
  ip link set lo up
  ip link add veth0 type veth peer name veth1
  local i
  for i in 0 1; do
    ip link set "veth$i" mtu "$MTU"
    ip addr add "10.99.0.$((i + 1))/24" dev "veth$i"
    ip link set "veth$i" up
  done
  # rxe hands each message's packets to the veth in one burst; the default backlog (1000) drops
  # bursts of deep windows, and every drop costs an RC retransmit
  sysctl -qw net.core.netdev_max_backlog=30000
  sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.veth0.rp_filter=0 net.ipv4.conf.veth1.rp_filter=0
  sysctl -qw net.ipv4.conf.veth0.accept_local=1 net.ipv4.conf.veth1.accept_local=1
  ip route add 10.99.0.1/32 dev veth1 src 10.99.0.2 table 101
  ip route add 10.99.0.2/32 dev veth0 src 10.99.0.1 table 102
  ip rule add pref 100 iif lo to 10.99.0.1 lookup 101
  ip rule add pref 101 iif lo to 10.99.0.2 lookup 102
  ip rule add pref 200 lookup local
  ip rule del pref 0 lookup local
  ip neigh replace 10.99.0.1 lladdr "$(cat /sys/class/net/veth0/address)" dev veth1 nud permanent
  ip neigh replace 10.99.0.2 lladdr "$(cat /sys/class/net/veth1/address)" dev veth0 nud permanent
  rdma link add rxe0 type rxe netdev veth0
  rdma link add rxe1 type rxe netdev veth1
  # the RoCE v2 GIDs of the addresses appear asynchronously
  local _
  for _ in $(seq 100); do
    grep -qs "0000:0000:0000:0000:0000:ffff:0a63:0001" /sys/class/infiniband/rxe0/ports/1/gids/* &&
      grep -qs "0000:0000:0000:0000:0000:ffff:0a63:0002" /sys/class/infiniband/rxe1/ports/1/gids/* && break
    sleep 0.1
  done
  # no udev here: let unprivileged test users open the verbs devices, as rdma-core's rules do
  chmod 0666 /dev/infiniband/* 2>/dev/null || true
  rdma link show
  ip route get 10.99.0.1 from 10.99.0.2 iif lo 2>/dev/null || ip route get 10.99.0.1
  set +e
}

say "kernel $(uname -r), $(nproc) cpu(s), $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB"
if ! (setup) >"$WORK/setup.log" 2>&1; then
  say "Soft-RoCE set-up failed:"
  cat "$WORK/setup.log" >&3
  echo 1 >"$WORK/setup.rc"
  touch "$WORK/done"
  exit 1
fi
echo 0 >"$WORK/setup.rc"
say "rxe0 (veth0 10.99.0.1) <-> rxe1 (veth1 10.99.0.2) up, MTU $MTU"

export RXE_VM=1 RXE_A=rxe0 NETDEV_A=veth0 IP_A=10.99.0.1 RXE_B=rxe1 NETDEV_B=veth1 IP_B=10.99.0.2
n=1
while [[ -f $WORK/cmd.$n ]]; do
  cmd=$(cat "$WORK/cmd.$n")
  say "[$n] $cmd"
  started=$(date +%s%N)
  tmp=$(mktemp -d)
  (cd "$REPO" && TMPDIR=$tmp timeout -k 5 "$CMD_TIMEOUT" bash -c "$cmd") >"$WORK/out.$n" 2>&1
  rc=$?
  rm -rf "$tmp"
  echo "$rc" >"$WORK/rc.$n"
  say "[$n] exit $rc after $((($(date +%s%N) - started) / 1000000)) ms"
  n=$((n + 1))
done
sync
touch "$WORK/done"
