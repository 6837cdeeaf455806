#!/usr/bin/env bash
# Runs the same cells with two spiral-dataplane binaries (e.g. main's and a branch's) and compares the
# shape of every output: the record's key paths in order, the summary's keys in order, the CSV header
# and the CSV row's non-numeric columns, the ready file's keys, a failed run and a refusal.
# Usage: hack/bench/outputs-compat.sh OLD_BINARY NEW_BINARY (needs jq; raw cells need DPDK).
set -uo pipefail
A=$1 B=$2 W=$(mktemp -d)
run() {  # bin tag args...
  local bin=$1 tag=$2; shift 2
  "$bin" "$@" --summary-file "$W/$tag.sum" --csv --label repeat=1 >"$W/$tag.out" 2>"$W/$tag.err"
  echo "$?" >"$W/$tag.rc"
}
shape() {  # tag -> normalised shape
  local t=$1
  echo "rc $(cat "$W/$t.rc")"
  grep '^{' "$W/$t.out" | head -1 | jq -c '[paths | map(tostring) | join(".")] | map(select(test("^(host|cell\\.labels|pair_results\\.[1-9]|cpu_cores|raw\\.eal_args|raw\\.rx_queue_packets\\.[0-9])") | not))'
  grep '^{' "$W/$t.out" | head -1 | jq -c '{transport, role, state, drops_kind, cell: (.cell | del(.ready_file, .summary_file, .csv_file, .labels, .base_port, .control_port))}'
  jq -c 'keys_unsorted' "$W/$t.sum" 2>/dev/null || echo "no summary"
  jq -c '{transport, state, drops_kind}' "$W/$t.sum" 2>/dev/null
  grep '^lang,' "$W/$t.out"
  grep '^cpp,' "$W/$t.out" | awk -F, '{print $1,$2,$3,$4,$5,$6,$7,$8,$16,NF}'
  [[ -f $W/$t.ready ]] && jq -c 'keys' "$W/$t.ready"
  return 0
}
i=0
for bin in "$A" "$B"; do
  i=$((i+1))
  run "$bin" tcp$i loopback --transport tcp --seconds 0.5 --warmup-seconds 0.2 --base-port $((16000+i*10))
  run "$bin" udp$i loopback --transport udp --seconds 0.5 --warmup-seconds 0.2 --base-port $((16100+i*10)) --payload-bytes 1000 --target-mbps 50
  run "$bin" raw$i loopback --transport raw --tx-port net_ring0 --rx-port net_ring0 --payload-bytes 1000 --seconds 0.5 --warmup-seconds 0.2 --ready-file "$W/raw$i.ready"
  run "$bin" bad$i client --transport udp --server-address 10.255.255.1 --connect-timeout-ms 300 --seconds 0.5
  run "$bin" roce$i client --transport roce --verb read --mode latency --seconds 0.5 --connect-timeout-ms 300 --server-address 127.0.0.1 --base-port 16300
  run "$bin" badkey$i loopback --transport tcp --verb read
done
status=0
for t in tcp udp raw bad roce badkey; do
  if diff <(shape ${t}1) <(shape ${t}2) >"$W/$t.diff"; then echo "$t: same shape"; else echo "$t: DIFFERS"; cat "$W/$t.diff"; status=1; fi
  [[ $t == badkey ]] && diff "$W/badkey1.err" "$W/badkey2.err" && echo "badkey: same message: $(cat "$W/badkey1.err")"
done
rm -rf "$W"
exit $status
