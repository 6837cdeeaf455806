#!/usr/bin/env bash
# The rate search with transport raw, in one process (the in-process driver keeps the DPDK
# environment and the ports up across trials and renews the engines for each): over a net_memif
# pair, which cannot lose a frame, the NDR is the upper bound; over net_af_packet on a veth wire
# of our own, whose packet rings overflow, it is a rate whose verification loses nothing. Every
# trial's accounting is exact.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/raw_lib.sh"
require_raw
search=(--search-trial-seconds 0.4 --search-resolution-percent 5 --search-settle-ms 200 --search-lower-mbps 20)
trials_exact() {
  expect "$1" '[.search.trials[] | .sent == .received + .lost] | all' "$2: every trial, sent = received + lost"
  expect "$1" '.search.trials[-1] | .purpose == "verify" and .lost == 0 and .sent > 0' "$2: the verification lost nothing"
  expect "$1" '.search.verified and .state == "Valid" and .lost == 0' "$2: verified, the cell Valid"
  expect "$1" '.search.trials[-1].offered_mbps == .search.ndr_mbps' "$2: verified at the NDR"
}

MEMIF_TX="net_memif0,role=client,socket=$WORK/ndr-memif.sock"
MEMIF_RX="net_memif1,role=server,socket=$WORK/ndr-memif.sock"
RAW_SECONDS=1 raw memif --tx-port "$MEMIF_TX" --rx-port "$MEMIF_RX" --payload-bytes 1000 "${search[@]}" \
  --search-upper-mbps 1000
trials_exact memif "net_memif"
expect memif '.search.ndr_at_upper and .search.ndr_mbps == 1000 and (.search.trials | length) == 2' \
  "net_memif loses nothing: the NDR is the upper bound, one trial and its verification"

WIRE_PREFIX=ndr
export SBW_IF_A="ndr$$a0" SBW_IF_B="ndr$$b0"
wire_up 9000
port() { echo "net_af_packet$1,iface=$2,netns=$3,qpairs=1"; }
RAW_SECONDS=1 raw afp --tx-port "$(port 0 "$SBW_IF_A" "$NS_A")" --rx-port "$(port 1 "$SBW_IF_B" "$NS_B")" \
  --payload-bytes 1000 "${search[@]}"
trials_exact afp "net_af_packet"
expect afp '.search.trials[0].offered_mbps == 0 and .search.upper_mbps > 0' "af_packet: the upper bound from an unpaced trial"
echo "PASS: raw rate search: memif NDR $(record memif | jq .search.ndr_mbps) Mb/s (upper bound); af_packet $(record afp | jq -r '.search | "NDR \(.ndr_mbps) Mb/s of upper \(.upper_mbps) in \(.search_trials) trials + verification"')"
