#!/usr/bin/env bash
# Benchmark (not a test), on a machine with two GPUs or more, in one go (docs/benchmarks/gpucopy.md,
# "Peer matrices"):
#   1. build    hack/bench/nccl-device-run.sh's build step (BUILD_ONLY=1): the CUDA + NCCL flavour
#               (only the copy bench's targets) and nccl-tests 2.19.6 against the machine's NCCL
#   2. check    ctest -L device -R gpucopy: gpucopy.peer_check, the bytes of every pair, method
#               and mode on the GPUs
#   3. topology nvidia-smi topo -m
#   4. repeats  REPEATS (3) times, alternating tool by tool:
#                 pair    spiral-gpucopy-bench --parts peer on GPUs 0 and 1, CE and SM, uni and bi,
#                         8 MiB .. 1 GiB; spiral-memcpy-loop peer 0 1 and 1 0 (a plain
#                         cudaMemcpyPeer loop, peer access enabled) at the same sizes
#                 nccl    nccl-tests sendrecv_perf -t 2 -g 1 between GPUs 0 and 1, same sizes
#                 matrix  spiral-gpucopy-bench --parts peer,host on every GPU: the matrices at
#                         256 MiB and every GPU with the host at once against each alone
#               hack/bench/gpucopy_peer_compare.py prints the medians: the pair's GB/s against
#               the loop (target ratio >= 0.98 from 8 MiB), NCCL beside the bidirectional
#               figures, the matrices, the host aggregate
# $OUT (default ./gpucopy-peer-results) gets: summary.md (printed last), build.log, check.txt,
# raw.tar.gz (every tool's output).
#
# Usage (root, on the GPU machine, from the checkout's root, nccl-tests' tarball in it:
#   hack/bench/gpucopy-carry.sh DEST makes such a folder): bash hack/bench/gpucopy-peer-run.sh
# Environment: REPEATS (3), ITERS (20), WARMUP (2), MATRIX_BYTES (256M), BUILD (/tmp/spiral-nccl-build),
#   BUDGET (330 s after the build: a repeat that no longer fits is skipped, and the summary says so)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/gpucopy-peer-results}
export BUILD=${BUILD:-/tmp/spiral-nccl-build}
RAW=/tmp/spiral-gpucopy-peer-raw
REPEATS=${REPEATS:-3} ITERS=${ITERS:-20} WARMUP=${WARMUP:-2} MATRIX_BYTES=${MATRIX_BYTES:-256M} BUDGET=${BUDGET:-330}
mkdir -p "$OUT" && rm -rf "$RAW" && mkdir -p "$RAW"
SUMMARY=$OUT/summary.md
: >"$SUMMARY"
# the machine's shared-use rule (KINDS.md): no NVLink multicast, in every child too
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
say() { echo "$*" | tee -a "$SUMMARY"; }

GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
say "# Copies between GPUs on $(hostname): ${GPUS} x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1); $(nproc) cores"
say "commit: $(cat "$ROOT/.carry-commit" 2>/dev/null || git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
((GPUS >= 2)) || { say "- needs two GPUs, found ${GPUS}"; exit 1; }

# --- 1. build (nccl-device-run.sh's step, its output into build.log) --------------------------
BUILD_LOG_DIR=/tmp/spiral-gpucopy-build
rm -rf "$BUILD_LOG_DIR"
OUT=$BUILD_LOG_DIR BUILD_ONLY=1 BUILD_TARGETS="spiral-gpucopy-bench spiral-memcpy-loop gpucopy_peer_check" \
  bash "$ROOT/hack/bench/nccl-device-run.sh" >/dev/null 2>&1
rc=$?
cp "$BUILD_LOG_DIR/build.log" "$OUT/build.log" 2>/dev/null
grep '^- ' "$BUILD_LOG_DIR/summary.md" 2>/dev/null | tee -a "$SUMMARY"
((rc == 0)) && [[ -x $BUILD/spiral-gpucopy-bench ]] || { say "- build: FAILED (build.log)"; exit 1; }
NT=/tmp/nccl-tests-2.19.6/build
export LD_LIBRARY_PATH=/tmp/spiral-nccl-home/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
START=$(date +%s)
left() { echo $((START + BUDGET - $(date +%s))); }

# --- 2. check, 3. topology ----------------------------------------------------------------------
# -V: the test's own lines ("N: ok  ce uni GPU 0 -> 1, ..."), which ctest otherwise keeps
if timeout 120 ctest --test-dir "$BUILD" -L device -R gpucopy -V >"$OUT/check.txt" 2>&1; then
  say "- gpucopy device tests: ok ($(grep -cE '^[0-9]+: ok ' "$OUT/check.txt") checks passed)"
else
  say "- gpucopy device tests: FAILED, see check.txt"
fi
grep -E '^[0-9]+: (FAIL|skip|SKIP|PASSED|FAILED|ok +(matrices|host))' "$OUT/check.txt" | head -20 | sed 's/^/    /' >>"$SUMMARY"
{ echo; echo '```'; nvidia-smi topo -m; echo '```'; } >>"$SUMMARY" 2>&1

# --- 4. repeats -------------------------------------------------------------------------------
SIZES=$(for s in 23 24 25 26 27 28 29 30; do echo $((1 << s)); done)
PEER_BYTES=$(echo $SIZES | tr ' ' ',')
common=(-n "$ITERS" -w "$WARMUP")
DONE=0
for rep in $(seq 1 "$REPEATS"); do
  (($(left) < 60)) && { say "- repeat $rep skipped: $(left) s of the budget left"; break; }
  timeout 150 "$BUILD/spiral-gpucopy-bench" --parts peer --devices 0,1 --peer-bytes "$PEER_BYTES" "${common[@]}" \
    --json "$RAW/pair-$rep.jsonl" >"$RAW/pair-$rep.txt" 2>&1 || echo "# exit $?" >>"$RAW/pair-$rep.txt"
  for pair in "0 1" "1 0"; do
    # shellcheck disable=SC2086 # one size a word
    timeout 120 "$BUILD/spiral-memcpy-loop" peer $pair "$ITERS" $SIZES >>"$RAW/loop-$rep.txt" 2>&1 ||
      echo "# exit $?" >>"$RAW/loop-$rep.txt"
  done
  CUDA_VISIBLE_DEVICES=0,1 timeout 150 "$NT/sendrecv_perf" -b 8M -e 1G -f 2 -t 2 -g 1 "${common[@]}" -c 1 \
    >"$RAW/nccl-$rep.txt" 2>&1 || echo "# exit $?" >>"$RAW/nccl-$rep.txt"
  timeout 150 "$BUILD/spiral-gpucopy-bench" --parts peer,host --peer-bytes "$MATRIX_BYTES" -e "$MATRIX_BYTES" \
    "${common[@]}" --json "$RAW/matrix-$rep.jsonl" >"$RAW/matrix-$rep.txt" 2>&1 || echo "# exit $?" >>"$RAW/matrix-$rep.txt"
  DONE=$rep
  say "- repeat $rep: pair sweep, cudaMemcpyPeer loop, NCCL sendrecv, matrices ($(($(date +%s) - START)) s so far)"
done

python3 "$ROOT/hack/bench/gpucopy_peer_compare.py" "$RAW" "$DONE" >>"$SUMMARY" 2>&1 || say "compare: FAILED"
tar -czf "$OUT/raw.tar.gz" -C "$RAW" .
say "total after the build: $(($(date +%s) - START)) s"
cat "$SUMMARY"
