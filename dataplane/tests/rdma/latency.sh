#!/usr/bin/env bash
# Latency mode (ping-pong, one message in flight) for send, write and read at 4 KiB: every
# ping and reply checked, percentiles ordered and identical in both summaries.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
need_rdma_pair
port=18451
lines=()
for verb in send write read; do
  roce_pair "lat-$verb" --verb "$verb" --mode latency --payload-bytes 4096 --seconds 1 --warmup-seconds 0.2 \
    --grace-ms 10000 --verify-payload --base-port $port
  port=$((port + 10))
  expect_intact "lat-$verb"
  expect_checks "lat-$verb-client" '[select(.rdma.latency.samples != .tx_packets)
    | "\(.rdma.latency.samples) round trips timed for \(.tx_packets) messages in the window"]'
  # both summaries carry the same ordered percentiles
  got=$(jq -s -r 'map([.lat_min_ns, .lat_p50_ns, .lat_p99_ns, .lat_max_ns]) |
    if .[0] != .[1] then "differ: \(.)"
    elif (.[0] | .[0] > 0 and .[0] <= .[1] and .[1] <= .[2] and .[2] <= .[3]) then "\(.[0])"
    else "out of order: \(.[0])" end' "$WORK/lat-$verb-server.summary" "$WORK/lat-$verb-client.summary")
  [[ $got == \[* ]] || fail "lat-$verb: summary latency fields $got"
  lines+=("$verb min/p50/p99/max ns $got")
done
echo "PASS: ${lines[*]}"
