#!/usr/bin/env bash
# Wire proof and two links on a real DGX Spark pair. NOT runnable on the CI machine
# (no ConnectX-7 there); run it by hand where the hardware is. docs/wire.md says what it checks.
#
# Setup: two Sparks, A (client) and B (server), both ConnectX-7 ports of each cabled to the
# other's (or to one switch), an IPv4 subnet per port, spiral-dataplane built from this tree
# (make -f mk/dataplane.mk dataplane) on both, passwordless ssh from A to B, root on both.
#
#   hack/wire-proof-spark.sh B_HOST B_IP_PORT0 B_IP_PORT1 [SECONDS]
#
# What to look for, in the printed summary:
#   1. two links: "links": 2 rows, tx_netdev/rx_netdev the two ConnectX-7 interfaces, pairs
#      2 and 2, tx_mbps of each near half the total
#   2. "wire": "crossed", and each link's tx_bytes_phy >= its tx_bytes (PHY adds headers, ~1 %)
#   3. the independent check: ethtool -S's tx_bytes_phy deltas on A's interfaces match the
#      record's tx_bytes_phy to within the few frames outside the window
#   4. the loop: the same client sent to A's own address never reaches the cable: "wire" is
#      "did-not-cross" and the state Invalid, "never crossed the wire: <if> tx_bytes_phy +..."
#   5. environment (server side record, "environment"): mlx5_core, the firmware, 200000 Mb/s,
#      PCIe gen/width, NUMA 0, the GPU as NVML names it (NVIDIA GB10), CUDA version
set -euo pipefail
B=${1:?B_HOST} B0=${2:?B_IP_PORT0} B1=${3:?B_IP_PORT1} SECONDS_=${4:-10}
BIN=${BIN:-build/dataplane/spiral-dataplane}
PORT=${PORT:-18921}
args=(--transport tcp --pairs 4 --payload-bytes 8000 --base-port "$PORT" --seconds "$SECONDS_" --warmup-seconds 2)

phy() {  # tx_bytes_phy of each of this host's interfaces toward B's two addresses
  local ip dev
  for ip in "$B0" "$B1"; do
    dev=$(ip -o route get "$ip" | sed -n 's/.* dev \([^ ]*\).*/\1/p')
    echo "$dev $(ethtool -S "$dev" | awk '/ tx_bytes_phy:/{print $2}')"
  done
}

echo "== 1-3: four TCP pairs over both links, B=$B ($B0, $B1)"
ssh "$B" "cd $(pwd) && $BIN server ${args[*]} --bind-address 0.0.0.0 --environment" >/tmp/wire2-spark-server.out &
sleep 2
before=$(phy)
$BIN client "${args[@]}" --server-address "$B0" --server-addresses "$B0,$B1" | tee /tmp/wire2-spark-client.out |
  grep '^{"event":"result"' | jq '{state, reason, wire, wire_note, tx_mbps, tx_bytes_phy, links}'
wait
after=$(phy)
echo "ethtool -S tx_bytes_phy before/after (independent check):"
paste <(echo "$before") <(echo "$after") | awk '{printf "  %s +%d bytes\n", $1, $4 - $2}'
grep '^{"event":"result"' /tmp/wire2-spark-server.out | jq '.environment'

echo "== 4: the loop: the client sends to its own address; the bytes never reach the cable"
A0=$(ip -o route get "$B0" | sed -n 's/.* src \([^ ]*\).*/\1/p')
$BIN server "${args[@]}" --bind-address "$A0" >/dev/null &
sleep 1
$BIN client "${args[@]}" --pairs 1 --server-address "$A0" | grep '^{"event":"result"' | jq '{state, reason, wire, wire_note}'
wait
