#!/usr/bin/env bash
# Repeats in one process pair (the operator's grouped repeats) over 127.0.0.1: every repeat
# writes its own record and summary line, the "repeat" label counts on from the first, and
# when a later repeat fails the summary still holds the finished ones.
source "$(dirname "$0")/lib.sh"
args=(--transport tcp --pairs 1 --payload-bytes 8000 --base-port 17401 --seconds 0.5 --warmup-seconds 0.2)
start server - server "${args[@]}" --bind-address 127.0.0.1 --grace-ms 1000 --repeats 3 \
  --ready-file "$WORK/ready" --summary-file "$WORK/server.summary" --label repeat=4
run client - client "${args[@]}" --server-address 127.0.0.1 --repeats 3 --summary-file "$WORK/client.summary" \
  --label repeat=4
finish server
expect_rc server 0
expect_rc client 0
records() { grep '^{"event":"result"' "$WORK/$1.out"; }
for side in server client; do
  [[ $(records $side | wc -l) == 3 ]] || { show $side; fail "$side: expected 3 records"; }
  records $side | jq -se '[.[].labels.repeat] == ["4", "5", "6"]' >/dev/null ||
    fail "$side: records' repeat labels are not 4, 5, 6: $(records $side | jq -c .labels)"
  records $side | jq -se 'all(.state == "Valid" and .tx_bytes_all == .rx_bytes_all and .rx_bytes_all > 0)' >/dev/null ||
    fail "$side: every repeat Valid, every byte read: $(records $side | jq -c '{state,reason}')"
  size=$(wc -c <"$WORK/$side.summary")
  ((size <= 4096)) || fail "$side summary is $size bytes"
  [[ $(wc -l <"$WORK/$side.summary") == 2 ]] || fail "$side summary: expected 3 lines: $(cat "$WORK/$side.summary")"
  jq -se "length == 3 and all(.state == \"Valid\" and .role == \"$side\" and .rx_bytes > 0)" "$WORK/$side.summary" >/dev/null ||
    fail "$side summary lines: $(cat "$WORK/$side.summary")"
done
# The repeats are separate runs: their byte counts differ (the same run would agree exactly).
jq -se '[.[].rx_bytes] | unique | length == 3' "$WORK/server.summary" >/dev/null ||
  fail "server summary lines are not three separate runs: $(jq -c .rx_bytes "$WORK/server.summary")"

# A client that stops after 2 of the server's 3 repeats: the server's third fails (nobody
# connects), and its summary keeps the two finished repeats before the failed one.
start server - server "${args[@]}" --bind-address 127.0.0.1 --grace-ms 1000 --repeats 3 --accept-timeout-ms 1500 \
  --summary-file "$WORK/server2.summary"
run client2 - client "${args[@]}" --server-address 127.0.0.1 --repeats 2 --summary-file "$WORK/client2.summary"
finish server
expect_rc client2 0
expect_rc server 1
jq -se '[.[].state] == ["Valid", "Valid", "Failed"] and (.[2].reason | test("no client connected"))' \
  "$WORK/server2.summary" >/dev/null || fail "server summary after a failed third repeat: $(cat "$WORK/server2.summary")"
echo "PASS: 3 repeats in one process pair, one record and summary line each; finished repeats kept on a later failure"
