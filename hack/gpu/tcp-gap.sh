#!/usr/bin/env bash
# Where the TCP receive thread loses its time with a GPU workload, on a GPU machine:
# builds the CUDA flavour, checks correctness (tests/gpu/gpu_correctness), then runs TCP over a
# veth wire (hack/gpu/e2e.sh: 1 MiB messages, 1 pair, receiver and sender pinned) with workload
# none, none_span (no GPU, recv() into the GPU path's amount of memory), fft, gemm and gemm_fp16
# through the stream ring, and fft@off / gemm_fp16@off (the staged path without the ring),
# GPU windows of 8 MiB (tcp) and 1 MiB (tcp_w1m), alternating (ABBA); then UDP (8000 B, GSO/GRO)
# with each workload, which does not use the ring, to show it kept its rate,
# and prints per cell the median Gb/s of the runs, the ratio to none, and the receive thread's
# instrumentation from the records: recv() time per MiB and per call, submit (CUDA calls) time
# per window, the share of windows whose workload went as one CUDA graph launch, waits for a free
# window (stalls), and the receive core's busy share.
#
# Usage, from a folder made by hack/gpu/carry.sh (or a checkout), as root on the GPU machine:
#   OUT=DIR bash hack/gpu/tcp-gap.sh          (GAP_REPEATS=3 GAP_SECONDS=3 GAP_WARMUP=1)
#   GAP_WORKLOADS="none fft fft@8x64x4 gemm@nograph fft@calls fft@wc ..." GAP_CELLS="tcp tcp_w1m" GAP_UDP=0:
#   other ring shapes, the workload without its CUDA graph (W@nograph, SPIRAL_GPU_GRAPH=off), the
#   ring's windows with their CUDA calls each instead of one launch (W@calls, SPIRAL_GPU_ONE_LAUNCH=off),
#   the ring's slots in write-combined memory (W@wc, SPIRAL_GPU_RING_MEMORY=wc), no UDP
#   BUILD=DIR: a build folder already configured (e.g. device-run.sh's) is built there as it is
# Writes DIR/gap.md (also printed), DIR/gap.jsonl (one object per run), DIR/build.log.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/gap-results}
BUILD=${BUILD:-/tmp/spiral-gap-build}
DEPS=${SPIRAL_DEPS:-$ROOT/.deps/root}
mkdir -p "$OUT"
export CMAKE_POLICY_VERSION_MINIMUM=3.5 NCCL_NVLS_ENABLE=0
NVCC=/usr/local/cuda/bin/nvcc
[[ -x $NVCC ]] || NVCC=$(command -v nvcc || true)
[[ -n $NVCC ]] || { echo "no nvcc on this machine"; exit 1; }
TOOLS=/tmp/spiral-gap-tools
# shellcheck source=hack/gpu/carried-tools.sh
source "$ROOT/hack/gpu/carried-tools.sh"
setup_tools >"$OUT/tools.log" 2>&1
export PATH=$TOOLS/bin:$PATH
GEN=(-G Ninja); command -v ninja >/dev/null || GEN=(-G "Unix Makefiles")
PREFIX=(); [[ -d $DEPS/usr ]] && PREFIX=(-DCMAKE_PREFIX_PATH="$DEPS/usr")
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uname -r; echo "load: $(cat /proc/loadavg)"
  [[ -f $BUILD/CMakeCache.txt ]] || cmake -S dataplane -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DSPIRAL_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER="$NVCC" \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DSPIRAL_WERROR=OFF -DSPIRAL_WITH_RDMA=OFF "${PREFIX[@]}" &&
    cmake --build "$BUILD" -j "$(nproc)" --target spiral-dataplane gpu_correctness
} >"$OUT/build.log" 2>&1 || { echo "build failed:"; tail -n 30 "$OUT/build.log"; exit 1; }
echo "# TCP + GPU receive gap: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(nproc) cores;" \
  "commit $(cat "$ROOT/.carry-commit" 2>/dev/null || git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)" | tee "$OUT/gap.md"
if timeout 200 "$BUILD/tests/gpu/gpu_correctness" >"$OUT/correctness.txt" 2>&1; then
  echo "gpu_correctness: passed" | tee -a "$OUT/gap.md"
else
  echo "gpu_correctness: FAILED (see correctness.txt)" | tee -a "$OUT/gap.md"
fi
E2E_CELLS=${GAP_CELLS:-tcp tcp_w1m} E2E_WORKLOADS=${GAP_WORKLOADS:-none none_span fft gemm gemm_fp16 fft@off gemm_fp16@off} \
  E2E_JSON="$OUT/gap.jsonl" E2E_SECONDS=${GAP_SECONDS:-3} E2E_WARMUP=${GAP_WARMUP:-1} \
  bash hack/gpu/e2e.sh "$BUILD/spiral-dataplane" "${GAP_REPEATS:-3}" >"$OUT/e2e.md" 2>&1
rc=$?
if [[ ${GAP_UDP:-1} == 1 ]]; then
  E2E_CELLS=udp E2E_WORKLOADS="none fft gemm gemm_fp16" E2E_JSON="$OUT/udp.jsonl" E2E_SECONDS=${GAP_SECONDS:-3} \
    E2E_WARMUP=${GAP_WARMUP:-1} bash hack/gpu/e2e.sh "$BUILD/spiral-dataplane" "${GAP_REPEATS:-3}" >"$OUT/udp.md" 2>&1 || rc=1
  cat "$OUT/udp.jsonl" >>"$OUT/gap.jsonl"
fi
python3 - "$OUT/gap.jsonl" <<'PY' | tee -a "$OUT/gap.md"
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
med = statistics.median
print()
print("Median of the runs (ABBA order). Receive-thread figures are whole-run (warm-up included):")
print("recv us/MiB = time inside recv() per MiB received; submit us/win = time in a submit's CUDA calls per window;")
print("stall ms = waits for a free window (max_in_flight) per run; rx core % = the receive core's busy share.")
print("none_span = no GPU, but recv() cycles through 3 windows of memory as the staged GPU path does; W@off = the staged")
print("path (pinned window-sized staging, one H2D copy per window); W = the stream ring; W@SHAPE = the ring in that shape;")
print("W@nograph = the workload called directly each window (SPIRAL_GPU_GRAPH=off); graph % = windows whose workload went as")
print("its slot's CUDA graph, one launch.")
print("UDP does not use the ring (its datagrams are reordered from a staging): its rows show it kept its rate.")
print()
print("| cell | workload | Gb/s per run | median Gb/s | x none | recv us/MiB | recv KiB/call | submit us/win | graph % | windows/run | stall ms/run | rx core % | tx core % |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
verdicts = []
for cell in dict.fromkeys(r["transport"] for r in runs):
    base = None
    for w in dict.fromkeys(r["workload"] for r in runs if r["transport"] == cell):
        rs = [r for r in runs if r["transport"] == cell and r["workload"] == w]
        if not rs: continue
        g = med([r["rx_gbps"] for r in rs])
        if w == "none": base = g
        ratio = g / base if base else float("nan")
        mib = lambda r: max(r["rx_bytes_all"], 1) / 2**20
        recv_us_mib = med([r["rx_recv_ns"] / 1e3 / mib(r) for r in rs])
        kib_call = med([r["rx_bytes_all"] / 1024 / max(r["rx_recv_calls"], 1) for r in rs])
        wins = med([r["windows"] for r in rs])
        submit = "-" if not wins else f"{med([r['submit_ns'] / 1e3 / max(r['windows'], 1) for r in rs]):.1f}"
        graph = "-" if not wins else f"{med([100 * r.get('graph_windows', 0) / max(r['windows'], 1) for r in rs]):.0f}"
        stall = "-" if w.startswith("none") else f"{med([r['stall_ns'] / 1e6 for r in rs]):.1f}"
        print(f"| {cell} | {w} | {' / '.join('%.2f' % r['rx_gbps'] for r in rs)} | {g:.2f} | {ratio:.3f} | {recv_us_mib:.1f} | "
              f"{kib_call:.0f} | {submit} | {graph} | {wins:.0f} | {stall} | {med([r['cpu_rx_mpct'] for r in rs]) / 1000:.0f} | "
              f"{med([r['cpu_tx_mpct'] for r in rs]) / 1000:.0f} |")
        target = 0.98 if cell == "udp" else 0.95
        if w in ("fft", "gemm", "gemm_fp16"):
            verdicts.append(f"{cell} {w}: {ratio:.3f} x none (target >= {target}): {'met' if ratio >= target else 'MISSED'}")
print()
for v in verdicts: print(v)
PY
echo "e2e.sh exit $rc" | tee -a "$OUT/gap.md"
exit $rc
