#!/usr/bin/env bash
# What goes wrong before any traffic says so on one line and exits 2: a device without the netdev,
# an unknown device, a netdev without a device, no GID for the address, a message over the
# port's max_msg_sz, memory registration and locking refused by RLIMIT_MEMLOCK, and a client
# whose verb differs from the server's.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
need_rdma_pair

refused() {  # refused NAME TEXT ARGS...: exit 2 with TEXT on stderr, before any traffic
  local name=$1 text=$2
  shift 2
  run "$name" - server --transport roce --base-port 18501 "$@"
  expect_rc "$name" 2
  expect_stderr "$name" "$text"
}
refused wrong-netdev "RDMA device $RXE_A is not on netdev $NETDEV_B (it is on $NETDEV_A)" --rdma-device "$RXE_A" --netdev "$NETDEV_B"
refused unknown-device "RDMA device \"mlx5_9\" not found (devices here:" --rdma-device mlx5_9
refused no-device "no RDMA device on netdev lo (RDMA devices and their netdevs:" --netdev lo
refused no-gid "GID not found: no RoCE v2 GID for $IP_B on netdev $NETDEV_A" --netdev "$NETDEV_A" --bind-address "$IP_B"
refused too-big "exceeds the largest message port 1 of" --netdev "$NETDEV_A" --payload-bytes 16777216

# RLIMIT_MEMLOCK: an unprivileged user (no CAP_IPC_LOCK) with a 64 KiB limit
if ! command -v setpriv >/dev/null || ! command -v prlimit >/dev/null; then skip "setpriv/prlimit (util-linux) missing"; fi
as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups prlimit --memlock=65536)
rc=0
"${as_nobody[@]}" "$BIN" server --transport roce --netdev "$NETDEV_A" --payload-bytes 1048576 --base-port 18511 \
  --accept-timeout-ms 1000 >"$WORK/memlock.out" 2>"$WORK/memlock.err" || rc=$?
[[ $rc == 2 ]] || fail "memlock: exit $rc, expected 2: $(cat "$WORK/memlock.err")"
grep -qF "refused (ibv_reg_mr): Cannot allocate memory: the locked-memory limit RLIMIT_MEMLOCK (ulimit -l) is 64 KiB and this process lacks CAP_IPC_LOCK" \
  "$WORK/memlock.err" || fail "memlock message: $(cat "$WORK/memlock.err")"
rc=0
"${as_nobody[@]}" "$BIN" server --transport roce --netdev "$NETDEV_A" --payload-bytes 1048576 --memory host_pinned \
  --base-port 18511 --accept-timeout-ms 1000 >"$WORK/mlock.out" 2>"$WORK/mlock.err" || rc=$?
[[ $rc == 2 ]] || fail "host_pinned: exit $rc, expected 2: $(cat "$WORK/mlock.err")"
grep -qF "of host_pinned memory for queue pair 0: Cannot allocate memory: the locked-memory limit RLIMIT_MEMLOCK (ulimit -l) is 64 KiB" \
  "$WORK/mlock.err" || fail "host_pinned message: $(cat "$WORK/mlock.err")"

# client and server disagree on the verb: the queue pair's set-up refuses it
start mismatch-server - server --transport roce --verb send --netdev "$NETDEV_A" --bind-address "$IP_A" \
  --base-port 18521 --ready-file "$WORK/mismatch.ready" --summary-file "$WORK/mismatch-server.summary"
wait_ready "$WORK/mismatch.ready"
run mismatch-client - client --transport roce --verb write --netdev "$NETDEV_B" --server-address "$IP_A" --base-port 18521
finish mismatch-server
expect_rc mismatch-client 2
expect_stderr mismatch-client "the server refused queue pair 0: verb is \"write\" on the client, \"send\" on the server"
expect_rc mismatch-server 1
# (its reason: the refused queue pair or the client leaving, whichever it notices first)
expect_summary "$WORK/mismatch-server.summary" '.state == "Failed"'
echo "PASS: every refusal said what to change and exited 2"
