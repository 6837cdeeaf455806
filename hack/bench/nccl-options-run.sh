#!/usr/bin/env bash
# Benchmark (not a test), on a GPU machine: the NCCL kind's options from nccl-tests 2.17-2.19
# side by side with nccl-tests 2.19.6 on the same NCCL, one rank (-g 1) (docs/benchmarks/nccl.md,
# "Options from nccl-tests 2.17-2.19"). Builds both (hack/bench/nccl-setup.sh), runs the GPU
# tests of the options (ctest label gpu: nccl.options_device_check, nccl.device_check), then for
# every case nccl-tests' <op>_perf and spiral-nccl-bench alternating, REPEATS times, with the
# case's flags on both; hack/bench/nccl_options_compare.py prints the medians and the ratio.
# Usage (from the checkout's root): bash hack/bench/nccl-options-run.sh
# Environment: CASES (all below), REPEATS (3), MIN (1K), MAX (256M), ITERS (20), WARMUP (5),
#   BUDGET (240 s: a repeat that no longer fits is skipped, and the summary says so), OUT
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/nccl-results}
RAW=/tmp/spiral-nccl-options-raw
REPEATS=${REPEATS:-3} BUDGET=${BUDGET:-240}
# name:operation:flags:environment (commas for spaces): what both tools get beyond the sweep;
# alltoallv's traffic comes from nccl-tests' own variables, which spiral-nccl-bench reads too
CASES=${CASES:-"u1:all_reduce:-u,1 z1:all_reduce:-z,1 z2:all_reduce:-z,2 z3:all_reduce:-z,3 T30:all_reduce:-T,30
R1:all_reduce:-R,1 R2:all_reduce:-R,2 R2-all_gather:all_gather:-R,2
a2av-spread1:alltoallv a2av-spread0:alltoallv::NCCL_TESTS_ALLTOALLV_SPREAD=0.0
a2av-matrix:alltoallv:-b,64M,-e,64M:NCCL_TESTS_ALLTOALLV_MATRIX_FILE=$RAW/matrix1.txt"}
mkdir -p "$OUT" "$RAW"
echo 67108864 >"$RAW/matrix1.txt"  # one rank: 64 MiB to itself
SUMMARY=$OUT/summary.md
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
START=$(date +%s)
left() { echo $((START + BUDGET - $(date +%s))); }
source "$ROOT/hack/bench/nccl-setup.sh"
log_machine
say "# nccl-tests 2.17-2.19 options on $(hostname): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); NCCL $(nccl_version)"
say "commit: $(cat "$ROOT/.carry-commit" 2>/dev/null || git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
build_spiral spiral-nccl-bench nccl_options_device_check nccl_device_check unit_tests
build_nccl_tests
"$BUILD/tests/unit_tests" --gtest_filter='Features*:NcclOptions*:Collective*:AllToAllv*:Split*' >"$OUT/check.txt" 2>&1 &&
  say "- unit tests (Features, NcclOptions, Collective, AllToAllv, Split): ok" || say "- unit tests: FAILED, see check.txt"
for t in nccl_options_device_check nccl_device_check; do
  timeout 150 "$BUILD/tests/nccl/$t" >>"$OUT/check.txt" 2>&1 && say "- $t: PASSED" || say "- $t: FAILED, see check.txt"
done
grep -E "^(ok|FAIL)" "$OUT/check.txt" | sed 's/^/    /' >>"$SUMMARY"
common=(-f 4 -n "${ITERS:-20}" -w "${WARMUP:-5}" -c 1)
DONE=0
for rep in $(seq 1 "$REPEATS"); do
  (($(left) < 40)) && { say "- repeat $rep skipped: $(left) s of the budget left"; break; }
  for c in $CASES; do
    IFS=: read -r name op flags envs <<<"$c"
    flags=${flags//,/ } envs=${envs//,/ }
    sweep=("${common[@]}")  # a case with its own -b -e (the traffic matrix) keeps them
    [[ $flags == *-b* ]] || sweep+=(-b "${MIN:-1K}" -e "${MAX:-256M}")
    # shellcheck disable=SC2086 # the case's flags are words
    env $envs timeout 60 "$NT/${op}_perf" "${sweep[@]}" $flags -g 1 >"$RAW/nccl-tests-$name-$rep.txt" 2>&1 ||
      echo "# exit $?" >>"$RAW/nccl-tests-$name-$rep.txt"
    # shellcheck disable=SC2086
    env $envs timeout 60 "$BUILD/spiral-nccl-bench" --op "$op" "${sweep[@]}" $flags >"$RAW/spiral-$name-$rep.txt" 2>&1 ||
      echo "# exit $?" >>"$RAW/spiral-$name-$rep.txt"
  done
  DONE=$rep
  say "- repeat $rep: $(wc -w <<<"$CASES") cases x 2 tools ($(($(date +%s) - START)) s so far)"
done
python3 "$ROOT/hack/bench/nccl_options_compare.py" "$RAW" "$DONE" "$CASES" >>"$SUMMARY" 2>&1 || say "compare: FAILED"

# With two GPUs, once each: alltoallv at two ranks (spiral-nccl-bench's two processes against
# nccl-tests -g 2), and split at two ranks (spiral only: nccl-tests splits under MPI alone; MOD 2
# makes two groups of one rank each, both at once, set beside nccl-tests -g 1).
CASES2="g2-a2av-spread1:alltoallv g2-a2av-spread0:alltoallv::NCCL_TESTS_ALLTOALLV_SPREAD=0.0 g2-split-mod2:all_reduce:--split,MOD2"
if (($(nvidia-smi -L | wc -l) >= 2)) && (($(left) > 40)); then
  for c in $CASES2; do
    IFS=: read -r name op flags envs <<<"$c"
    flags=${flags//,/ } envs=${envs//,/ }
    sweep=("${common[@]}" -b "${MIN:-1K}" -e "${MAX:-256M}")
    # shellcheck disable=SC2086
    env $envs timeout 90 "$BUILD/spiral-nccl-bench" --op "$op" "${sweep[@]}" $flags --nranks 2 --port 29517 \
      --device 0 >"$RAW/spiral-$name-1.txt" 2>&1 &
    # shellcheck disable=SC2086
    env $envs timeout 90 "$BUILD/spiral-nccl-bench" --op "$op" "${sweep[@]}" $flags --rank 1 --nranks 2 --port 29517 \
      --device 1 >"$RAW/spiral-$name-rank1.txt" 2>&1
    wait
    g=2; [[ $name == *split* ]] && { g=1; flags=""; }
    # shellcheck disable=SC2086
    env $envs timeout 90 "$NT/${op}_perf" "${sweep[@]}" $flags -g $g >"$RAW/nccl-tests-$name-1.txt" 2>&1
  done
  python3 "$ROOT/hack/bench/nccl_options_compare.py" "$RAW" 1 "$CASES2" | sed 's/one rank, median of 1 alternating runs/two GPUs, one run each/' >>"$SUMMARY" 2>&1
fi
tar -czf "$OUT/raw.tar.gz" -C "$RAW" .
say "total: $(($(date +%s) - START)) s"
