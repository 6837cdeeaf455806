#!/usr/bin/env bash
# The rate search with transport raw, in one process (the in-process driver keeps the DPDK
# environment and the ports up across trials and renews the engines for each): over a net_memif
# pair, which cannot lose a frame, the NDR is the upper bound and its verification loses
# nothing. Over net_af_packet on a veth wire of our own, whose packet rings overflow when the
# receiving thread loses its core, the search brackets a rate below the unpaced one; on this
# shared host the 1 s verification there may lose a few frames (the cell is then Invalid with
# that reason), so that part asserts the search and its accounting, not a lossless verification.
# Every trial's accounting is exact.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/raw_lib.sh"
require_raw
search=(--search-trial-seconds 0.4 --search-resolution-percent 5 --search-settle-ms 200 --search-lower-mbps 5)
trials_exact() {
  expect "$1" '[.search.trials[] | .sent == .received + .lost] | all' "$2: every trial, sent = received + lost"
  expect "$1" '.search.trials[-1] | .purpose == "verify" and .lost == 0 and .sent > 0' "$2: the verification lost nothing"
  expect "$1" '.search.verified and .state == "Valid" and .lost == 0' "$2: verified, the cell Valid"
  expect "$1" '.search.trials[-1].offered_mbps == .search.ndr_mbps' "$2: verified at the NDR"
}

MEMIF_TX="net_memif0,role=client,socket=$WORK/ndr-memif.sock"
MEMIF_RX="net_memif1,role=server,socket=$WORK/ndr-memif.sock"
RAW_SECONDS=1 raw memif --tx-port "$MEMIF_TX" --rx-port "$MEMIF_RX" --payload-bytes 1000 "${search[@]}" \
  --search-upper-mbps 20 --search-trial-seconds 1
trials_exact memif "net_memif"
record memif | jq -c '.search.trials[] | [.purpose, .offered_mbps, .sent, .received, .lost, .tx_mbps, .verdict, .reason]' >&2 || true
expect memif '.search.ndr_at_upper and .search.ndr_mbps == 20 and (.search.trials | length) == 2' \
  "net_memif loses nothing: the NDR is the upper bound, one trial and its verification"

memif_ndr=$(record memif | jq .search.ndr_mbps)
WIRE_PREFIX=ndr
export SBW_IF_A="ndr$$a0" SBW_IF_B="ndr$$b0"
wire_up 9000
port() { echo "net_af_packet$1,iface=$2,netns=$3,qpairs=1"; }
RAW_SECONDS=1 raw afp --tx-port "$(port 0 "$SBW_IF_A" "$NS_A")" --rx-port "$(port 1 "$SBW_IF_B" "$NS_B")" \
  --payload-bytes 1000 "${search[@]}"
record afp | jq -c '.search | del(.trials), (.trials[] | [.purpose, .offered_mbps, .rate_mbps, .sent, .received, .lost, .loss_ppm, .tx_mbps, .rx_mbps, .verdict])' >&2 || true
expect afp '[.search.trials[] | .sent == .received + .lost] | all' "af_packet: every trial, sent = received + lost"
expect afp '.search.trials[0].offered_mbps == 0 and .search.upper_mbps > 0' "af_packet: the upper bound from an unpaced trial"
expect afp '.search.ndr_mbps > 0 and .search.trials[-1].purpose == "verify" and .search.trials[-1].offered_mbps == .search.ndr_mbps' \
  "af_packet: an NDR, verified at that rate"
expect afp '(.search.verified and .state == "Valid") or (.state == "Invalid" and (.reason | startswith("verification at the NDR") or startswith("sender reached")))' \
  "af_packet: a verification that lost makes the cell Invalid with the reason"
echo "PASS: raw rate search: memif NDR $memif_ndr Mb/s (upper bound); af_packet $(record afp | jq -r '.search | "NDR \(.ndr_mbps) Mb/s of upper \(.upper_mbps) in \(.search_trials) trials + verification"')"
