#!/usr/bin/env bash
# Raw loopback over net_af_packet and net_af_xdp on a veth wire between two namespaces of our own: the TX port
# is probed inside one namespace, the RX port inside the other (netns= in the port string).
# Loss is possible here (the kernel's packet socket ring overflows on a busy host), so the test
# asserts that every frame is received or counted, never a loss rate.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/raw_lib.sh"
require_raw
wire_up 9000
IF_A=${SBW_IF_A:-sbw-a0} IF_B=${SBW_IF_B:-sbw-b0}
JUMBO="blocksz=20480,framesz=10240,framecnt=512"

port() {  # port N IFACE NETNS QPAIRS [extra]
  echo "net_af_packet$1,iface=$2,netns=$3,qpairs=$4${5:+,$5}"
}

raw small --tx-port "$(port 0 "$IF_A" "$NS_A" 1)" --rx-port "$(port 1 "$IF_B" "$NS_B" 1)" --payload-bytes 64
accounted small "af_packet 64 B"
echo "af_packet 64 B: $(brief small)"

raw jumbo --tx-port "$(port 0 "$IF_A" "$NS_A" 1 "$JUMBO")" --rx-port "$(port 1 "$IF_B" "$NS_B" 1 "$JUMBO")" \
  --payload-bytes 8000
accounted jumbo "af_packet 8000 B"
expect jumbo '.rx_bytes == .rx_packets * 8042' "8000 B payloads arrive as 8042-byte frames"
echo "af_packet 8000 B: $(brief jumbo)"

raw queues --tx-port "$(port 0 "$IF_A" "$NS_A" 2)" --rx-port "$(port 1 "$IF_B" "$NS_B" 2)" \
  --tx-queues 2 --rx-queues 2 --payload-bytes 512
accounted queues "af_packet (2,2)"
echo "af_packet (2,2): $(brief queues), per RX queue $(record queues | jq -c .raw.rx_queue_packets)"
# af_xdp: veth attaches XDP only at MTUs up to about 3.5 KB
ip -n "$NS_A" link set "$IF_A" mtu 1500
ip -n "$NS_B" link set "$IF_B" mtu 1500
xdp() { echo "net_af_xdp$1,iface=$2,netns=$3,start_queue=0,queue_count=1"; }
raw xdp --tx-port "$(xdp 0 "$IF_A" "$NS_A")" --rx-port "$(xdp 1 "$IF_B" "$NS_B")" --payload-bytes 1024
if grep -q "Failed to create xsk socket\|XDP" "$WORK/xdp.err" && [[ $(cat "$WORK/xdp.rc") != 0 ]]; then
  echo "af_xdp: skipped, this kernel cannot attach XDP to the veth: $(tail -n 1 "$WORK/xdp.err")"
else
  accounted xdp "af_xdp 1024 B"
  echo "af_xdp 1024 B: $(brief xdp)"
  for side in "$NS_A $IF_A" "$NS_B $IF_B"; do
    read -r ns ifc <<<"$side"
    ! ip -n "$ns" link show "$ifc" | grep -q "prog/xdp" || fail "af_xdp left its XDP program on $ifc"
  done
fi
echo "PASS: raw over af_packet and af_xdp on a veth wire"
