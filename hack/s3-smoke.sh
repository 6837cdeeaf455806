#!/usr/bin/env bash
# Checks hack/s3-server.sh the way the fault tests use it: an object written, the server stopped
# (writes fail fast: connection refused), started again (same data, writes work again), then
# down leaves no process, port or data behind.
set -euo pipefail
HACK=$(cd "$(dirname "$0")" && pwd)
: "${S3_PORT:=7070}" "${S3_BUCKET:=spiralbench-results}"
: "${S3_ACCESS_KEY:=spiralbench-test}" "${S3_SECRET_KEY:=spiralbench-test-secret}"
export S3_PORT S3_BUCKET S3_ACCESS_KEY S3_SECRET_KEY
CACHE=${SPIRALBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"; "$HACK/s3-server.sh" down >/dev/null 2>&1 || true' EXIT
s3() { # METHOD KEY [FILE]: HTTP status of a signed request
  curl -sS -o "$tmp/out" -w '%{http_code}' --max-time 5 -X "$1" --aws-sigv4 aws:amz:us-east-1:s3 \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" \
    ${3:+--data-binary "@$3"} "$endpoint/$S3_BUCKET/$2" 2>/dev/null || true
}
expect() { if [[ $1 == "$2" ]]; then echo "ok   $3"; else echo "FAIL $3 (got $1, want $2)"; exit 1; fi; }

endpoint=$("$HACK/s3-server.sh" up 2>/dev/null | tail -n1)
head -c 1000000 /dev/urandom >"$tmp/before"
expect "$(s3 PUT smoke/before.bin "$tmp/before")" 200 "PUT while up"
"$HACK/s3-server.sh" stop 2>/dev/null
expect "$(s3 PUT smoke/during.bin "$tmp/before")" 000 "PUT while stopped fails (unreachable)"
t0=${EPOCHREALTIME/./}
"$HACK/s3-server.sh" up >/dev/null 2>&1
echo "     restarted in $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
expect "$(s3 PUT smoke/after.bin "$tmp/before")" 200 "PUT after restart"
expect "$(s3 GET smoke/before.bin)" 200 "GET of the object written before the stop"
cmp -s "$tmp/out" "$tmp/before" && echo "ok   content identical" || { echo "FAIL content differs"; exit 1; }
data=$(cat "$CACHE/s3-$S3_PORT/data-dir")
"$HACK/s3-server.sh" down 2>/dev/null
expect "$([[ -e $data ]] && echo kept || echo removed)" removed "down removes the data dir"
expect "$(s3 GET smoke/before.bin)" 000 "nothing listens after down"
echo "s3 smoke: passed"
