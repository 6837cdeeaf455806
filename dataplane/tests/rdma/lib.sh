# shellcheck shell=bash
# Helpers for the real-RDMA tests (sourced). They need two RDMA devices joined by a wire, as the
# Soft-RoCE VM of hack/rxe-vm.sh provides (make test-rdma runs them there):
#   RXE_A on NETDEV_A with IP_A (the server's side), RXE_B on NETDEV_B with IP_B (the client's).
# Elsewhere they skip (77) with the reason. Arguments from ctest or make: $1 the binary.
# shellcheck source=../integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh" "$1" -

need_rdma_pair() {
  [[ -n ${RXE_A:-} && -n ${RXE_B:-} ]] ||
    skip "needs two RDMA devices across a wire (RXE_A, RXE_B): make test-rdma runs this inside hack/rxe-vm.sh's Soft-RoCE VM"
  [[ -e /sys/class/infiniband/$RXE_A && -e /sys/class/infiniband/$RXE_B ]] ||
    skip "RDMA devices $RXE_A and $RXE_B are not here"
}

wait_ready() {
  local _
  for _ in $(seq 400); do
    [[ -s $1 ]] && return 0
    sleep 0.05
  done
  fail "server never became ready ($1)"
}

# roce_pair NAME ARGS...: a server on side A and a client on side B with the same ARGS; waits
# for both. Results: NAME-server, NAME-client (records), $WORK/NAME-{server,client}.summary.
roce_pair() {
  local name=$1
  shift
  start "$name-server" - server --transport roce --netdev "$NETDEV_A" --bind-address "$IP_A" \
    --ready-file "$WORK/$name.ready" --summary-file "$WORK/$name-server.summary" "$@"
  wait_ready "$WORK/$name.ready"
  run "$name-client" - client --transport roce --netdev "$NETDEV_B" --bind-address "$IP_B" --server-address "$IP_A" \
    --summary-file "$WORK/$name-client.summary" "$@"
  finish "$name-server"
}

# expect_checks NAME PROGRAM: PROGRAM (jq) turns the run's record into a list of problems; none
# may be left. One jq per record: process start-up is slow in the emulated VM.
expect_checks() {
  local problems
  problems=$(record "$1" | jq -r "$2 | .[]") || { show "$1"; fail "$1: no result record"; }
  [[ -z $problems ]] || { show "$1"; fail "$1: ${problems//$'\n'/; }"; }
}

# What every intact roce run satisfies, on either side.
# shellcheck disable=SC2016 # jq's own \( ) interpolation
INTACT='[
  (select(.state != "Valid") | "state \(.state): \(.reason)"),
  (select((.tx_packets > 0 and .tx_packets == .rx_packets and .tx_bytes == .rx_bytes) | not)
    | "window counts disagree: sent \(.tx_packets) msgs/\(.tx_bytes) B, completed \(.rx_packets)/\(.rx_bytes)"),
  (select(.tx_bytes_all != .rx_bytes_all) | "posted \(.tx_bytes_all) B in all, completed \(.rx_bytes_all)"),
  (select(.drops != 0 or .drops_kind != "rdma-cqe-error" or (.rdma.wc_errors | length) != 0)
    | "failed completions: \(.drops) \(.drops_kind) \(.rdma.wc_errors)"),
  (select((.rdma.verify_payload and .rdma.corrupt == 0 and .rdma.verified > 0) | not)
    | "payload: \(.rdma.verified) checked, \(.rdma.corrupt) corrupt"),
  (select(.pair_results | any(.tx_packets == 0 or .tx_packets != .rx_packets)) | "a queue pair carried nothing or lost count")
]'

# expect_intact NAME: both ends completed, Valid, every message counted on both sides and its
# every byte checked, nothing failed, both records and summaries agree.
expect_intact() {
  local name=$1 side both
  expect_rc "$name-server" 0
  expect_rc "$name-client" 0
  for side in "$name-server" "$name-client"; do expect_checks "$side" "$INTACT"; done
  both=$( (record "$name-server"; record "$name-client") | jq -s -r '
    [.[] | [.tx_packets, .rx_packets, .tx_bytes, .rx_bytes, .tx_bytes_all, .rx_bytes_all,
            .rdma.verified, .rdma.messages_all, .rdma.completions]] | select(.[0] != .[1]) | "\(.[0]) vs \(.[1])"')
  [[ -z $both ]] || fail "$name: server and client records differ (packets, bytes, checks): $both"
  expect_summary "$WORK/$name-client.summary" '.state == "Valid" and .transport == "roce" and .drops_kind == "rdma-cqe-error"'
  expect_summary "$WORK/$name-server.summary" '.state == "Valid" and .rx_bytes > 0'
}

# one line per run for the log: throughput, checks, retries
describe() {
  record "$1-client" | jq -r '"\(.rdma.verb) \(.payload_bytes) B x \(.pairs) QP: \(.rx_mbps) Mb/s, \(.rx_packets) msgs in the window, \(.rdma.verified) of \(.rdma.messages_all) checked, retries \(.rdma.tx_retries)/\(.rdma.rx_retries)"'
}
