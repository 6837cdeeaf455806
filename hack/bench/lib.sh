# shellcheck shell=bash
# Helpers the benchmark scripts share (sourced).

# descendants PID: every process PID started, children first (tools run inside subshells and
# pipelines, so $! alone misses them).
descendants() {
  local child
  for child in $(pgrep -P "$1"); do
    descendants "$child"
    echo "$child"
  done
}

# kill_descendants: ends every process this script started and waits for them.
kill_descendants() {
  # shellcheck disable=SC2046 # one PID a word
  kill $(descendants $$) 2>/dev/null || true
  wait 2>/dev/null || true
}

# perf_cores_start FILE CORES SECONDS [DELAY]: in the background, waits DELAY seconds, then
# `perf record -C CORES` for SECONDS into FILE (system-wide on those cores: the tools' threads and
# the kernel work they cause there, softirq included). PERF_PID is that background job.
# PERF_EVENT (default cpu-clock: a timer, so it works in VMs without a PMU, and idle shows as such).
perf_cores_start() {
  { sleep "${4:-0}"; perf record -q -e "${PERF_EVENT:-cpu-clock}" -C "$2" -o "$1" -- sleep "$3"; } >/dev/null 2>&1 &
  PERF_PID=$!
}

# perf_cores_report FILE [LINES] [CPUS]: waits for perf_cores_start's recording, then prints who
# had the cores and the top LINES symbols (default 20), of the samples on CPUS only when given.
perf_cores_report() {
  wait "$PERF_PID" 2>/dev/null || true
  local only=()
  [[ -n ${3:-} ]] && only=(--cpu "$3")
  perf report -q -i "$1" --stdio "${only[@]}" --sort comm 2>/dev/null | grep -v '^$' | head -n 8
  echo
  perf report -q -i "$1" --stdio "${only[@]}" --no-children --sort dso,sym 2>/dev/null | grep -v '^$' | head -n "${2:-20}"
}

# bench_json NAMESPACE NAME: the bench as `kubectl get -o json` prints it, with each cell's
# repeats (which the bench does not store: its SpiralBenchAttemptResults do) put back under
# status.cellResults[].repeatResults, attempts the status counts only, in attempt order, as
# pkg/attempts does for the operator. Empty when the bench is gone; NAMESPACE "" is kubectl's own.
bench_json() {
  local sb sbar ns=()
  [[ -n $1 ]] && ns=(-n "$1")
  sb=$(kubectl "${ns[@]}" get spiralbenches.spiralbench.io "$2" -o json 2>/dev/null) || return 0
  sbar=$(kubectl "${ns[@]}" get spiralbenchattemptresults.spiralbench.io -l "spiralbench.io/bench=$2" -o json 2>/dev/null || echo '{"items":[]}')
  jq -n --argjson sb "$sb" --argjson sbar "$sbar" '$sb | .status.cellResults |= map(. as $c |
    .repeatResults = ([$sbar.items[] | select(.cellIndex == $c.index and .attempt < ($c.attempts // 0))]
      | sort_by(.attempt) | map(.repeatResults // []) | add // []))'
}
