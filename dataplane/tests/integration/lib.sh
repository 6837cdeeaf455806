# Helpers shared by the integration tests (sourced). Each test script gets, from ctest:
#   $1 the spiral-dataplane binary, $2 hack/netns-wire.sh
# and exits 0 (pass), 1 (fail) or 77 (skipped, with the reason on stdout).
set -euo pipefail
BIN=$1
WIRE=$2
WORK=$(mktemp -d)
declare -A PID=()
WIRE_OWNED=0

cleanup() {
  local name
  for name in "${!PID[@]}"; do kill "${PID[$name]}" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if ((WIRE_OWNED)); then "$WIRE" down || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# Our own wire per test (namespace names carry the PID), so tests never share state.
# wire_up [MTU] [NAME]: NAME starts the namespaces' names (default $WIRE_PREFIX, else sbwt).
wire_up() {
  [[ $(id -u) == 0 ]] || skip "needs root to create network namespaces"
  command -v ip >/dev/null || skip "iproute2 (ip) is not installed"
  local name=${2:-${WIRE_PREFIX:-sbwt}}
  export SBW_NS_A="$name$$-a" SBW_NS_B="$name$$-b" SBW_IP_A=10.77.0.1 SBW_IP_B=10.77.0.2
  ip netns add "$SBW_NS_A" 2>/dev/null || skip "cannot create network namespaces here"
  ip netns del "$SBW_NS_A"
  WIRE_OWNED=1
  "$WIRE" up "${1:-9000}" >/dev/null || fail "netns-wire.sh up failed"
  NS_A=$SBW_NS_A NS_B=$SBW_NS_B IP_A=$SBW_IP_A IP_B=$SBW_IP_B
}

# start NAME NETNS|- ARGS...: runs the binary in the background (inside NETNS unless "-").
start() {
  local name=$1 ns=$2
  shift 2
  local prefix=()
  [[ $ns == - ]] || prefix=(ip netns exec "$ns")
  "${prefix[@]}" "$BIN" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  PID[$name]=$!
}
# finish NAME: waits for it and keeps its exit code.
finish() {
  local rc=0
  wait "${PID[$1]}" || rc=$?
  unset "PID[$1]"
  echo "$rc" >"$WORK/$1.rc"
}
# run NAME NETNS|- ARGS...: in the foreground.
run() {
  start "$@"
  finish "$1"
}

record() { grep '^{"event":"result"' "$WORK/$1.out" | tail -n 1 || true; }

show() {
  echo "--- $1: exit $(cat "$WORK/$1.rc" 2>/dev/null), stderr:" >&2
  cat "$WORK/$1.err" >&2
  record "$1" | jq -c '{state,reason,tx_packets,rx_packets,lost,tx_bytes,rx_bytes,tx_bytes_all,rx_bytes_all,tx_mbps,rx_mbps}' >&2 || true
}

expect_rc() {
  local got
  got=$(cat "$WORK/$1.rc")
  [[ $got == "$2" ]] || { show "$1"; fail "$1 exited $got, expected $2"; }
}
# expect NAME JQ_EXPR WHAT: the run's JSON record satisfies the expression.
expect() {
  record "$1" | jq -e "$2" >/dev/null || { show "$1"; fail "$1: $3 ($2)"; }
}
# expect_stderr NAME TEXT: exactly one line on stderr, containing TEXT.
expect_stderr() {
  local lines
  lines=$(wc -l <"$WORK/$1.err")
  [[ $lines == 1 ]] || { show "$1"; fail "$1: expected one line on stderr, got $lines"; }
  grep -qF -- "$2" "$WORK/$1.err" || { show "$1"; fail "$1: stderr lacks \"$2\""; }
}
# expect_summary FILE JQ_EXPR: the termination-log summary fits and satisfies the expression.
expect_summary() {
  local size
  size=$(wc -c <"$1")
  ((size > 0 && size <= 4096)) || fail "summary $1 is $size bytes"
  jq -e "$2" "$1" >/dev/null || { cat "$1" >&2; fail "summary $1: $2"; }
}
# same_on_both_sides A B KEY...: both records report the same figures.
same_on_both_sides() {
  local key a b
  for key in "${@:3}"; do
    a=$(record "$1" | jq ".$key")
    b=$(record "$2" | jq ".$key")
    [[ $a == "$b" ]] || fail "$key differs: $1 says $a, $2 says $b"
  done
}
