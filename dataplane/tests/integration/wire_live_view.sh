#!/usr/bin/env bash
# The live view over the veth wire: a TCP run's server and client, their progress lines (one a
# second each) piped into `sbctl watch --log -` running in tmux; two capture-panes 1.5 s apart
# must both show per-queue TX and RX bars and NOW totals above zero, and differ. $3 is the repository root (sbctl is built
# from cmd/sbctl). The captures are kept when LIVE_VIEW_OUT names a directory (docs/reports.md).
source "$(dirname "$0")/lib.sh"
ROOT=$3
command -v tmux >/dev/null || skip "tmux is not installed (hack/deps-views.sh installs it)"
command -v go >/dev/null || skip "go is not installed: sbctl cannot be built"
(cd "$ROOT" && GOFLAGS=-buildvcs=false go build -o "$WORK/sbctl" ./cmd/sbctl) || fail "go build ./cmd/sbctl"
wire_up 9000
args=(--transport tcp --pairs 2 --payload-bytes 8000 --base-port 17601 --seconds 10 --warmup-seconds 0.5)
session="spiral-live-$$"
# The pane runs server and client, both piped into sbctl (their progress lines carry RX and TX),
# then keeps the last frame on screen; the client's own output also goes to client.out.
cat >"$WORK/pane.sh" <<PANE
{
  ip netns exec $NS_B $BIN server ${args[*]} --bind-address $IP_B --grace-ms 500 &
  sleep 1
  ip netns exec $NS_A $BIN client ${args[*]} --server-address $IP_B | tee $WORK/client.out
  echo \${PIPESTATUS[0]} >$WORK/client.rc
  wait
} 2>/dev/null | $WORK/sbctl watch --log -
sleep 60
PANE
tmux new-session -d -s "$session" -x 110 -y 30 "bash $WORK/pane.sh"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; cleanup' EXIT
# live CAPTURE: the frame shows both queues' TX bars, an RX bar, NOW totals above zero and a
# full-duplex total; else prints what is missing.
live() {
  local q dir now
  for q in 0 1; do
    grep -q "queue $q .*TX █" "$WORK/$1" || { echo "no TX bar for queue $q"; return 1; }
  done
  grep -q "RX █" "$WORK/$1" || { echo "no RX bar"; return 1; }
  for dir in TX RX; do
    now=$(sed -n "s/.*NOW .*$dir *\([0-9.]*\) Gb\/s.*/\1/p" "$WORK/$1")
    awk -v n="${now:-0}" 'BEGIN { exit !(n > 0) }' || { echo "NOW $dir is '$now'"; return 1; }
  done
  grep -q "Full-duplex *[0-9.]* Gb/s" "$WORK/$1" || { echo "no full-duplex total"; return 1; }
}
for ((i = 0; i < 60; i++)); do
  sleep 0.25
  tmux capture-pane -p -t "$session" >"$WORK/capture1"
  live capture1 >/dev/null && break
done
why=$(live capture1) || fail "capture1 (after $i polls): $why: $(cat "$WORK/capture1")"
sleep 1.5
tmux capture-pane -p -t "$session" >"$WORK/capture2"
why=$(live capture2) || fail "capture2: $why: $(cat "$WORK/capture2")"
for ((i = 0; i < 200; i++)); do [[ -s $WORK/client.rc ]] && break; sleep 0.1; done
expect_rc client 0
cmp -s "$WORK/capture1" "$WORK/capture2" && fail "the two captures are identical: $(cat "$WORK/capture1")"
if [[ -n ${LIVE_VIEW_OUT:-} ]]; then cp "$WORK/capture1" "$WORK/capture2" "$LIVE_VIEW_OUT/"; fi
echo "PASS: live view over the veth wire; second capture:"
cat "$WORK/capture2"
