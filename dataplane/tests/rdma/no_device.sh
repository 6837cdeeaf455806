#!/usr/bin/env bash
# On a host without RDMA (like the CI machine outside its VM), transport roce is refused with
# exit 2 and says why, before it listens or connects.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
devices=(/sys/class/infiniband/*)
[[ -e ${devices[0]} ]] && skip "this host has RDMA devices (${devices[*]##*/})"
run server - server --transport roce --base-port 18531 --summary-file "$WORK/server.summary"
expect_rc server 2
expect_stderr server "no RDMA device: ibv_get_device_list"
expect_summary "$WORK/server.summary" '.state == "Failed" and .transport == "roce" and .drops_kind == "rdma-cqe-error"'
echo "PASS: $(cat "$WORK/server.err")"
