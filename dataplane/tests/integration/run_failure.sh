#!/usr/bin/env bash
# A run that breaks half-way: both sides exit 1 and say why, in the record and the summary.
source "$(dirname "$0")/lib.sh"
args=(--transport tcp --pairs 1 --base-port 17801 --seconds 3 --warmup-seconds 0.2)
start server - server "${args[@]}" --bind-address 127.0.0.1 --ready-file "$WORK/ready" --summary-file "$WORK/server.summary"
start client - client "${args[@]}" --summary-file "$WORK/client.summary"
# kill the server once data flows on pair 0 (its TCP connection is established), mid-run
for _ in $(seq 200); do
  ss -Htn state established '( sport = :17801 )' | grep -q . && break
  sleep 0.025
done
ss -Htn state established '( sport = :17801 )' | grep -q . || fail "the data connection never came up"
sleep 0.5
kill -TERM "${PID[server]}"
finish server
finish client
expect_rc server 1
expect_rc client 1
expect server '.state == "Failed" and .reason == "interrupted by signal 15"' "server says why it stopped"
expect_summary "$WORK/server.summary" '.state == "Failed" and .reason == "interrupted by signal 15"'
expect client '.state == "Failed" and (.reason | test("control connection|reset by peer"))' "client says the server went away"
expect client '.tx_bytes > 0' "client still reports what it sent"
expect_summary "$WORK/client.summary" '.state == "Failed" and .tx_bytes > 0'
echo "PASS: mid-run failure: client reason \"$(record client | jq -r .reason)\""
