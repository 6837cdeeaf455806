#!/usr/bin/env bash
# The loopback role runs both sides in one process, through the same control protocol.
source "$(dirname "$0")/lib.sh"
run tcp - loopback --transport tcp --pairs 1 --base-port 17401 --seconds 1 --warmup-seconds 0.2 \
  --summary-file "$WORK/tcp.summary" --csv
expect_rc tcp 0
expect tcp '.role == "loopback" and .state == "Valid" and .tx_bytes_all == .rx_bytes_all' "tcp loopback is Valid"
expect_summary "$WORK/tcp.summary" '.role == "loopback" and .state == "Valid"'
header=$(grep -n '^lang,backend,' "$WORK/tcp.out" | cut -d: -f1)
[[ -n $header ]] || fail "--csv printed no header"
row=$(sed -n "$((header + 1))p" "$WORK/tcp.out")
[[ $row == cpp,socket-tcp,none,8000,1,1,* ]] || fail "csv row: $row"

run udp - loopback --transport udp --pairs 1 --payload-bytes 1400 --target-mbps 200 --base-port 17411 \
  --seconds 1 --warmup-seconds 0.2 --grace-ms 300
expect_rc udp 0
expect udp '.role == "loopback" and .state == "Valid" and .lost == 0 and .rx_packets > 0' "paced udp loopback, no loss"
echo "PASS: loopback tcp $(record tcp | jq .tx_mbps) Mb/s, udp $(record udp | jq .rx_mbps) Mb/s"
