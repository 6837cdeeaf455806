#!/usr/bin/env bash
# UDP over 127.0.0.1: paced at a rate this machine holds -> zero loss; unpaced -> any loss, but
# sent = received + lost exactly, on every pair.
source "$(dirname "$0")/lib.sh"
args=(--transport udp --pairs 2 --payload-bytes 8000 --base-port 17301 --seconds 1.5 --warmup-seconds 0.5)
start server - server "${args[@]}" --bind-address 127.0.0.1 --grace-ms 500
run client - client "${args[@]}" --target-mbps 400 --summary-file "$WORK/paced.summary"
finish server
expect_rc server 0
expect_rc client 0
for side in server client; do
  expect $side '.state == "Valid"' "paced run is Valid"
  expect $side '.lost == 0 and .tx_packets == .rx_packets and .tx_packets > 0' "no loss at 400 Mb/s"
  expect $side '.tx_mbps >= 380 and .tx_mbps <= 420' "pacing holds the 400 Mb/s target"
  expect $side '.duplicated == 0 and .stale == 0 and .malformed == 0' "clean accounting"
done
expect_summary "$WORK/paced.summary" '.lost == 0 and .drops == 0 and .drops_kind == "udp-proc-net-udp-drops" and .target_mbps == 400'
paced=$(record client | jq -r '"\(.tx_mbps) Mb/s, \(.rx_packets) datagrams, 0 lost"')

args=(--transport udp --pairs 2 --payload-bytes 1000 --base-port 17311 --seconds 1 --warmup-seconds 0.3)
start server - server "${args[@]}" --bind-address 127.0.0.1 --grace-ms 500
run client - client "${args[@]}"
finish server
expect_rc server 0
expect_rc client 0
for side in server client; do
  expect $side '.state == "Valid"' "unpaced run is Valid (counters consistent)"
  expect $side '.tx_packets == .rx_packets + .lost' "sent = received + lost"
  expect $side 'all(.pair_results[]; .tx_packets == .rx_packets + .lost)' "sent = received + lost per pair"
done
same_on_both_sides server client tx_packets rx_packets lost kernel_drops
echo "PASS: udp 127.0.0.1 paced $paced; unpaced $(record client | jq -r '"\(.tx_mbps) Mb/s, loss \(.loss_ppm) ppm"')"
