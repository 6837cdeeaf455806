#!/usr/bin/env bash
# Paced TCP over 127.0.0.1 (application-level, as iperf3 -b): two pairs at 400 Mb/s together
# never exceed the target by more than 15 % (unpaced loopback TCP runs at many Gb/s) and reach
# at least 60 % of it (generous: the machine is shared and a sender may lose its core), every
# pair near its half, and
# the run stays Valid with every byte written read. 1 MiB messages check that a message larger
# than 20 ms of tokens is still paced, not refused or sent at line rate.
source "$(dirname "$0")/lib.sh"
port=17901
for payload in 8000 1048576; do
  args=(--transport tcp --pairs 2 --payload-bytes "$payload" --base-port "$port" --seconds 2 --warmup-seconds 0.5)
  start server - server "${args[@]}" --bind-address 127.0.0.1 --grace-ms 1000
  run client - client "${args[@]}" --target-mbps 400 --server-address 127.0.0.1 --summary-file "$WORK/paced.summary"
  finish server
  expect_rc server 0
  expect_rc client 0
  for side in server client; do
    expect $side '.state == "Valid" and .tx_bytes_all == .rx_bytes_all' "$payload B: paced run is Valid, every byte read"
    expect $side '.tx_mbps >= 240 and .tx_mbps <= 460' "$payload B: pacing holds the 400 Mb/s target (60..115 %)"
    expect $side '[.pair_results[].tx_bytes] | (max - min) <= 0.2 * max' "$payload B: the pairs share the target evenly"
  done
  expect_summary "$WORK/paced.summary" '.target_mbps == 400 and .drops_kind == "tcp-nstat-retrans+inerrs"'
  port=$((port + 10))
  echo "paced $payload B: $(record client | jq -r '"\(.tx_mbps) Mb/s sent, \(.rx_mbps) Mb/s received"')"
done
echo "PASS: tcp paced at 400 Mb/s over 127.0.0.1"
