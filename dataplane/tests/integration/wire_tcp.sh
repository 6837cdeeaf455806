#!/usr/bin/env bash
# TCP across the veth wire (two namespaces, MTU 9000): both sides agree on every byte.
source "$(dirname "$0")/lib.sh"
wire_up 9000
args=(--transport tcp --pairs 2 --payload-bytes 8000 --base-port 17501 --seconds 1.5 --warmup-seconds 0.5)
start server "$NS_B" server "${args[@]}" --bind-address "$IP_B" --grace-ms 1000
run client "$NS_A" client "${args[@]}" --server-address "$IP_B" --csv-file "$WORK/runs.csv"
finish server
expect_rc server 0
expect_rc client 0
for side in server client; do
  expect $side '.state == "Valid"' "run is Valid"
  expect $side '.tx_bytes_all == .rx_bytes_all and .rx_bytes > 0' "every byte written was read"
done
same_on_both_sides server client tx_bytes rx_bytes tx_bytes_all rx_bytes_all
[[ $(wc -l <"$WORK/runs.csv") == 2 ]] || fail "csv file: $(cat "$WORK/runs.csv")"
echo "PASS: tcp over the veth wire: $(record client | jq -r '"\(.tx_mbps) Mb/s, \(.tcp_retrans) retransmits"')"
