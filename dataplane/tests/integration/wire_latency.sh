#!/usr/bin/env bash
# Latency mode (ping-pong) of tcp and udp across the veth wire, blocking and spinning: every ping
# answered and timed, both sides count the same round trips, the percentiles ordered and the
# histogram holding every sample; SO_BUSY_POLL accepted; the record, summary and CSV carry them.
source "$(dirname "$0")/lib.sh"
wire_up 9000 sblat
port=17701
# spin needs a core per side: client and server on different cores when there are two
cores=()
(($(nproc) >= 2)) && cores=(--tx-cores 0 --rx-cores 1)
check_run() {  # check_run TRANSPORT WAIT PAYLOAD
  local what="$1 $2 $3 B"
  expect_rc server 0
  expect_rc client 0
  for side in server client; do
    expect $side '.state == "Valid"' "$what: run is Valid"
    expect $side '.tx_packets > 0 and .tx_packets == .rx_packets and .lost == 0' "$what: every ping of the window answered"
    expect $side '.latency.samples == .rx_packets' "$what: one timed round trip per answered ping"
    expect $side '.ping_pong.pings_all == .ping_pong.answered_all and .ping_pong.answered_all == .ping_pong.echoed_all' \
      "$what: pings sent = echoes received = messages echoed, warm-up and drain included"
    expect $side '.latency | .min_ns > 0 and .min_ns <= .p50_ns and .p50_ns <= .p99_ns and .p99_ns <= .p999_ns and .p999_ns <= .max_ns' \
      "$what: percentiles ordered"
    expect $side '.latency as $l | ([$l.histogram[][2]] | add) == $l.samples' "$what: histogram holds every sample"
    expect $side '.latency.histogram | (.[0][0] <= 10000000) and all(.[]; .[0] < .[1] and .[2] > 0)' "$what: histogram buckets well formed"
    expect $side '.latency.histogram as $h | .latency.min_ns >= $h[0][0] and .latency.max_ns < $h[-1][1]' "$what: histogram spans min..max"
    expect $side ".cell.mode == \"latency\" and .cell.wait == \"$2\" and .payload_bytes == $3" "$what: cell echoed"
  done
  same_on_both_sides server client tx_packets rx_packets latency.samples latency.p50_ns latency.p999_ns ping_pong.echoed_all
  expect_summary "$WORK/summary.json" '.lat_min_ns > 0 and .lat_p50_ns <= .lat_p99_ns and .lat_p99_ns <= .lat_p999_ns and .lat_p999_ns <= .lat_max_ns'
}
for transport in tcp udp; do
  for wait in blocking spin; do
    for payload in 64 8000; do
      args=(--transport "$transport" --mode latency --wait "$wait" --payload-bytes "$payload" --base-port "$port"
            --seconds 0.4 --warmup-seconds 0.1 "${cores[@]}")
      start server "$NS_B" server "${args[@]}" --bind-address "$IP_B" --grace-ms 1000
      run client "$NS_A" client "${args[@]}" --server-address "$IP_B" --summary-file "$WORK/summary.json" \
        --csv-file "$WORK/runs.csv"
      finish server
      check_run "$transport" "$wait" "$payload"
      echo "  $transport $wait ${payload} B: $(record client | jq -r '.latency | "p50 \(.p50_ns) ns, p99 \(.p99_ns) ns, p99.9 \(.p999_ns) ns over \(.samples) round trips"')"
      port=$((port + 2))
    done
  done
done
# SO_BUSY_POLL on both sides (the kernel polls the queue before sleeping; root may set it).
args=(--transport tcp --mode latency --busy-poll-us 50 --payload-bytes 256 --base-port "$port" --seconds 0.4 --warmup-seconds 0.1)
start server "$NS_B" server "${args[@]}" --bind-address "$IP_B" --grace-ms 1000
run client "$NS_A" client "${args[@]}" --server-address "$IP_B" --summary-file "$WORK/summary.json"
finish server
check_run tcp blocking 256
expect client '.ping_pong.busy_poll_us == 50' "busy_poll_us echoed"
# The 8 clients given --csv-file wrote 8 rows after one header, with the percentile columns.
[[ $(wc -l <"$WORK/runs.csv") == 9 ]] || fail "csv file has $(wc -l <"$WORK/runs.csv") lines"
head -n1 "$WORK/runs.csv" | grep -q 'lat_p50_ns,lat_p99_ns,lat_p999_ns' || fail "csv header lacks the latency columns"
echo "PASS: tcp and udp latency mode over the veth wire"
