#!/usr/bin/env bash
# Raw loopback over net_af_packet on a veth wire between two namespaces of our own: the TX port
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
echo "PASS: raw over af_packet on a veth wire"
