#!/usr/bin/env bash
# The raw Ethernet GPU receive path on a GPU host (docs/benchmarks/gpu.md section 6):
#   correct  raw_gpu_correctness over net_memif (host_pinned in place with fft, gemm, gemm_fp16;
#            host staged with fft), over net_ring (host_pinned in place, each workload) and over
#            net_af_packet on a veth wire (host_pinned, each workload): frames DPDK received, with
#            drops, duplicates, reordering and strays, against the sender's bytes and CPU references
#   memif    benchmark (not a test): 8000 B frames, workload none vs fft, gemm, gemm_fp16, memory
#            host_pinned (in place) and host (staged), RAW_ROUNDS interleaved rounds
#   afp      the same over net_af_packet on the veth wire, host_pinned
#   ring     (not in the default parts) the same over net_ring, host_pinned in place: a port that
#            copies nothing (the receiver gets the sender's mbufs, made in the registered receive
#            memory), so what the workload costs is the GPU receive path's own cost. Unpaced (no
#            line rate: as fast as the cores go) and paced at RAW_RING_MBPS (98400, DAQIRI's bare
#            line rate on Spark): paced, "vs none" is against the paced bare run, and net_ring
#            cannot lose a frame (a full ring makes the sender wait), so a workload that does not
#            keep up shows as a lower rate, not as loss
#   sweep    gemm_fp16, host_pinned, memif: GPU window 512 KiB .. 8 MiB (DAQIRI's batch sweep)
#   knobs    fft in place over memif with max_in_flight 4, and with an RX worker core (the GPU
#            path on its own core, the poll-mode core only receiving): where the time goes
#   profile  (when perf is there: CARRY_PERF=1 hack/gpu/carry.sh) the RX core's hottest
#            functions, memif in place, workload none vs fft, and staged fft (perf, cpu-clock)
# Prints Markdown; with RAW_JSON=FILE also one JSON object per benchmark run.
# Usage: hack/gpu/raw-bench.sh BUILD_DIR (spiral-dataplane and tests/gpu/raw_gpu_correctness)
# Environment: RAW_PARTS ("correct memif afp sweep knobs profile"; add ring), RAW_SECONDS (3), RAW_ROUNDS (3),
#   RAW_TX_CORE (4), RAW_RX_CORE (2), RAW_MAIN_CORE (6), RAW_RING_MBPS (98400), SPIRAL_EAL_ARGS
#   (plugins, see dpdk-env.sh).
# Needs root; iproute2 for the veth wire (afp parts skip without it). Exit 1 when a correctness
# check failed or a run did not complete.
set -uo pipefail
BUILD=$(realpath "$1")
BIN=$BUILD/spiral-dataplane
CHECK=$BUILD/tests/gpu/raw_gpu_correctness
HERE=$(cd "$(dirname "$0")" && pwd)
WIRE=$HERE/../netns-wire.sh
PARTS=" ${RAW_PARTS:-correct memif afp sweep knobs profile} "
T=${RAW_SECONDS:-3}
ROUNDS=${RAW_ROUNDS:-3}
CORES=(--tx-cores "${RAW_TX_CORE:-4}" --rx-cores "${RAW_RX_CORE:-2}" --master-core "${RAW_MAIN_CORE:-6}")
JSON=${RAW_JSON:-}
WORK=$(mktemp -d)
export SBW_NS_A="sbgr$$-a" SBW_NS_B="sbgr$$-b" SBW_IF_A="sbgr$$a" SBW_IF_B="sbgr$$b"
export SBW_IP_A=10.79.0.1 SBW_IP_B=10.79.0.2
trap '"$WIRE" down >/dev/null 2>&1; rm -rf "$WORK"' EXIT
FAILS=0
has() { [[ $PARTS == *" $1 "* ]]; }
WIRE_UP=0
if command -v ip >/dev/null && "$WIRE" up 9000 >/dev/null 2>&1; then WIRE_UP=1; fi

memif_ports() {  # memif_ports TAG -> --tx-port ... --rx-port ... (10 KiB buffers: a frame per buffer)
  local s=$WORK/$1.sock
  echo "--tx-port net_memif0,role=client,socket=$s,bsize=10240,rsize=11 --rx-port net_memif1,role=server,socket=$s,bsize=10240,rsize=11"
}
ring_ports() {  # one net_ring port: TX queue 0 enqueues the mbufs RX queue 0 dequeues
  echo "--tx-port net_ring0 --rx-port net_ring0"
}
ports_for() {  # ports_for DEV TAG: the port flags of memif (sockets named after TAG), ring or afp
  case $1 in
    afp) afp_ports ;;
    ring) ring_ports ;;
    *) memif_ports "$2" ;;
  esac
}
afp_ports() {
  local fs=blocksz=20480,framesz=10240,framecnt=1024
  echo "--tx-port net_af_packet0,iface=$SBW_IF_A,netns=$SBW_NS_A,$fs,qdisc_bypass=1 --rx-port net_af_packet1,iface=$SBW_IF_B,netns=$SBW_NS_B,$fs,qdisc_bypass=1"
}

if has correct; then
  echo "### correctness on DPDK frames (raw_gpu_correctness)"
  echo '```'
  n=0
  for c in memif:host_pinned:fft memif:host_pinned:gemm memif:host_pinned:gemm_fp16 memif:host:fft \
           ring:host_pinned:fft ring:host_pinned:gemm ring:host_pinned:gemm_fp16 \
           afp:host_pinned:fft afp:host_pinned:gemm afp:host_pinned:gemm_fp16; do
    IFS=: read -r dev memory workload <<<"$c"
    if [[ $dev == afp ]] && ((!WIRE_UP)); then echo "skip $c: no veth wire (no ip, or not root)"; continue; fi
    ports=$(ports_for "$dev" "check$((n++))")
    # shellcheck disable=SC2086  # the ports are words
    if timeout 120 "$CHECK" --memory "$memory" --workload "$workload" $ports >"$WORK/check.out" 2>&1; then
      echo "$c: $(grep -E '^(ok|FAIL)' "$WORK/check.out" | sed 's/  */ /g' | paste -sd ';' -)"
    else
      echo "$c: FAILED (exit $?)"; tail -n 15 "$WORK/check.out"
      FAILS=$((FAILS + 1))
    fi
  done
  echo '```'
fi

# run DEV MEMORY WORKLOAD WINDOW_BYTES [KNOB] -> appends "key rx_gbps lost windows stalls stall_ms
# sm_pct rx_cpu_pct state" to $WORK/runs. KNOB: "" | inflight4 | worker (an RX worker core) |
# paced (the sender at RAW_RING_MBPS)
run() {
  local dev=$1 memory=$2 workload=$3 window=$4 knob=${5:-} ports out=$WORK/run.out extra=()
  case $knob in
    inflight4) extra=(--max-in-flight 4) ;;
    worker) extra=(--rx-workers "${RAW_WORKER_CORE:-8}") ;;
    paced) extra=(--target-mbps "${RAW_RING_MBPS:-98400}") ;;
  esac
  ports=$(ports_for "$dev" "b$RANDOM")
  # shellcheck disable=SC2086
  timeout 60 "$BIN" loopback --transport raw --no-huge --memory "$memory" --workload "$workload" $ports \
    --payload-bytes 8000 --batch 256 --seconds "$T" --warmup-seconds 1 --workload-batch-bytes "$window" \
    "${CORES[@]}" "${extra[@]}" >"$out" 2>"$out.err"
  local rc=$? rec
  rec=$(grep '^{"event":"result"' "$out" | tail -n 1)
  if [[ -z $rec ]]; then
    echo "$dev $memory $workload $window $knob: no record (exit $rc): $(tail -n 2 "$out.err" | tr '\n' ' ')" >&2
    FAILS=$((FAILS + 1))
    return
  fi
  [[ -n $JSON ]] && echo "$rec" >>"$JSON"
  python3 - "$rec" "$dev|$memory|$workload|$window|${knob:--}" >>"$WORK/runs" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); g = r.get("gpu") or {}
sm = r.get("gpu_sm_mpct", -1); rx = r.get("cpu_rx_mpct", -1)
print(sys.argv[2], "%.3f" % r["rx_gbps"], r.get("lost", 0), g.get("windows", 0), g.get("stalls", 0),
      g.get("stall_ms", 0), "%.0f" % (sm / 1000) if sm >= 0 else "-", "%.0f" % (rx / 1000) if rx >= 0 else "-",
      r["state"])
PY
}

# table TITLE DEV MEMORIES WORKLOADS WINDOWS [KNOBS]: rounds interleaved (every cell once per round)
table() {
  local title=$1 dev=$2 memories=$3 workloads=$4 windows=$5 knobs=${6:--} r m w b k
  : >"$WORK/runs"
  for ((r = 0; r < ROUNDS; r++)); do
    for k in $knobs; do for m in $memories; do for b in $windows; do for w in $workloads; do
      run "$dev" "$m" "$w" "$b" "${k#-}"
    done; done; done; done
  done
  echo
  echo "### $title ($T s cells, 8000 B, batch 256, median of $ROUNDS interleaved rounds)"
  echo
  python3 - "$WORK/runs" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    key, gbps, lost, windows, stalls, stall_ms, sm, rxcpu, state = line.split()
    rows.setdefault(key, []).append((float(gbps), int(lost), int(windows), int(stalls), int(stall_ms), sm, rxcpu, state))
print("| device | memory | workload | window | knob | RX Gb/s (median) | vs none | lost (max) | windows | stalls | stall ms | SM % | RX core % | states | RX Gb/s of every run |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for key, runs in rows.items():
    dev, memory, workload, window, knob = key.split("|")
    med = statistics.median(r[0] for r in runs)
    # paced rows against the bare run at the same rate; other knobs against the plain bare run
    base = rows.get("|".join([dev, memory, "none", window, knob if knob == "paced" else "-"]))
    ratio = "%.3f" % (med / statistics.median(r[0] for r in base)) if base and workload != "none" else ""
    last = runs[-1]
    print("| %s | %s | %s | %d KiB | %s | %.2f | %s | %d | %d | %d | %d | %s | %s | %s | %s |" % (
        dev, memory, workload, int(window) // 1024, knob, med, ratio, max(r[1] for r in runs), last[2],
        max(r[3] for r in runs), last[4], last[5], last[6], ",".join(sorted(set(r[7] for r in runs))),
        " ".join("%.2f" % r[0] for r in runs)))
PY
}

has memif && table "memif: in place (host_pinned) vs staged (host)" memif "host_pinned host" "none fft gemm gemm_fp16" 8388608
has ring && table "net_ring (copies nothing), in place; paced: the sender at ${RAW_RING_MBPS:-98400} Mb/s" ring \
  host_pinned "none fft gemm gemm_fp16" 8388608 "- paced"
if has afp; then
  if ((WIRE_UP)); then table "af_packet on a veth wire (MTU 9000), in place" afp host_pinned "none fft gemm gemm_fp16" 8388608
  else echo; echo "afp: skipped (no veth wire: no ip, or not root)"; fi
fi
has sweep && table "GPU window sweep, gemm_fp16 in place over memif" memif host_pinned "none gemm_fp16" \
  "524288 1048576 2097152 4194304 8388608"
if has profile; then
  if command -v perf >/dev/null; then
    for c in host_pinned:none host_pinned:fft host:fft; do
      IFS=: read -r memory workload <<<"$c"
      # shellcheck disable=SC2046
      "$BIN" loopback --transport raw --no-huge --memory "$memory" --workload "$workload" $(memif_ports "prof") \
        --payload-bytes 8000 --batch 256 --seconds 5 --warmup-seconds 1 "${CORES[@]}" >"$WORK/prof.out" 2>&1 &
      pid=$!
      sleep 3
      perf record -q -e cpu-clock -C "${RAW_RX_CORE:-2}" -o "$WORK/perf.data" -- sleep 2 >/dev/null 2>&1
      wait "$pid"
      echo
      echo "### RX core profile: memif, $memory, $workload ($(grep -o '"rx_gbps":[0-9.]*' "$WORK/prof.out" | tail -1))"
      echo '```'
      perf report -i "$WORK/perf.data" --stdio --no-children --sort dso,sym 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 22
      echo '```'
    done
  else
    echo; echo "profile: skipped (no perf: carry it with CARRY_PERF=1 hack/gpu/carry.sh)"
  fi
fi
has knobs && table "knobs: fft in place over memif" memif host_pinned "none fft" 8388608 "- inflight4 worker"
echo
echo "raw-bench: $FAILS failure(s)"
((FAILS == 0))
