#!/usr/bin/env bash
# Bad input: one clear line on stderr and exit code 2, before any traffic.
source "$(dirname "$0")/lib.sh"

# The refusal names the registry's kinds, as --describe-kinds lists them: "a, b or c".
kinds=$("$BIN" --describe-kinds | jq -r '[.kinds[].name] | (.[:-1] | join(", ")) + " or " + .[-1]')
run transport - server --transport sctp
expect_rc transport 2
expect_stderr transport "cell: \"transport\" must be $kinds, got \"sctp\""

echo '{"transport": "tcp", "role": "client", "pairz": 4}' >"$WORK/cell.json"
run key - --cell "$WORK/cell.json"
expect_rc key 2
expect_stderr key 'cell: unknown key "pairz"'

run cuda - server --transport udp --workload gemm
expect_rc cuda 2
expect_stderr cuda "built without CUDA"

run repeats - server --transport tcp --repeats 5
expect_rc repeats 2
expect_stderr repeats '"repeats"'

run flag - server --transport tcp --pairs many
expect_rc flag 2
expect_stderr flag "--pairs"

# port in use: a second server on the same ports
start holder - server --transport tcp --base-port 17701 --bind-address 127.0.0.1 --accept-timeout-ms 5000 \
  --ready-file "$WORK/holder.ready"
for _ in $(seq 100); do [[ -s $WORK/holder.ready ]] && break; sleep 0.05; done
[[ -s $WORK/holder.ready ]] || fail "first server never became ready"
run inuse - server --transport tcp --base-port 17701 --bind-address 127.0.0.1 --summary-file "$WORK/inuse.summary"
expect_rc inuse 2
expect_stderr inuse "port 127.0.0.1:17701 is in use"
expect_summary "$WORK/inuse.summary" '.state == "Failed" and (.reason | startswith("bad input: tcp port"))'

# the client's cell must match the server's
run mismatch - client --transport tcp --pairs 2 --base-port 17701 --connect-timeout-ms 2000
expect_rc mismatch 2
expect_stderr mismatch "server refused the run: pairs is 2 on the client, 1 on the server"
finish holder
expect_rc holder 2

# nobody listening: unreachable within the connect timeout
started=$(date +%s%N)
run unreachable - client --transport tcp --base-port 17711 --connect-timeout-ms 300
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
expect_rc unreachable 2
expect_stderr unreachable "server 127.0.0.1:17710 unreachable within connect_timeout_ms"
((elapsed_ms < 3000)) || fail "unreachable took ${elapsed_ms} ms"
echo "PASS: bad input refused with exit 2 (unreachable after ${elapsed_ms} ms)"

# kinds of ranks: a CPU build parses them and refuses to run them, saying why (the GPU machine's
# run: hack/bench/nccl-device-run.sh); a wrong role or option is refused before that
run nccl - rank --transport nccl --op all_gather --gpus 1 --nranks 1 --summary-file "$WORK/nccl.summary"
expect_rc nccl 2
expect_stderr nccl "built without NCCL"
expect_summary "$WORK/nccl.summary" '.state == "Failed" and (.reason | contains("built without NCCL"))'
run nccl_role - server --transport nccl
expect_rc nccl_role 2
expect_stderr nccl_role 'cell: "role" is server, but nccl runs as ranks: use role rank (or loopback)'
run nccl_op - rank --transport nccl --op allgather
expect_rc nccl_op 2
expect_stderr nccl_op 'cell: "op" unknown NCCL operation "allgather"'
run nccl_root - rank --transport nccl --op broadcast --nranks 2 --gpus 1 --root 2
expect_rc nccl_root 2
expect_stderr nccl_root 'cell: "root" must be a rank below nranks 2'
run tcp_rank - rank --transport tcp
expect_rc tcp_rank 2
expect_stderr tcp_rank 'cell: "role" is rank, which only kinds that run as ranks take (tcp does not)'
run copy_memory - loopback --transport gpucopy --host-memory managed
expect_rc copy_memory 2
expect_stderr copy_memory 'cell: "host_memory" unknown host memory "managed"'
