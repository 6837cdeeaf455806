#!/usr/bin/env bash
# Benchmark (not a test), on a machine with N >= 2 GPUs (all of the host's), in one go
# (docs/benchmarks/nccl.md):
#   1. build     spiral-dataplane (CUDA + NCCL) and nccl-tests 2.19.6 against the machine's own
#                NCCL (hack/bench/nccl-setup.sh)
#   2. check     the device-labelled NCCL ctests: nccl.device_check (every operation at one rank,
#                the check on, a negative control) and nccl.two_gpu (every operation at two ranks
#                in one pod, checked, the wire under P2P named); then `nvidia-smi topo -m`
#   3. measure   for every operation, 8 B .. MAX, alternating, REPEATS times:
#                (a) spiral, one pod holding all N GPUs: `rank ... --gpus N`
#                (b) spiral, two pods of N/2 GPUs (CrossNode's shape, on one host):
#                    `--first-rank 0` and `--first-rank N/2`, the second started once the first
#                    is ready (the operator's barrier), over the control channel on 127.0.0.1
#                (c) nccl-tests <op>_perf -t N -g 1 (N threads, one GPU each)
#                (d) nccl-tests <op>_perf -g N (one thread, all GPUs)
#                (a) and (b) are the operator's own pods: their arguments come from
#                hack/nccl-pods (pkg/plan + pkg/cellpod), only the termination-log and ready-file
#                paths moved into RAW, and CUDA_VISIBLE_DEVICES standing in for the device plugin
#   4. compare   hack/bench/nccl_compare.py --n-gpu: busbw per size of the four side by side,
#                the ratio to (c), checks, spiral's p50/p99 and slowest rank, the transport
# Everything lands in $OUT (default ./nccl-ngpu-results): summary.md (printed last), build.log,
# check.txt, topo.txt, raw.tar.gz (every tool's output).
#
# Usage (root, from the carry folder hack/bench/nccl-carry.sh made, or a checkout):
#   OUT=DIR bash hack/bench/nccl-ngpu-run.sh
# Environment: OPS (all seven), MAX (1G), ITERS (20), WARMUP (5), REPEATS (3), BUDGET (540 s: a
#   repeat that no longer fits is skipped, and the summary says so), GPUS (all of the host's),
#   PODS (hack/bench/nccl-pods-N: the rendered pod arguments; rendered here with
#   `go run ./hack/nccl-pods -gpus N` when absent),
#   NCCL_HOME, NCCL_TESTS_TARBALL, BUILD (hack/bench/nccl-setup.sh)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/nccl-ngpu-results}
RAW=/tmp/spiral-nccl-ngpu-raw
OPS=${OPS:-sendrecv all_gather all_reduce broadcast reduce reduce_scatter alltoall}
MAX=${MAX:-1G} ITERS=${ITERS:-20} WARMUP=${WARMUP:-5} REPEATS=${REPEATS:-3} BUDGET=${BUDGET:-540}
rm -rf "$RAW"
mkdir -p "$OUT" "$RAW"
SUMMARY=$OUT/summary.md
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
START=$(date +%s)
left() { echo $((START + BUDGET - $(date +%s))); }
source "$ROOT/hack/bench/nccl-setup.sh"  # NCCL, the environment, build_spiral, build_nccl_tests
log_machine
HOST_GPUS=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
GPUS=${GPUS:-$HOST_GPUS}
PODS=${PODS:-$ROOT/hack/bench/nccl-pods-$GPUS}
HALF=$((GPUS / 2))
# the devices of GPUs FIRST..LAST-1, comma-separated (CUDA_VISIBLE_DEVICES, as the device plugin gives)
devices() { seq -s, "$1" $(($2 - 1)); }
say "# NCCL on $GPUS GPUs, $(hostname): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1) x$HOST_GPUS; NCCL $(nccl_version); $(nproc) cores"
say "commit: $(cat "$ROOT/.carry-commit" 2>/dev/null || git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
say "options: 8 B .. $MAX, factor 2, iterations $ITERS, warm-up $WARMUP, check 1, median of $REPEATS alternating runs"
((GPUS >= 2 && GPUS <= HOST_GPUS)) || { say "- needs 2 .. $HOST_GPUS GPUs, asked for $GPUS"; exit 1; }

# --- 1. build -----------------------------------------------------------------------------------
build_spiral spiral-dataplane nccl_device_check
build_nccl_tests
D=$BUILD/spiral-dataplane

# --- the pods the operator plans (same ITERS, WARMUP, MAX as here, or the table would lie) -------
if [[ ! -d $PODS ]]; then
  command -v go >/dev/null || { say "- no rendered pod arguments in $PODS and no go to render them"; exit 1; }
  go run ./hack/nccl-pods -out "$PODS" -gpus "$GPUS" -max-bytes "$(numfmt --from=iec "$MAX")" -iterations "$ITERS" \
    -warmup-iterations "$WARMUP" || { say "- rendering the pods: FAILED"; exit 1; }
fi
for want in "--iterations $ITERS" "--warmup-iterations $WARMUP" "--max-bytes $(numfmt --from=iec "$MAX")"; do
  tr '\n' ' ' <"$PODS/one-pod-sendrecv-rank0.args" | grep -q -- "$want " ||
    { say "- the rendered pods in $PODS lack '$want': render them again (hack/bench/nccl-carry.sh)"; exit 1; }
done
for want in "--gpus $GPUS --first-rank 0 --nranks $GPUS"; do
  tr '\n' ' ' <"$PODS/one-pod-sendrecv-rank0.args" | grep -q -- "$want " ||
    { say "- the rendered pods in $PODS lack '$want': render them for $GPUS GPUs (hack/bench/nccl-carry.sh)"; exit 1; }
done

# --- 2. check and topology ----------------------------------------------------------------------
ctest --test-dir "$BUILD" -L device -R '^nccl\.' -V --timeout 150 >"$OUT/check.txt" 2>&1 &&
  say "- ctest -L device -R '^nccl\.': ok" || say "- ctest -L device -R '^nccl\.': FAILED, see check.txt"
grep -E "^[0-9]+: (ok|FAIL|device|PASSED|FAILED|SKIP)|tests passed" "$OUT/check.txt" | sed 's/^/    /' >>"$SUMMARY"
nvidia-smi topo -m >"$OUT/topo.txt" 2>&1
{ echo; echo '```'; cat "$OUT/topo.txt"; echo '```'; } >>"$SUMMARY"

# pod_args LAYOUT OP RANK TAG: the pod's arguments with its two pod paths moved into RAW
pod_args() {
  sed -e "s|^/dev/termination-log$|$RAW/$4.summary.json|" -e "s|^/run/spiral/ready$|$RAW/$4.ready|" \
    "$PODS/$1-$2-rank$3.args"
}
# run_pod LAYOUT OP RANK TAG DEVICES [ARGS...]: one pod's process, its container env and its
# GPUs; ARGS are added to the pod's own
run_pod() {
  local -a args env
  mapfile -t args < <(pod_args "$1" "$2" "$3" "$4")
  args+=("${@:6}")
  mapfile -t env <"$PODS/$1-$2-rank$3.env"
  env "${env[@]}" CUDA_VISIBLE_DEVICES="$5" timeout 90 "$D" "${args[@]}" >"$RAW/$4.out" 2>"$RAW/$4.err"
  local rc=$?
  echo "# exit $rc" >>"$RAW/$4.err"
  return $rc
}

# --- 3. per repeat, per operation: the four ways, alternating -------------------------------
nt=(-b 8 -e "$MAX" -f 2 -n "$ITERS" -w "$WARMUP" -c 1)
DONE=0 LAST=120 TWO_PODS=1
for rep in $(seq 1 "$REPEATS"); do
  # a repeat starts only if one as long as the last still fits the budget
  (($(left) < LAST * 6 / 5)) && { say "- repeat $rep skipped: $(left) s of the budget left, a repeat takes $LAST s"; break; }
  t_rep=$(date +%s)
  for op in $OPS; do
    # (a) also writes nccl-tests' JSON with every rank's per-iteration times (no timing change:
    # the per-iteration pass runs anyway)
    run_pod one-pod "$op" 0 "a-$op-$rep" "$(devices 0 "$GPUS")" --nccl-tests-json "$RAW/a-$op-$rep.nccl-tests.json"
    # (b): rank 0's pod first; the second once rank 0 is ready, as the operator starts them. A
    # failure stops (b) for the rest of the run: a rank left waiting costs its bootstrap timeout.
    if ((TWO_PODS)); then
      run_pod two-pods "$op" 0 "b-$op-$rep-rank0" "$(devices 0 "$HALF")" &
      r0=$!
      for _ in $(seq 1 300); do [[ -e $RAW/b-$op-$rep-rank0.ready ]] && break; kill -0 $r0 2>/dev/null || break; sleep 0.1; done
      run_pod two-pods "$op" 1 "b-$op-$rep-rank1" "$(devices "$HALF" "$GPUS")" || TWO_PODS=0
      wait $r0 || TWO_PODS=0
      ((TWO_PODS)) || say "- (b) $op repeat $rep failed (see raw.tar.gz b-$op-$rep-*.err): (b) skipped from here on"
    fi
    CUDA_VISIBLE_DEVICES=$(devices 0 "$GPUS") timeout 90 "$NT/${op}_perf" "${nt[@]}" -t "$GPUS" -g 1 >"$RAW/c-$op-$rep.txt" 2>&1 ||
      echo "# exit $?" >>"$RAW/c-$op-$rep.txt"
    CUDA_VISIBLE_DEVICES=$(devices 0 "$GPUS") timeout 90 "$NT/${op}_perf" "${nt[@]}" -g "$GPUS" >"$RAW/d-$op-$rep.txt" 2>&1 ||
      echo "# exit $?" >>"$RAW/d-$op-$rep.txt"
  done
  DONE=$rep LAST=$(($(date +%s) - t_rep))
  say "- repeat $rep: $(wc -w <<<"$OPS") operations x 4 ways in $LAST s ($(($(date +%s) - START)) s so far)"
done

# --- 4. compare: the full tables go to summary.md, the digest is printed ------------------------
python3 "$ROOT/hack/bench/nccl_compare.py" --n-gpu "$RAW" "$DONE" "$ITERS" "$GPUS" >>"$SUMMARY" 2>"$OUT/digest.txt" ||
  say "compare: FAILED"
cat "$OUT/digest.txt"
# nccl-tests' own analyzer (its tarball's tools/) on (a)'s JSON of the last repeat's all_reduce
AJ=$RAW/a-all_reduce-$DONE.nccl-tests.json
if [[ -e $AJ && -e /tmp/nccl-tests-2.19.6/tools/analyze_perf_json.py ]]; then
  { echo; echo "analyze_perf_json.py $(basename "$AJ") --straggler --spikes --nodes:"; echo '```'
    python3 /tmp/nccl-tests-2.19.6/tools/analyze_perf_json.py "$AJ" --straggler --spikes --nodes 2>&1; echo '```'; } >>"$SUMMARY"
fi
cp /tmp/spiral-nccl-rank*.log "$RAW/" 2>/dev/null
tar -czf "$OUT/raw.tar.gz" -C "$RAW" .
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv >>"$OUT/build.log" 2>&1
say "total: $(($(date +%s) - START)) s"
echo; cat "$SUMMARY"
