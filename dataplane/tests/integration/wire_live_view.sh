#!/usr/bin/env bash
# The live view over the veth wire: a TCP server's progress lines (one a second) piped into
# `sbctl watch --log -` running in tmux; two capture-panes 1.5 s apart must both show per-queue
# RX bars and a NOW total above zero, and differ. $3 is the repository root (sbctl is built
# from cmd/sbctl). The captures are kept when LIVE_VIEW_OUT names a directory (docs/reports.md).
source "$(dirname "$0")/lib.sh"
ROOT=$3
command -v tmux >/dev/null || skip "tmux is not installed (hack/deps-views.sh installs it)"
command -v go >/dev/null || skip "go is not installed: sbctl cannot be built"
(cd "$ROOT" && GOFLAGS=-buildvcs=false go build -o "$WORK/sbctl" ./cmd/sbctl) || fail "go build ./cmd/sbctl"
wire_up 9000
args=(--transport tcp --pairs 2 --payload-bytes 8000 --base-port 17601 --seconds 6 --warmup-seconds 0.5)
session="spiral-live-$$"
# the pane runs the server piped into sbctl, then keeps the last frame on screen
tmux new-session -d -s "$session" -x 110 -y 24 \
  "ip netns exec $NS_B $BIN server ${args[*]} --bind-address $IP_B --grace-ms 500 | $WORK/sbctl watch --log -; sleep 60"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; cleanup' EXIT
sleep 1
start client "$NS_A" client "${args[@]}" --server-address "$IP_B"
sleep 3.5
tmux capture-pane -p -t "$session" >"$WORK/capture1"
sleep 1.5
tmux capture-pane -p -t "$session" >"$WORK/capture2"
finish client
expect_rc client 0
for c in capture1 capture2; do
  grep -q "queue 0 .*RX █" "$WORK/$c" || fail "$c shows no RX bar for queue 0: $(cat "$WORK/$c")"
  grep -q "queue 1 .*RX █" "$WORK/$c" || fail "$c shows no RX bar for queue 1: $(cat "$WORK/$c")"
  now=$(sed -n 's/.*NOW .*RX *\([0-9.]*\) Gb\/s.*/\1/p' "$WORK/$c")
  awk -v n="${now:-0}" 'BEGIN { exit !(n > 0) }' || fail "$c: NOW RX is '$now': $(cat "$WORK/$c")"
done
cmp -s "$WORK/capture1" "$WORK/capture2" && fail "the two captures are identical: $(cat "$WORK/capture1")"
if [[ -n ${LIVE_VIEW_OUT:-} ]]; then cp "$WORK/capture1" "$WORK/capture2" "$LIVE_VIEW_OUT/"; fi
echo "PASS: live view over the veth wire; second capture:"
cat "$WORK/capture2"
