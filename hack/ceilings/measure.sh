#!/usr/bin/env bash
# The runs docs/benchmarks/ceilings.md judges on a GPU machine, each writing its summary (with
# the environment capture) into OUT: host and device-local copies, TCP and UDP over a veth wire
# between two network namespaces with pinned cores, and the raw path over net_ring. Then
# hack/ceilings reads them as `sbctl explain` would, when Go is on the machine; else the
# summaries come back (RESULT/ceilings.tgz) to be read where it is.
#
# Usage (root): hack/ceilings/measure.sh BUILD_DIR OUT_DIR   (hack/gpu/device-run.sh step "ceilings")
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(realpath "$1")/spiral-dataplane
RESULT=$(realpath "$2")
OUT=$(mktemp -d) # the summaries, then one archive in RESULT (the device returns few files)
WIRE=$HERE/../netns-wire.sh
RX=${CEIL_RX_CORE:-2} TX=${CEIL_TX_CORE:-4} T=${CEIL_SECONDS:-5}
export SBW_NS_A="sbce$$-a" SBW_NS_B="sbce$$-b" SBW_IF_A="sbce$$a" SBW_IF_B="sbce$$b"
export SBW_IP_A=10.77.0.1 SBW_IP_B=10.77.0.2
trap '"$WIRE" down >/dev/null 2>&1; tar -C "$OUT" -czf "$RESULT/ceilings.tgz" .; rm -rf "$OUT"' EXIT
fails=0

echo "gpucopy: h2d, d2h, d2d at 256 MiB"
"$BIN" loopback --transport gpucopy --max-bytes 268435456 --environment --environment-file "$OUT/gpucopy.env" \
  --summary-file "$OUT/gpucopy.summary.json" >/dev/null || fails=$((fails + 1))

if "$WIRE" up 9000 >/dev/null 2>&1; then
  port=18901
  for t in tcp udp; do
    args=(--transport "$t" --pairs 1 --seconds "$T" --warmup-seconds 1 --base-port "$port")
    [[ $t == tcp ]] && args+=(--payload-bytes 1048576) || args+=(--payload-bytes 8000)
    echo "$t over veth: rx core $RX, tx core $TX"
    ip netns exec "$SBW_NS_B" "$BIN" server "${args[@]}" --bind-address "$SBW_IP_B" --rx-cores "$RX" --environment \
      --environment-file "$OUT/$t-veth-server.env" --summary-file "$OUT/$t-veth-server.summary.json" >/dev/null 2>"$OUT/$t.err" &
    server=$!
    ip netns exec "$SBW_NS_A" "$BIN" client "${args[@]}" --server-address "$SBW_IP_B" --tx-cores "$TX" --environment \
      --environment-file "$OUT/$t-veth-client.env" --summary-file "$OUT/$t-veth-client.summary.json" >/dev/null 2>>"$OUT/$t.err" || fails=$((fails + 1))
    wait "$server" || fails=$((fails + 1))
    port=$((port + 10))
  done
else
  echo "no veth wire here: TCP and UDP skipped"
fi

echo "raw over net_ring: 8000 B, host pinned"
"$BIN" loopback --transport raw --no-huge --memory host_pinned --tx-port net_ring0 --rx-port net_ring0 --payload-bytes 8000 \
  --batch 256 --seconds "$T" --warmup-seconds 1 --tx-cores "$TX" --rx-cores "$RX" --master-core 6 --environment \
  --environment-file "$OUT/raw-ring.env" --summary-file "$OUT/raw-ring.summary.json" >/dev/null 2>"$OUT/raw.err" || fails=$((fails + 1))

if command -v go >/dev/null; then
  cd "$HERE/../.." || exit 1
  go run ./hack/ceilings -transport GPUCopy "$OUT/gpucopy.summary.json"
  go run ./hack/ceilings -transport TCP -mode CrossNode -rx-core "$RX" -tx-core "$TX" "$OUT"/tcp-veth-server.summary.json
  go run ./hack/ceilings -transport UDP -mode CrossNode -rx-core "$RX" -tx-core "$TX" "$OUT"/udp-veth-server.summary.json
  go run ./hack/ceilings -transport RawEthernet -vdev net_ring0 -rx-core "$RX" -tx-core "$TX" "$OUT/raw-ring.summary.json"
fi
exit $((fails > 0))
