#!/usr/bin/env bash
# Benchmark (not a test), on a GPU machine, in one go (docs/benchmarks/nccl.md, gpucopy.md):
#   1. build     the data plane's CUDA flavour with NCCL against the machine's own NCCL (the
#                nvidia/nccl folder of its Python environment) and nccl-tests 2.19.6 (the tarball
#                next to this checkout's root, or NCCL_TESTS_TARBALL) against the same library
#   2. check     tests/nccl/nccl_device_check: every operation at one rank with the check on,
#                a negative control, the copy bench once
#   3. nccl      for every operation, nccl-tests' <op>_perf and spiral-nccl-bench alternating,
#                REPEATS times, same options (-b 8 -e 1G -f 2 -n ITERS -w WARMUP -c 1 -g 1);
#                hack/bench/nccl_compare.py prints the medians and the time ratio per size
#   4. gpucopy   spiral-gpucopy-bench and spiral-memcpy-loop (plain cudaMemcpy) alternating,
#                REPEATS times, 8 MiB .. 1 GiB; the same script prints the GB/s ratio
# Everything lands in $OUT (default ./nccl-results): summary.md (printed last), build.log,
# check.txt, digest.txt, raw.tar.gz (every tool's output).
#
# Usage (root, on the GPU machine, from the checkout's root): bash hack/bench/nccl-device-run.sh
# Environment: OPS (all seven), MAX (1G), ITERS (100), WARMUP (10), REPEATS (5), NCCL_HOME (found),
#   NCCL_TESTS_TARBALL (nccl-tests-2.19.6.tar.gz in the root), BUILD (/tmp/spiral-nccl-build),
#   BUDGET (540 s: a repeat that no longer fits is skipped, and the summary says so);
#   BUILD_ONLY=1 stops after step 1 and BUILD_TARGETS replaces its targets (hack/bench/gpucopy-peer-run.sh)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/nccl-results}
BUILD=${BUILD:-/tmp/spiral-nccl-build}
RAW=/tmp/spiral-nccl-raw
OPS=${OPS:-sendrecv all_gather all_reduce broadcast reduce reduce_scatter alltoall}
MAX=${MAX:-1G} ITERS=${ITERS:-100} WARMUP=${WARMUP:-10} REPEATS=${REPEATS:-5} BUDGET=${BUDGET:-540}
TARBALL=${NCCL_TESTS_TARBALL:-$ROOT/nccl-tests-2.19.6.tar.gz}
DEPS=$ROOT/.deps/root
mkdir -p "$OUT" "$RAW"
SUMMARY=$OUT/summary.md
: >"$SUMMARY"
# the machine's shared-use rule (KINDS.md): no NVLink multicast, in every child too
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export CMAKE_POLICY_VERSION_MINIMUM=3.5
say() { echo "$*" | tee -a "$SUMMARY"; }
START=$(date +%s)
left() { echo $((START + BUDGET - $(date +%s))); }

# --- NCCL: the machine's own, behind a folder with the unversioned name the linker wants ------
if [[ -z ${NCCL_HOME:-} ]]; then
  NCCL_HOME=$(python3 -c 'import nvidia.nccl as n, os; print(list(n.__path__)[0])' 2>/dev/null) ||
    NCCL_HOME=$(dirname "$(dirname "$(find / -name libnccl.so.2 -path '*nvidia/nccl/lib/*' 2>/dev/null | head -1)")")
fi
NCCL=/tmp/spiral-nccl-home
mkdir -p "$NCCL/lib"
ln -sfn "$NCCL_HOME/include" "$NCCL/include"
ln -sf "$NCCL_HOME/lib/libnccl.so.2" "$NCCL/lib/libnccl.so.2"
ln -sf libnccl.so.2 "$NCCL/lib/libnccl.so"
export LD_LIBRARY_PATH=$NCCL/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NVCC=/usr/local/cuda/bin/nvcc
{
  date -u; uname -a; nproc
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,clocks.sm,clocks.max.sm,pcie.link.gen.current,pcie.link.width.current --format=csv
  "$NVCC" --version | tail -2
  echo "NCCL_HOME=$NCCL_HOME"; grep -E "define NCCL_(MAJOR|MINOR|PATCH) " "$NCCL/include/nccl.h"
} >"$OUT/build.log" 2>&1
GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "# NCCL and copy bench on $(hostname): $GPU; NCCL $(grep -E 'define NCCL_(MAJOR|MINOR|PATCH) ' "$NCCL/include/nccl.h" | awk '{printf "%s%s", sep, $3; sep="."}'); $(nproc) cores"
say "commit: $(cat "$ROOT/.carry-commit" 2>/dev/null || git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"

# --- 1. build ---------------------------------------------------------------------------------
GEN=(-G Ninja); command -v ninja >/dev/null || GEN=(-G "Unix Makefiles")
PREFIX=(); [[ -d $DEPS/usr ]] && PREFIX=(-DCMAKE_PREFIX_PATH="$DEPS/usr")
t0=$(date +%s)
if cmake -S dataplane -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DSPIRAL_WITH_CUDA=ON \
    -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES=90 -DSPIRAL_WERROR=OFF -DSPIRAL_WITH_NCCL=ON \
    -DNCCL_ROOT="$NCCL" -DSPIRAL_WITH_RDMA=OFF "${PREFIX[@]}" >>"$OUT/build.log" 2>&1 &&
  cmake --build "$BUILD" -j "$(nproc)" --target ${BUILD_TARGETS:-spiral-nccl-bench spiral-gpucopy-bench spiral-memcpy-loop \
    nccl_device_check unit_tests} >>"$OUT/build.log" 2>&1; then
  say "- build: ok ($(($(date +%s) - t0)) s, $(grep -c ' warning' "$OUT/build.log") warnings)"
else
  say "- build: FAILED"; tail -n 40 "$OUT/build.log" | tee -a "$SUMMARY"; exit 1
fi
t0=$(date +%s)
rm -rf /tmp/nccl-tests-2.19.6 && tar -xzf "$TARBALL" -C /tmp &&
  make -C /tmp/nccl-tests-2.19.6 -j "$(nproc)" CUDA_HOME=/usr/local/cuda NCCL_HOME="$NCCL" \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" >>"$OUT/build.log" 2>&1 ||
  { say "- nccl-tests build: FAILED"; tail -n 30 "$OUT/build.log" | tee -a "$SUMMARY"; exit 1; }
say "- nccl-tests 2.19.6 build: ok ($(($(date +%s) - t0)) s)"
NT=/tmp/nccl-tests-2.19.6/build
[[ ${BUILD_ONLY:-0} == 1 ]] && exit 0

# --- 2. check -----------------------------------------------------------------------------------
"$BUILD/tests/unit_tests" --gtest_filter='Collective*:SizeSweep*:Expectation*:TransportLog*:Bootstrap*:NetworkEnv*:SweepRows*:CopySpec*' \
  >"$OUT/check.txt" 2>&1 && say "- unit tests (NCCL, copy): ok" || say "- unit tests (NCCL, copy): FAILED, see check.txt"
timeout 150 "$BUILD/tests/nccl/nccl_device_check" >>"$OUT/check.txt" 2>&1 && say "- device check: ok" ||
  say "- device check: FAILED, see check.txt"
grep -E "^(ok|FAIL|device|PASSED|FAILED)" "$OUT/check.txt" | sed 's/^/    /' | tee -a "$SUMMARY" >/dev/null

# --- 3+4. per repeat: every operation with both NCCL tools, then the copies with both --------
common=(-b 8 -e "$MAX" -f 2 -n "$ITERS" -w "$WARMUP" -c 1)
COPY_SIZES=$(for s in 23 24 25 26 27 28 29 30; do echo $((1 << s)); done)
DONE=0
for rep in $(seq 1 "$REPEATS"); do
  (($(left) < 180)) && { say "- repeat $rep skipped: $(left) s of the budget left"; break; }
  for op in $OPS; do
    timeout 240 "$NT/${op}_perf" "${common[@]}" -g 1 >"$RAW/nccl-tests-$op-$rep.txt" 2>&1 ||
      echo "# exit $?" >>"$RAW/nccl-tests-$op-$rep.txt"
    timeout 240 "$BUILD/spiral-nccl-bench" --op "$op" "${common[@]}" --json "$RAW/spiral-$op-$rep.json" \
      >"$RAW/spiral-$op-$rep.txt" 2>&1 || echo "# exit $?" >>"$RAW/spiral-$op-$rep.txt"
  done
  timeout 240 "$BUILD/spiral-gpucopy-bench" -b 8M -e 1G -f 2 -n 20 -w 2 --json "$RAW/gpucopy-$rep.json" \
    >"$RAW/gpucopy-$rep.txt" 2>&1 || echo "# exit $?" >>"$RAW/gpucopy-$rep.txt"
  for c in "h2d pinned" "h2d pageable" "d2h pinned" "d2h pageable" "d2d pinned"; do
    # shellcheck disable=SC2086 # one size a word
    timeout 240 "$BUILD/spiral-memcpy-loop" $c 20 $COPY_SIZES >>"$RAW/memcpy-$rep.txt" 2>&1
  done
  DONE=$rep
  say "- repeat $rep: $(wc -w <<<"$OPS") operations x 2 NCCL tools, copies x 2 tools ($(($(date +%s) - START)) s so far)"
done

# the full tables go to summary.md (it comes back as a file); the digest is printed
python3 "$ROOT/hack/bench/nccl_compare.py" "$RAW" "$DONE" >>"$SUMMARY" 2>"$OUT/digest.txt" || say "compare: FAILED"
cat "$OUT/digest.txt"
tar -czf "$OUT/raw.tar.gz" -C "$RAW" .
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv >>"$OUT/build.log" 2>&1
say "total: $(($(date +%s) - START)) s"
