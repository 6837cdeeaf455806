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
