#!/usr/bin/env bash
# A "wire loopback" for hosts without a cabled NIC: two network namespaces joined by a veth pair.
#
#   $SBW_NS_A ($SBW_IF_A, $SBW_IP_A) <==== veth, MTU $SBW_MTU ====> $SBW_NS_B ($SBW_IF_B, $SBW_IP_B)
#
# Usage: hack/netns-wire.sh up [MTU] | down | status
#   up      creates what is missing and (re)applies MTU, addresses and static neighbours; idempotent
#   down    deletes both namespaces, which takes the veth pair with them; idempotent
#   status  prints the wire and checks a full-MTU, don't-fragment ping; non-zero when not up
# Environment (defaults): SBW_NS_A=sbw-a SBW_NS_B=sbw-b SBW_IF_A=sbw-a0 SBW_IF_B=sbw-b0
#   SBW_IP_A=10.77.0.1 SBW_IP_B=10.77.0.2 SBW_PREFIX=24 SBW_MTU=9000
# Needs root and iproute2. The addresses exist only inside the two namespaces: nothing leaves the host.
set -euo pipefail
NS_A=${SBW_NS_A:-sbw-a}; NS_B=${SBW_NS_B:-sbw-b}
IF_A=${SBW_IF_A:-sbw-a0}; IF_B=${SBW_IF_B:-sbw-b0}
IP_A=${SBW_IP_A:-10.77.0.1}; IP_B=${SBW_IP_B:-10.77.0.2}
PREFIX=${SBW_PREFIX:-24}
MTU=${2:-${SBW_MTU:-9000}}

has_ns() { [[ -e /run/netns/$1 ]]; }
has_link() { has_ns "$1" && ip -n "$1" link show "$2" >/dev/null 2>&1; }
mac() { ip -n "$1" -o link show "$2" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'; }

up() {
  [[ $(id -u) == 0 ]] || { echo "netns-wire: needs root" >&2; exit 1; }
  has_ns "$NS_A" || ip netns add "$NS_A"
  has_ns "$NS_B" || ip netns add "$NS_B"
  if ! has_link "$NS_A" "$IF_A" || ! has_link "$NS_B" "$IF_B"; then
    # half a pair (an interrupted earlier run): remove it and make both ends anew
    ip -n "$NS_A" link del "$IF_A" 2>/dev/null || true
    ip -n "$NS_B" link del "$IF_B" 2>/dev/null || true
    # created straight inside the namespaces: the names never touch the host's namespace
    ip link add "$IF_A" netns "$NS_A" type veth peer name "$IF_B" netns "$NS_B"
  fi
  local ns ifc ip
  for end in "$NS_A $IF_A $IP_A" "$NS_B $IF_B $IP_B"; do
    read -r ns ifc ip <<<"$end"
    ip -n "$ns" link set lo up
    ip -n "$ns" link set "$ifc" mtu "$MTU"
    ip -n "$ns" addr replace "$ip/$PREFIX" dev "$ifc"
    ip -n "$ns" link set "$ifc" up
    # no IPv6 chatter (router solicitations, DAD) on the measured wire
    ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$ifc.disable_ipv6=1" 2>/dev/null || true
  done
  # static neighbours: no ARP on the wire, and raw (DPDK af_packet/af_xdp) peers need none either
  ip -n "$NS_A" neigh replace "$IP_B" lladdr "$(mac "$NS_B" "$IF_B")" dev "$IF_A" nud permanent
  ip -n "$NS_B" neigh replace "$IP_A" lladdr "$(mac "$NS_A" "$IF_A")" dev "$IF_B" nud permanent
  status
}

down() {
  local ns
  for ns in "$NS_A" "$NS_B"; do
    if has_ns "$ns"; then ip netns del "$ns"; fi  # deleting a namespace destroys its veth end and the peer
  done
}

status() {
  if ! has_link "$NS_A" "$IF_A" || ! has_link "$NS_B" "$IF_B"; then
    echo "netns-wire: down ($NS_A/$IF_A <-> $NS_B/$IF_B)"
    return 1
  fi
  local mtu
  mtu=$(ip -n "$NS_A" -o link show "$IF_A" | sed -n 's/.* mtu \([0-9]*\).*/\1/p')
  echo "netns-wire: up  $NS_A/$IF_A $IP_A ($(mac "$NS_A" "$IF_A")) <-> $NS_B/$IF_B $IP_B ($(mac "$NS_B" "$IF_B")), mtu $mtu"
  # a full-size datagram with don't-fragment proves the MTU end to end
  if ip netns exec "$NS_A" ping -c 1 -W 1 -M do -s $((mtu - 28)) "$IP_B" >/dev/null 2>&1; then
    echo "netns-wire: ping $IP_A -> $IP_B at $mtu bytes ok"
  else
    echo "netns-wire: ping $IP_A -> $IP_B at $mtu bytes FAILED" >&2
    return 1
  fi
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  *) echo "usage: $0 up [MTU] | down | status" >&2; exit 2 ;;
esac
