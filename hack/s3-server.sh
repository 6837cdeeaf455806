#!/usr/bin/env bash
# An S3 server for tests: versitygw (Apache-2.0, built from the Go module proxy and cached) with
# its POSIX backend in a temp dir, on 127.0.0.1 only.
#
#   hack/s3-server.sh up       start (idempotent), create $S3_BUCKET; prints the endpoint last
#   hack/s3-server.sh stop     stop it, keep the data (an "unreachable" bucket for fault tests)
#   hack/s3-server.sh down     stop it and delete its data
#   hack/s3-server.sh status
#
# S3_HOST (127.0.0.1), S3_PORT (7070), S3_ACCESS_KEY / S3_SECRET_KEY (fixed test credentials),
# S3_BUCKET (spiralbench-results), S3_REGION (us-east-1).
set -euo pipefail
: "${VERSITYGW_VERSION:=v1.8.0}"
: "${S3_HOST:=127.0.0.1}" "${S3_PORT:=7070}" "${S3_REGION:=us-east-1}" "${S3_BUCKET:=spiralbench-results}"
: "${S3_ACCESS_KEY:=spiralbench-test}" "${S3_SECRET_KEY:=spiralbench-test-secret}"
CACHE=${SPIRALBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}
BIN="$CACHE/versitygw-$VERSITYGW_VERSION/versitygw"
STATE="$CACHE/s3-$S3_PORT" # pid, log and the data dir's path; one server per port
ENDPOINT="http://$S3_HOST:$S3_PORT"

build() {
  [[ -x $BIN ]] && return 0
  # one line here; the module downloads and compiler output go to build/logs/ (hack/lib/phase.sh)
  source "$(dirname "$0")/lib/phase.sh"
  # The module root holds no main package; the binary is cmd/versitygw.
  phase_run "build versitygw $VERSITYGW_VERSION into ${BIN%/*}" once \
    env GOBIN="${BIN%/*}" GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
    go install -trimpath -ldflags "-s -w" "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
}

pid() { [[ -f "$STATE/pid" ]] && cat "$STATE/pid"; }
running() { local p; p=$(pid) && kill -0 "$p" 2>/dev/null; }
healthy() { curl -fsS -o /dev/null --max-time 2 "$ENDPOINT/health"; }
# s3 METHOD PATH: a SigV4-signed request with curl, so no S3 client is needed.
s3() {
  curl -sS -o /dev/null -w '%{http_code}' --max-time 10 -X "$1" --aws-sigv4 "aws:amz:$S3_REGION:s3" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" "$ENDPOINT/$2"
}

up() {
  build
  mkdir -p "$STATE"
  if ! running; then
    local data i
    data=$(cat "$STATE/data-dir" 2>/dev/null || true)
    if [[ ! -d $data ]]; then data=$(mktemp -d /tmp/spiralbench-s3.XXXXXX) && echo "$data" >"$STATE/data-dir"; fi
    rm -f "$STATE/pid"
    # Own session and PID written by the process that execs the server (see hack/cluster/common.sh).
    ROOT_ACCESS_KEY=$S3_ACCESS_KEY ROOT_SECRET_KEY=$S3_SECRET_KEY setsid bash -c 'echo $$ >"$0"; exec "$@"' \
      "$STATE/pid" "$BIN" --port "$S3_HOST:$S3_PORT" --region "$S3_REGION" --health /health posix "$data" \
      >>"$STATE/versitygw.log" 2>&1 </dev/null &
    until [[ -s "$STATE/pid" ]]; do sleep 0.05; done
    for ((i = 0; i < 100; i++)); do healthy && break; running || break; sleep 0.1; done
    healthy || { tail -n 20 "$STATE/versitygw.log" >&2; echo "versitygw did not come up" >&2; exit 1; }
    echo "versitygw up (pid $(pid)) after ~$((i * 100)) ms, data in $data" >&2
  fi
  local code
  code=$(s3 PUT "$S3_BUCKET")
  case $code in
    200 | 409) ;; # 409: the bucket exists already (BucketAlreadyOwnedByYou)
    *) echo "creating bucket $S3_BUCKET: HTTP $code" >&2; exit 1 ;;
  esac
  echo "bucket $S3_BUCKET; credentials S3_ACCESS_KEY=$S3_ACCESS_KEY S3_SECRET_KEY=<test secret>" >&2
  echo "$ENDPOINT"
}

stop() {
  local p i
  p=$(pid) || return 0
  if kill -0 "$p" 2>/dev/null; then
    kill "$p"
    for ((i = 0; i < 50; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$p" 2>/dev/null && kill -9 "$p"
    echo "stopped versitygw (pid $p)" >&2
  fi
  rm -f "$STATE/pid"
}

down() {
  stop
  local data
  data=$(cat "$STATE/data-dir" 2>/dev/null || true)
  [[ -n $data && -d $data ]] && rm -rf "$data" && echo "removed $data" >&2
  rm -rf "$STATE"
}

status() {
  if running && healthy; then echo "versitygw: running (pid $(pid)) at $ENDPOINT, data in $(cat "$STATE/data-dir")"
  elif running; then echo "versitygw: running (pid $(pid)) but $ENDPOINT/health does not answer"; return 1
  elif [[ -f "$STATE/data-dir" ]]; then echo "versitygw: stopped, data kept in $(cat "$STATE/data-dir")"; return 1
  else echo "versitygw: stopped"; return 1; fi
}

case ${1:-} in
  up | stop | down | status | build) "$1" ;;
  *) echo "usage: $0 up|stop|down|status|build" >&2; exit 2 ;;
esac
