#!/usr/bin/env bash
# Runs a built-in suite's steps on a GPU machine without Kubernetes, exactly as a fleet's cell
# pods would run them (their data plane arguments, rendered on the development machine by
# `go run ./hack/suitecmd -suite Quick -gpus N > FILE.tsv`), and prints per step its cells,
# wall time, exit codes and the summaries' states: the built-in suites' durations on a GPU
# node, for docs/qualification.md. Not the operator: no pods, no leases, no upload; a rank
# after the first meets rank 0 on 127.0.0.1.
#
# Usage (on the GPU machine): bash hack/gpu/suite-run.sh BUILD_DIR FILE.tsv...
#   BUILD_DIR holds spiral-dataplane (the CUDA flavour, with NCCL). Output under $OUT
#   (default ./suite-results): suite.md (the table, also printed), summaries.jsonl (every
#   summary line) and failed.log (the last lines of each process that did not exit 0); each
#   process's own log and summary stay under $WORK (a temporary folder).
set -uo pipefail
BUILD=${1:?usage: suite-run.sh BUILD_DIR FILE.tsv...}
shift
BIN=$BUILD/spiral-dataplane
OUT=${OUT:-$PWD/suite-results}
mkdir -p "$OUT"
WORK=${WORK:-$(mktemp -d)}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
[[ -x $BIN ]] || { echo "no $BIN"; exit 1; }
TABLE=$OUT/suite.md
echo "| rendered as | step | attempts | wall (s) | exit codes | summary states |" | tee "$TABLE"
echo "|---|---|---:|---:|---|---|" | tee -a "$TABLE"

# run_cell FILE STEP CELL: the cell's ranks, rank 0 first; later ranks once rank 0 is ready.
run_cell() {
  local file=$1 step=$2 cell=$3 rank args pids=() ready
  ready=$(mktemp -u "$WORK/ready.XXXXXX")
  while IFS=$'\t' read -r s c rank args; do
    [[ $s == "$step" && $c == "$cell" ]] || continue
    local base=$WORK/$(basename "$file" .tsv)-$step-c$cell-r$rank
    args=${args//\/dev\/termination-log/$base.summary}
    args=${args//\/run\/spiral\/ready/$ready.$rank}
    # shellcheck disable=SC2086
    timeout "${CELL_TIMEOUT:-600}" "$BIN" $args >"$base.log" 2>&1 &
    pids+=($!)
    if [[ $rank == 0 ]] && (($(awk -F'\t' -v s="$step" -v c="$cell" '$1==s && $2""==c""' "$file" | wc -l) > 1)); then
      for _ in $(seq 600); do [[ -e $ready.0 ]] && break; sleep 0.1; done
    fi
  done <"$file"
  local rcs=() rc i=0
  for p in "${pids[@]}"; do
    wait "$p"; rc=$?; rcs+=($rc)
    local base=$WORK/$(basename "$file" .tsv)-$step-c$cell-r$i
    [[ -s $base.summary ]] && { cat "$base.summary"; echo; } >>"$OUT/summaries.jsonl"
    ((rc == 0)) || { echo "== $(basename "$base") exit $rc"; tail -n 5 "$base.log"; } >>"$OUT/failed.log"
    i=$((i + 1))
  done
  echo "${rcs[*]}"
}

for file in "$@"; do
  for step in $(grep -v '^#' "$file" | cut -f1 | uniq); do
    cells=$(awk -F'\t' -v s="$step" '$1==s && !seen[$2]++ {print $2}' "$file")
    start=$(date +%s%N)
    codes=()
    for cell in $cells; do codes+=("$(run_cell "$file" "$step" "$cell")"); done
    wall=$((($(date +%s%N) - start) / 1000000))
    states=$(cat "$WORK/$(basename "$file" .tsv)-$step"-c*-r*.summary 2>/dev/null | grep -o '"state": *"[A-Za-z]*"' | sed 's/.*"\([A-Za-z]*\)"$/\1/' | sort | uniq -c | awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}')
    printf "| %s | %s | %d | %d.%01d | %s | %s |\n" "$(basename "$file" .tsv)" "$step" "$(echo "$cells" | wc -w)" $((wall / 1000)) $((wall % 1000 / 100)) "${codes[*]}" "${states:-none}" | tee -a "$TABLE"
  done
  grep '^#' "$file" | sed "s/^# /| $(basename "$file" .tsv) | /; s/: skipped: / | - | - | skipped | /; s/$/ |/" | tee -a "$TABLE"
done
