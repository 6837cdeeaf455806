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
#   (default ./suite-results): suite.md (the table, also printed) and each cell's summary and log.
set -uo pipefail
BUILD=${1:?usage: suite-run.sh BUILD_DIR FILE.tsv...}
shift
BIN=$BUILD/spiral-dataplane
OUT=${OUT:-$PWD/suite-results}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
[[ -x $BIN ]] || { echo "no $BIN"; exit 1; }
TABLE=$OUT/suite.md
echo "| rendered as | step | cells | wall (s) | exit codes | summary states |" | tee "$TABLE"
echo "|---|---|---:|---:|---|---|" | tee -a "$TABLE"

# run_cell FILE STEP CELL: the cell's ranks, rank 0 first; later ranks once rank 0 is ready.
run_cell() {
  local file=$1 step=$2 cell=$3 rank args pids=() ready
  ready=$(mktemp -u "$OUT/ready.XXXXXX")
  while IFS=$'\t' read -r s c rank args; do
    [[ $s == "$step" && $c == "$cell" ]] || continue
    local base=$OUT/$(basename "$file" .tsv)-$step-c$cell-r$rank
    args=${args//\/dev\/termination-log/$base.summary}
    args=${args//\/run\/spiral\/ready/$ready.$rank}
    # shellcheck disable=SC2086
    timeout "${CELL_TIMEOUT:-600}" "$BIN" $args >"$base.log" 2>&1 &
    pids+=($!)
    if [[ $rank == 0 ]] && (($(awk -F'\t' -v s="$step" -v c="$cell" '$1==s && $2==c' "$file" | wc -l) > 1)); then
      for _ in $(seq 600); do [[ -e $ready.0 ]] && break; sleep 0.1; done
    fi
  done <"$file"
  local rcs=()
  for p in "${pids[@]}"; do wait "$p"; rcs+=($?); done
  echo "${rcs[*]}"
}

for file in "$@"; do
  for step in $(grep -v '^#' "$file" | cut -f1 | uniq); do
    cells=$(awk -F'\t' -v s="$step" '$1==s {print $2}' "$file" | sort -un)
    start=$(date +%s.%N)
    codes=()
    for cell in $cells; do codes+=("$(run_cell "$file" "$step" "$cell")"); done
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    states=$(cat "$OUT/$(basename "$file" .tsv)-$step"-c*-r*.summary 2>/dev/null | grep -o '"state": *"[A-Za-z]*"' | sed 's/.*"\([A-Za-z]*\)"$/\1/' | sort | uniq -c | awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}')
    printf "| %s | %s | %d | %.1f | %s | %s |\n" "$(basename "$file" .tsv)" "$step" "$(echo "$cells" | wc -w)" "$wall" "${codes[*]}" "${states:-none}" | tee -a "$TABLE"
  done
  grep '^#' "$file" | sed "s/^# /| $(basename "$file" .tsv) | /; s/: skipped: / | - | - | skipped | /; s/$/ |/" | tee -a "$TABLE"
done
