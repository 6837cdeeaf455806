#!/usr/bin/env bash
# TCP over 127.0.0.1, two pairs: both sides complete, agree, and every byte written is read.
source "$(dirname "$0")/lib.sh"
args=(--transport tcp --pairs 2 --payload-bytes 8000 --base-port 17201 --seconds 1.5 --warmup-seconds 0.5)
start server - server "${args[@]}" --bind-address 127.0.0.1 --grace-ms 1000 \
  --ready-file "$WORK/ready" --summary-file "$WORK/server.summary"
# no wait here: the client itself waits for the server's port (the start barrier)
run client - client "${args[@]}" --server-address 127.0.0.1 --summary-file "$WORK/client.summary" \
  --label cell=tcp-localhost --label repeat=1
finish server
expect_rc server 0
expect_rc client 0
jq -e '.event == "ready" and .base_port == 17201 and .control_port == 17200' "$WORK/ready" >/dev/null ||
  fail "ready file: $(cat "$WORK/ready")"
for side in server client; do
  expect $side '.state == "Valid" and .reason == ""' "run is Valid"
  expect $side '.tx_bytes_all == .rx_bytes_all and .rx_bytes_all > 0' "every byte written was read"
  expect $side '[.pair_results[].rx_bytes] | length == 2 and all(. > 0)' "both pairs carried data"
  expect $side '.drops_kind == "tcp-nstat-retrans+inerrs" and .seconds_milli >= 1400' "window and drop kind"
  # the receiver's window is timed by the control marks: within 10 % of the sender's
  expect $side '((.tx_bytes - .rx_bytes) | fabs) <= 0.1 * .tx_bytes' "window byte counts agree"
  expect_summary "$WORK/$side.summary" ".state == \"Valid\" and .role == \"$side\" and .tx_bytes > 0 and .rx_mbps > 0"
done
same_on_both_sides server client tx_bytes rx_bytes tx_bytes_all rx_bytes_all tcp_retrans rx_recv_calls rx_recv_ns
# the receiver times its recv() calls (hack/gpu/tcp-gap.sh): at most one 256 KiB read per call
expect server '.rx_recv_calls > 0 and .rx_recv_ns > 0 and .rx_recv_calls >= .rx_bytes_all / 262144' "recv() calls timed"
expect client '.labels == {"cell": "tcp-localhost", "repeat": "1"}' "labels echoed"
# The diagnostic SPIRAL_TCP_RECV_SPAN_BYTES (recv() through 3 MiB of buffer, as a GPU path's
# windows) changes where the bytes land, never what is counted.
SPIRAL_TCP_RECV_SPAN_BYTES=3145728 start span_server - server "${args[@]}" --bind-address 127.0.0.1 --grace-ms 1000
run span_client - client "${args[@]}" --server-address 127.0.0.1
finish span_server
expect_rc span_server 0
expect span_server '.state == "Valid" and .tx_bytes_all == .rx_bytes_all and .rx_bytes_all > 3145728' "span: every byte read"
SPIRAL_TCP_RECV_SPAN_BYTES=lots run span_bad - server "${args[@]}" --bind-address 127.0.0.1
expect_rc span_bad 2
echo "PASS: tcp 127.0.0.1: $(record client | jq -r '"\(.tx_mbps) Mb/s, \(.tx_bytes_all) bytes both sides"')"
