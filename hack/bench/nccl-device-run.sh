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
RAW=/tmp/spiral-nccl-raw
OPS=${OPS:-sendrecv all_gather all_reduce broadcast reduce reduce_scatter alltoall}
MAX=${MAX:-1G} ITERS=${ITERS:-100} WARMUP=${WARMUP:-10} REPEATS=${REPEATS:-5} BUDGET=${BUDGET:-540}
mkdir -p "$OUT" "$RAW"
SUMMARY=$OUT/summary.md
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
START=$(date +%s)
left() { echo $((START + BUDGET - $(date +%s))); }
source "$ROOT/hack/bench/nccl-setup.sh"  # NCCL, the environment, build_spiral, build_nccl_tests
log_machine
GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "# NCCL and copy bench on $(hostname): $GPU; NCCL $(nccl_version); $(nproc) cores"
say "commit: $(cat "$ROOT/.carry-commit" 2>/dev/null || git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"

# --- 1. build ---------------------------------------------------------------------------------
# BUILD_TARGETS picks what to build (hack/bench/gpucopy-peer-run.sh builds its own); BUILD_ONLY=1 stops here.
# shellcheck disable=SC2086 # a word list by design
build_spiral ${BUILD_TARGETS:-spiral-nccl-bench spiral-gpucopy-bench spiral-memcpy-loop nccl_device_check unit_tests}
build_nccl_tests
[[ ${BUILD_ONLY:-0} == 1 ]] && exit 0

# --- 2. check -----------------------------------------------------------------------------------
"$BUILD/tests/unit_tests" --gtest_filter='Collective*:SizeSweep*:Expectation*:InPlace*:TransportLog*:GpuLinks*:Bootstrap*:NetworkEnv*:SweepRows*:SummaryPart*:CopySpec*' \
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
