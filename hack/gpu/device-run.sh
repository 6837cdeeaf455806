#!/usr/bin/env bash
# Everything a GPU machine checks and measures for the GPU receive path, in one go:
#   1. build    the CUDA flavour with the machine's toolkit (/usr/local/cuda), sm_90 (+ sm_121 when
#               its nvcc knows it); Debian packages carried by hack/gpu/carry.sh when the machine
#               cannot install (found under .deps/root)
#   2. correct  tests/gpu/gpu_correctness: FFT, GEMM, FP16 GEMM, reorder, gather, pipeline
#   3. ctest    the "gpu", "device" and "unit" labels (gpu.correctness again with fresh inputs, gpu.cli)
#   4. bench    spiral-gpu-bench: copy ceiling, single calls, pipeline ingest, knobs
#   5. e2e      hack/gpu/e2e.sh: TCP and UDP over a veth wire, workload none vs each workload
#   6. raw      hack/gpu/raw-bench.sh: the raw GPU receive path on DPDK frames (memif, net_ring,
#               af_packet on a veth wire): correctness against CPU references, workloads vs bare,
#               staged vs in place, the window sweep (RAW_PARTS picks; RAW_PARTS="correct ring":
#               net_ring, which copies nothing); needs DPDK, carried under .deps/dpdk (hack/gpu/carry.sh)
# DEVICE_RUN_STEPS picks steps 2-6 ("correctness ctest bench e2e raw", the default); the build
# makes only what they need.
# Results in $OUT (default ./gpu-results), at most 8 files: summary.md (everything that matters,
# also printed last), build.log, ctest.log, correctness.txt, bench.md, bench.jsonl, e2e.md, e2e.jsonl
# (raw.md and raw.jsonl instead of bench.* and e2e.* when those steps do not run).
# A step that fails is recorded and the next one still runs; the whole run keeps within
# DEVICE_RUN_BUDGET seconds (520), skipping what no longer fits. Exit 0 when every step passed.
#
# Usage (root, on the GPU machine, from the checkout's root): bash hack/gpu/device-run.sh
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/gpu-results}
BUILD=${BUILD:-/tmp/spiral-gpu-build}
DEPS=${SPIRAL_DEPS:-$ROOT/.deps/root}
TOOLS=/tmp/spiral-gpu-tools
START=$(date +%s)
DEADLINE=$((START + ${DEVICE_RUN_BUDGET:-520}))
mkdir -p "$OUT"
SUMMARY=$OUT/summary.md
: >"$SUMMARY"
FAILED=()
STEPS=" ${DEVICE_RUN_STEPS:-correctness ctest bench e2e raw} "
wants() { [[ $STEPS == *" $1 "* ]]; }
# keep the GPU stack's shared-use rules in any child (KINDS.md): no NVLink multicast
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export CMAKE_POLICY_VERSION_MINIMUM=3.5  # CMake 4 and the carried packages' old-style configs

say() { echo "$*" | tee -a "$SUMMARY"; }
elapsed() { echo $(($(date +%s) - START)); }
# step NAME BUDGET_S LOG CMD...: runs with a timeout of min(BUDGET, time left); records the outcome.
step() {
  local name=$1 budget=$2 log=$3 left rc=0 t0
  shift 3
  left=$((DEADLINE - $(date +%s)))
  if ((left < 20)); then
    say "- $name: SKIPPED (out of time at $(elapsed) s)"
    FAILED+=("$name(skipped)")
    return 1
  fi
  ((budget > left)) && budget=$left
  t0=$(date +%s)
  echo "=== $name ($(date -u +%H:%M:%S), budget ${budget}s)" >>"$log"
  timeout --kill-after=5 "$budget" "$@" >>"$log" 2>&1 || rc=$?
  local took=$(($(date +%s) - t0))
  if ((rc == 0)); then
    say "- $name: ok (${took} s)"
  else
    say "- $name: FAILED, exit $rc$( ((rc == 124)) && echo ' (timeout)') (${took} s), see $(basename "$log")"
    FAILED+=("$name")
  fi
  return $rc
}

# --- environment ---------------------------------------------------------------------------
{
  echo "## environment"
  date -u
  uname -a
  nproc
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,clocks.sm,clocks.max.sm,power.limit,temperature.gpu,utilization.gpu --format=csv 2>&1
  ls -d /usr/local/cuda* 2>&1
  cmake --version 2>&1 | head -1
  (ninja --version || echo "no ninja") 2>&1
  (g++ --version | head -1) 2>&1
  python3 --version 2>&1
  echo "load: $(cat /proc/loadavg)"
} >"$OUT/build.log" 2>&1

NVCC=/usr/local/cuda/bin/nvcc
[[ -x $NVCC ]] || NVCC=$(command -v nvcc || true)
if [[ -z $NVCC ]]; then
  say "no nvcc on this machine: nothing to build"
  exit 1
fi
"$NVCC" --version | tail -2 >>"$OUT/build.log"
ARCHS=90
"$NVCC" --list-gpu-arch 2>/dev/null | grep -q compute_121 && ARCHS="90;121"
GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
say "# GPU receive path on the device: $GPU; nvcc $("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), arch $ARCHS; $(nproc) cores; $(uname -r)"
say "commit: $(cat "$ROOT/.carry-commit" 2>/dev/null || git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
say ""

# --- carried tools: ip and ping with only the libraries this machine lacks --------------------
# shellcheck source=hack/gpu/carried-tools.sh
source "$ROOT/hack/gpu/carried-tools.sh"
setup_tools >>"$OUT/build.log" 2>&1
export PATH=$TOOLS/bin:$PATH
# DPDK carried from the development machine, when this one has none (the raw transport)
source "$ROOT/hack/gpu/dpdk-env.sh"
DPDK=(-DSPIRAL_WITH_DPDK=AUTO)
if ! pkg-config --exists libdpdk 2>/dev/null && dpdk_env "$ROOT/.deps/dpdk" "$TOOLS/dpdk-lib"; then
  DPDK=(-DSPIRAL_WITH_DPDK=ON)
  echo "DPDK $(pkg-config --modversion libdpdk) carried (.deps/dpdk); EAL: $SPIRAL_EAL_ARGS" >>"$OUT/build.log"
fi

# --- 1. build ------------------------------------------------------------------------------
TARGETS=()  # everything, for ctest; else what the chosen steps run
if ! wants ctest; then
  TARGETS=(spiral-dataplane)
  wants correctness && TARGETS+=(gpu_correctness)
  wants bench && TARGETS+=(spiral-gpu-bench)
  wants raw && pkg-config --exists libdpdk 2>/dev/null && TARGETS+=(raw_gpu_correctness)
  wants ceilings && TARGETS+=(spiral-dataplane)
fi
GEN=(-G Ninja)
command -v ninja >/dev/null || GEN=(-G "Unix Makefiles")
PREFIX=()
[[ -d $DEPS/usr ]] && PREFIX=(-DCMAKE_PREFIX_PATH="$DEPS/usr")
step "configure" 120 "$OUT/build.log" cmake -S dataplane -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DSPIRAL_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES="$ARCHS" -DSPIRAL_WERROR=OFF "${PREFIX[@]}" \
  "${DPDK[@]}" &&
  step "build" 300 "$OUT/build.log" cmake --build "$BUILD" -j "$(nproc)" ${TARGETS[@]:+--target "${TARGETS[@]}"}
if [[ ! -x $BUILD/spiral-dataplane ]]; then
  say ""
  say "build failed; the end of build.log:"
  tail -n 40 "$OUT/build.log" | tee -a "$SUMMARY"
  exit 1
fi
grep -c "warning" "$OUT/build.log" | sed 's/^/compiler warnings in build.log: /' | tee -a "$SUMMARY"

# --- 2. correctness ------------------------------------------------------------------------
wants correctness && step "correctness" 120 "$OUT/correctness.txt" "$BUILD/tests/gpu/gpu_correctness"

# --- 3. ctest (gpu, device and unit labels) ----------------------------------------------------------
wants ctest && step "ctest gpu+device+unit" 180 "$OUT/ctest.log" ctest --test-dir "$BUILD" -L "gpu|device|unit" --output-on-failure --timeout 150

# --- ceilings: the runs docs/benchmarks/ceilings.md judges (not in the default steps) --------
wants ceilings && step "ceilings" 120 "$OUT/ceilings.log" bash "$ROOT/hack/ceilings/measure.sh" "$BUILD" "$OUT"

# --- 4. benchmarks without a network ---------------------------------------------------------
wants bench && step "bench" 150 "$OUT/bench.md" "$BUILD/spiral-gpu-bench" --seconds "${BENCH_SECONDS:-1}" --json "$OUT/bench.jsonl"

# --- 5. end to end over a veth wire ----------------------------------------------------------
wants e2e && step "e2e" 280 "$OUT/e2e.md" env E2E_JSON="$OUT/e2e.jsonl" bash hack/gpu/e2e.sh "$BUILD/spiral-dataplane" "${E2E_REPEATS:-2}"

# --- 6. the raw GPU receive path on DPDK frames ----------------------------------------------
if wants raw; then
  if [[ -x $BUILD/tests/gpu/raw_gpu_correctness ]]; then
    step "raw" "${RAW_BUDGET:-400}" "$OUT/raw.md" env RAW_JSON="$OUT/raw.jsonl" bash hack/gpu/raw-bench.sh "$BUILD"
  else
    say "- raw: SKIPPED (this build has no DPDK: carry it with hack/gpu/carry.sh)"
    FAILED+=("raw(no DPDK)")
  fi
fi

nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv >>"$OUT/build.log" 2>&1

# --- summary -------------------------------------------------------------------------------
{
  echo
  echo "## correctness"
  grep -E "^(ok|FAIL|SKIP|PASS|device)" "$OUT/correctness.txt" || true
  echo
  echo "## ctest"
  grep -E "tests passed|Skipped|Failed|\*\*\*" "$OUT/ctest.log" | tail -n 12 || true
  echo
  grep -v "^===" "$OUT/bench.md" 2>/dev/null || true
  echo
  echo "## end to end"
  grep -v "^===" "$OUT/e2e.md" 2>/dev/null || true
  echo
  echo "## raw GPU receive path"
  grep -v "^===" "$OUT/raw.md" 2>/dev/null || true
  echo
  echo "total $(elapsed) s; failed: ${FAILED[*]:-none}"
} >>"$SUMMARY"
cat "$SUMMARY"
((${#FAILED[@]} == 0))
