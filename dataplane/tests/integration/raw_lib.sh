# Helpers for the raw (DPDK) integration tests, sourced after lib.sh.
# Each run uses --no-huge: plain memory, nothing left behind, whatever hugepages the host has.

# Skips (77) when this build has no raw transport.
require_raw() {
  local err
  err=$("$BIN" loopback --transport raw --tx-port net_ring0 --rx-port net_ring0 --seconds 0.01 --role server 2>&1 || true)
  [[ $err != *"built without"* ]] || skip "spiral-dataplane was built without DPDK"
}

# raw NAME ARGS...: a short raw loopback run in the foreground.
raw() {
  local name=$1
  shift
  run "$name" - loopback --transport raw --no-huge --seconds "${RAW_SECONDS:-0.5}" --warmup-seconds 0.2 \
    --grace-ms 1000 --summary-file "$WORK/$name.summary" "$@"
}

# accounted NAME WHAT: the run completed Valid and every frame sent in the window was received or
# counted as dropped, per stream and in total.
accounted() {
  expect_rc "$1" 0
  expect "$1" '.state == "Valid" and .tx_packets > 0 and .rx_packets > 0' "$2: Valid, frames both ways"
  expect "$1" '.tx_packets == .rx_packets + .lost and .drops + .raw.gap >= .lost and .malformed == 0 and .duplicated == 0' \
    "$2: sent = received + lost"
  expect "$1" '[.pair_results[] | .tx_packets == .rx_packets + .lost] | all' "$2: per stream, sent = received + lost"
  expect "$1" '.raw.phy_checked == false and .raw.phy_note == "no PHY counters"' "$2: no PHY counters claimed"
  expect_summary "$WORK/$1.summary" '.transport == "raw" and .state == "Valid" and (.phy_checked == false)'
}

brief() { record "$1" | jq -r '"\(.tx_packets) sent, \(.rx_packets) received, \(.lost) lost (\(.drops_kind)), \(.rx_mbps) Mb/s"'; }
