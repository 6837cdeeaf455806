#!/usr/bin/env bash
# End to end on a GPU host: TCP and UDP over a veth wire (hack/netns-wire.sh), the receiver with
# workload none and with each GPU workload, cell after cell in one run, interleaved (ABBA) so a
# drift of the machine does not pass for a workload's cost. Prints a Markdown table; with
# E2E_JSON=FILE also one JSON object per run.
#
# Usage: hack/gpu/e2e.sh SPIRAL_DATAPLANE [REPEATS (2)]
# Environment: E2E_SECONDS (3), E2E_WARMUP (1), E2E_RX_CORE (2), E2E_TX_CORE (4),
#   E2E_CELLS ("tcp udp"): tcp = 1 MiB messages, 1 pair; tcp_w1m = the same with 1 MiB GPU windows
#   (workload_batch_bytes) instead of 8 MiB; udp = 8000 B datagrams with GSO/GRO, 1 pair;
#   E2E_WORKLOADS ("none fft gemm gemm_fp16"; also none_span: none, with recv() cycling through
#   3 windows' worth of memory as the GPU path does, SPIRAL_TCP_RECV_SPAN_BYTES, TCP only;
#   WORKLOAD@VARIANT: WORKLOAD with one knob set (variant_env): nograph = SPIRAL_GPU_GRAPH=off,
#   the workload called directly each window instead of its slot's CUDA graph; calls =
#   SPIRAL_GPU_ONE_LAUNCH=off, the stream ring's windows with their CUDA calls each (stream wait,
#   graph, event) instead of one launch; wc = SPIRAL_GPU_RING_MEMORY=wc, the ring's slots in
#   write-combined memory; anything else is
#   the stream ring's shape for TCP, SPIRAL_GPU_STREAM_RING, e.g. fft@off = the staged path,
#   fft@8x64x4); E2E_PERF_DIR (unset): profile the receive core during each run's measured
#   seconds (perf record --call-graph dwarf and perf stat on E2E_RX_CORE, every thread on it),
#   into DIR/CELL-WORKLOAD-REP.data and .stat (hack/gpu/tcp-rx-profile.sh reports them).
# Needs root, iproute2 and python3. Exit 0 when every run completed (targets are reported), 77
# when the wire cannot be made here, 1 otherwise.
set -euo pipefail
BIN=$(realpath "$1")
REPEATS=${2:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
WIRE=$HERE/../netns-wire.sh
SECONDS_CELL=${E2E_SECONDS:-3}
WARMUP=${E2E_WARMUP:-1}
RX_CORE=${E2E_RX_CORE:-2}
TX_CORE=${E2E_TX_CORE:-4}
CELLS=${E2E_CELLS:-tcp udp}
read -r -a WORKLOADS <<<"${E2E_WORKLOADS:-none fft gemm gemm_fp16}"
JSON=${E2E_JSON:-}
WORK=$(mktemp -d)
export SBW_NS_A="sbge$$-a" SBW_NS_B="sbge$$-b" SBW_IF_A="sbge$$a" SBW_IF_B="sbge$$b"
export SBW_IP_A=10.78.0.1 SBW_IP_B=10.78.0.2
SERVER_PID=
# shellcheck disable=SC2317  # called by the trap
cleanup() {
  if [[ -n $SERVER_PID ]]; then kill "$SERVER_PID" 2>/dev/null || true; fi
  wait 2>/dev/null || true
  "$WIRE" down >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

[[ $(id -u) == 0 ]] || { echo "SKIP: needs root for network namespaces"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no ip (iproute2)"; exit 77; }
"$WIRE" up 9000 >"$WORK/wire.log" 2>&1 || { cat "$WORK/wire.log"; echo "SKIP: cannot make the veth wire here"; exit 77; }
[[ -n $JSON ]] && : >"$JSON"
: >"$WORK/runs.jsonl"

cell_args() {
  case $1 in
    tcp) echo "--transport tcp --payload-bytes 1048576 --pairs 1" ;;
    tcp_w1m) echo "--transport tcp --payload-bytes 1048576 --pairs 1 --workload-batch-bytes 1048576" ;;
    udp) echo "--transport udp --payload-bytes 8000 --pairs 1" ;;
  esac
}

# The receiver's environment for WORKLOAD@VARIANT.
variant_env() {
  case ${1#*@} in
    nograph) echo SPIRAL_GPU_GRAPH=off ;;
    calls) echo SPIRAL_GPU_ONE_LAUNCH=off ;;
    wc) echo SPIRAL_GPU_RING_MEMORY=wc ;;
    *) echo "SPIRAL_GPU_STREAM_RING=${1#*@}" ;;
  esac
}

port=18001
run_one() {  # transport workload rep
  local t=$1 w=$2 rep=$3 args server_extra=() client_extra=() wl=${2%%@*} run_env=()
  read -r -a args <<<"$(cell_args "$t")"
  [[ $t == udp ]] && server_extra=(--udp-gro) && client_extra=(--udp-gso)
  if [[ $w == none_span ]]; then  # the GPU path's receive memory (max_in_flight + 1 windows), no GPU
    wl=none
    local window=8388608
    [[ $t == tcp_w1m ]] && window=1048576
    run_env=(SPIRAL_TCP_RECV_SPAN_BYTES=$((3 * window)))
  fi
  [[ $w == *@* ]] && run_env=("$(variant_env "$w")")
  local common=("${args[@]}" --base-port "$port" --seconds "$SECONDS_CELL" --warmup-seconds "$WARMUP")
  port=$((port + 10))
  local limit=$((SECONDS_CELL + WARMUP + 30))  # a run that hangs is killed and counted failed
  echo "run $t $w rep $rep" >&2
  timeout -s KILL "$limit" ip netns exec "$SBW_NS_B" env "${run_env[@]}" "$BIN" server "${common[@]}" "${server_extra[@]}" --bind-address "$SBW_IP_B" \
    --rx-cores "$RX_CORE" --workload "$wl" --grace-ms 1000 >"$WORK/server.out" 2>"$WORK/server.err" &
  SERVER_PID=$!
  local crc=0 src=0 perf_pid=
  if [[ -n ${E2E_PERF_DIR:-} ]]; then  # from 2 s into the measured seconds to 1 s before their end
    local at=$((WARMUP + 2)) span=$((SECONDS_CELL > 4 ? SECONDS_CELL - 3 : 1)) name="$E2E_PERF_DIR/$t-${w//@/_}-$rep"
    (sleep "$at"
     perf stat -C "$RX_CORE" -e cpu-clock,context-switches,cpu-migrations,page-faults,cycles,instructions \
       -o "$name.stat" -- sleep "$span" &
     perf record -q -C "$RX_CORE" -e cpu-clock -F 999 --call-graph dwarf,16384 -o "$name.data" -- sleep "$span"
     wait) >/dev/null 2>&1 &
    perf_pid=$!
  fi
  timeout -s KILL "$limit" ip netns exec "$SBW_NS_A" "$BIN" client "${common[@]}" "${client_extra[@]}" --server-address "$SBW_IP_B" \
    --tx-cores "$TX_CORE" >"$WORK/client.out" 2>"$WORK/client.err" || crc=$?
  wait "$SERVER_PID" || src=$?
  SERVER_PID=
  [[ -z $perf_pid ]] || wait "$perf_pid" || true
  if ((crc != 0 || src != 0)); then
    echo "run $t $w rep $rep failed: client $crc, server $src" >&2
    cat "$WORK/server.err" "$WORK/client.err" >&2
    return 1
  fi
  python3 - "$t" "$w" "$rep" "$WORK/server.out" <<'EOF' >>"$WORK/runs.jsonl"
import json, sys
t, w, rep, path = sys.argv[1:5]
rec = [json.loads(l) for l in open(path) if l.startswith('{"event":"result"')][-1]
g = rec.get("gpu") or {}
print(json.dumps({"transport": t, "workload": w, "rep": int(rep), "state": rec["state"], "reason": rec["reason"],
                  "rx_gbps": rec["rx_gbps"], "tx_gbps": rec["tx_gbps"], "loss_ppm": rec["loss_ppm"],
                  "cpu_rx_mpct": rec["cpu_rx_mpct"], "cpu_tx_mpct": rec["cpu_tx_mpct"],
                  "sm_mpct": rec["gpu_sm_mpct"], "mem_mpct": rec["gpu_mem_mpct"],
                  "stalls": rec["gpu_stalls"], "stall_ms": g.get("stall_ms", 0), "windows": g.get("windows", 0),
                  "late": g.get("late", 0), "carried": g.get("carried", 0),
                  "window_bytes": g.get("window_bytes", 0), "device": g.get("device", ""), "nvml": g.get("nvml", ""),
                  # the receive thread's time (hack/gpu/tcp-gap.sh): recv calls, submits, waits for a window
                  "rx_bytes_all": rec.get("rx_bytes_all", 0), "rx_recv_calls": rec.get("rx_recv_calls", 0),
                  "rx_recv_ns": rec.get("rx_recv_ns", 0), "submit_ns": g.get("submit_ns", 0), "stall_ns": g.get("stall_ns", 0),
                  "graph_windows": g.get("graph_windows", 0)}))
EOF
  # as it goes, so a run killed at its time limit keeps the runs it finished
  [[ -n $JSON ]] && tail -n 1 "$WORK/runs.jsonl" >>"$JSON"
}

failed=0
for t in $CELLS; do
  for ((rep = 1; rep <= REPEATS; rep++)); do
    order=("${WORKLOADS[@]}")
    if ((rep % 2 == 0)); then
      order=()
      for ((i = ${#WORKLOADS[@]} - 1; i >= 0; i--)); do order+=("${WORKLOADS[i]}"); done
    fi
    for w in "${order[@]}"; do run_one "$t" "$w" "$rep" || failed=1; done
  done
done

python3 - "$WORK/runs.jsonl" "$SECONDS_CELL" "$WARMUP" "$REPEATS" <<'EOF'
import json, sys, statistics
runs = [json.loads(l) for l in open(sys.argv[1])]
secs, warm, reps = sys.argv[2:5]
if not runs:
    print("no run completed"); sys.exit(0)
dev = next((r["device"] for r in runs if r["device"]), "?")
print(f"# end to end over a veth wire (MTU 9000), {secs} s cells after {warm} s warm-up, {reps} runs each (ABBA order); GPU {dev}")
print("# tcp: 1 MiB messages, 1 pair, 8 MiB GPU windows; tcp_w1m: 1 MiB GPU windows; udp: 8000 B datagrams, GSO/GRO, 1 pair, 8 MiB windows")
print("# receiver pinned to one core, sender to another; windows/stalls/late summed over the runs, whole run (warm-up included)")
print()
print("| cell | workload | Gb/s per run | mean Gb/s | x none | SM % | mem % | windows | stalls (ms) | late | loss ppm | tx/rx core % | states |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
base = {}
verdicts = []
for t in dict.fromkeys(r["transport"] for r in runs):
    for w in ["none", "fft", "gemm", "gemm_fp16"]:
        rs = [r for r in runs if r["transport"] == t and r["workload"] == w]
        if not rs: continue
        g = [r["rx_gbps"] for r in rs]
        m = statistics.mean(g)
        if w == "none": base[t] = m
        ratio = m / base[t] if base.get(t) else float("nan")
        mean = lambda k: statistics.mean(r[k] for r in rs)
        sm = "-" if w == "none" or mean("sm_mpct") < 0 else f"{mean('sm_mpct')/1000:.1f}"
        mem = "-" if w == "none" or mean("mem_mpct") < 0 else f"{mean('mem_mpct')/1000:.1f}"
        core = lambda k: "-" if mean(k) < 0 else f"{mean(k)/1000:.0f}"
        cpu = f"{core('cpu_tx_mpct')}/{core('cpu_rx_mpct')}"
        print(f"| {t} | {w} | {' / '.join(f'{x:.2f}' for x in g)} | {m:.2f} | {ratio:.3f} | {sm} | {mem} | "
              f"{sum(r['windows'] for r in rs)} | {sum(r['stalls'] for r in rs)} ({sum(r['stall_ms'] for r in rs)}) | {sum(r['late'] for r in rs)} | "
              f"{mean('loss_ppm'):.0f} | {cpu} | {','.join(sorted(set(r['state'] for r in rs)))} |")
        if w in ("fft", "gemm_fp16"):
            verdicts.append(f"{t} {w}: {ratio:.3f} x none (target >= 0.98): {'met' if ratio >= 0.98 else 'MISSED'}")
print()
for v in verdicts: print(v)
EOF
exit $failed
