#!/usr/bin/env bash
# A UDP cell whose datagrams do not fit the path MTU (8000-byte payloads on a 1500-byte wire, as
# on a pod network admitted with the default topology.mtu 9000) fails in its first second on both
# sides: the client refuses it (exit 2, naming the MTU, the interface and what to change) and tells
# the server, which would otherwise wait accept_timeout_ms (5 minutes) for it, so that the server
# ends refused too, before any traffic.
source "$(dirname "$0")/lib.sh"
wire_up 1500
args=(--transport udp --pairs 2 --payload-bytes 8000 --base-port 17801 --seconds 5 --warmup-seconds 1 --repeats 3)
start server "$NS_B" server "${args[@]}" --bind-address "$IP_B" --ready-file "$WORK/server.ready" \
  --summary-file "$WORK/server.summary"
for _ in $(seq 100); do [[ -s $WORK/server.ready ]] && break; sleep 0.05; done
[[ -s $WORK/server.ready ]] || fail "server never became ready"
started=$(date +%s%N)
run client "$NS_A" client "${args[@]}" --server-address "$IP_B" --summary-file "$WORK/client.summary"
finish server
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
expect_rc client 2
expect_rc server 2
expect_stderr client "payload 8000 B + 28 B of IPv4 and UDP headers exceeds the path MTU 1500 of sbw-a0 (the route to $IP_B): lower payload_bytes (matrix.payloadBytes) to at most 1472"
expect_stderr server "the client refused the cell: payload 8000 B + 28 B of IPv4 and UDP headers exceeds the path MTU 1500"
expect_summary "$WORK/client.summary" '.state == "Failed" and (.reason | startswith("bad input: payload 8000 B"))'
expect_summary "$WORK/server.summary" '.state == "Failed" and (.reason | startswith("bad input: the client refused the cell"))'
((elapsed_ms < 3000)) || fail "both sides should end within the first seconds, took ${elapsed_ms} ms"

# the same payload fits a 9000-byte wire: the check refuses only what does not fit
"$WIRE" up 9000 >/dev/null || fail "netns-wire.sh up 9000 failed"
args=(--transport udp --pairs 1 --payload-bytes 8000 --base-port 17811 --seconds 0.5 --warmup-seconds 0.2)
start server "$NS_B" server "${args[@]}" --bind-address "$IP_B" --grace-ms 500
run client "$NS_A" client "${args[@]}" --server-address "$IP_B" --target-mbps 200
finish server
expect_rc client 0
expect_rc server 0
echo "PASS: udp payload over the path MTU refused on both sides in ${elapsed_ms} ms"
