#!/usr/bin/env bash
# spiral-dataplane with each GPU workload, TCP and UDP in one process (loopback role, 127.0.0.1),
# and raw Ethernet over net_memif (host_pinned in place, host staged) where the build has DPDK:
# the run is Valid, windows reached the GPU, and the record, summary and CSV carry the figures.
# Without a usable GPU the binary must refuse with one clear line and exit 2; the test then
# exits 77 (Skipped). $1: the spiral-dataplane binary.
set -euo pipefail
BIN=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
json() { python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(eval(sys.argv[2], {}, {"r": r}))' "$1" "$2"; }

rc=0
"$BIN" loopback --transport tcp --workload fft --seconds 0.2 --warmup-seconds 0 >"$WORK/probe.out" 2>"$WORK/probe.err" || rc=$?
if ((rc == 2)) && grep -q "needs a GPU" "$WORK/probe.err"; then
  [[ $(wc -l <"$WORK/probe.err") == 1 ]] || { cat "$WORK/probe.err"; echo "FAIL: more than one line on stderr"; exit 1; }
  echo "SKIP: $(cat "$WORK/probe.err")"
  exit 77
fi
((rc == 0)) || { cat "$WORK/probe.err"; echo "FAIL: probe run exited $rc"; exit 1; }

port=17801
for transport in tcp udp; do
  for workload in none fft gemm gemm_fp16; do
    extra=()
    [[ $transport == udp ]] && extra=(--target-mbps 2000)
    out=$WORK/$transport-$workload
    "$BIN" loopback --transport "$transport" --workload "$workload" --seconds 1 --warmup-seconds 0.2 \
      --base-port $port --workload-batch-bytes 1048576 --gemm-n 512 --summary-file "$out.summary" \
      --csv-file "$out.csv" "${extra[@]}" >"$out.out" 2>"$out.err" || { cat "$out.err"; echo "FAIL: $transport $workload exited non-zero"; exit 1; }
    port=$((port + 10))
    rec=$(grep '^{"event":"result"' "$out.out" | tail -n 1)
    state=$(json "$rec" 'r["state"]')
    [[ $state == Valid ]] || { echo "$rec"; echo "FAIL: $transport $workload: state $state"; exit 1; }
    summary=$(cat "$out.summary")
    (( $(wc -c <"$out.summary") <= 4096 )) || { echo "FAIL: summary over 4096 bytes"; exit 1; }
    if [[ $workload == none ]]; then
      [[ $(json "$rec" 'r["gpu"] is None and r["gpu_sm_mpct"] == -1') == True ]] || { echo "$rec"; echo "FAIL: none ran the GPU"; exit 1; }
      continue
    fi
    check=$(json "$rec" 'r["gpu"]["windows"] > 0 and r["gpu"]["workload"] == "'"$workload"'" and r["gpu"]["bytes"] > 0')
    [[ $check == True ]] || { echo "$rec"; echo "FAIL: $transport $workload: no GPU windows"; exit 1; }
    nvml=$(json "$rec" 'r["gpu"]["nvml"]')
    if [[ $nvml == ok ]]; then
      [[ $(json "$summary" 'r["gpu_sm_mpct"] >= 0 and r["gpu_mem_mpct"] >= 0') == True ]] || { echo "$summary"; echo "FAIL: NVML ok but no utilisation"; exit 1; }
    fi
    # DAQIRI's post_process columns, read by name (the CSV has grown columns of its own after
    # them): the workload, the GEMM dimension given (--gemm-n 512, written whatever the workload)
    # and "default" for the sync interval, which this run does not set
    csv_check=$(python3 - "$out.csv" "$workload" <<'PY'
import csv, sys
row = list(csv.DictReader(open(sys.argv[1])))[-1]
want = {"post_process": sys.argv[2], "post_process_gemm_dim": "512", "post_process_sync": "default"}
print("; ".join(f"{k}={row.get(k)!r} (want {v!r})" for k, v in want.items() if row.get(k) != v) or "ok")
PY
)
    [[ $csv_check == ok ]] || { tail -n 2 "$out.csv"; echo "FAIL: CSV post_process columns: $csv_check"; exit 1; }
    echo "ok $transport $workload: $(json "$rec" '"%.2f Gb/s, %d windows, %d stalls, SM %s%%, nvml: %s" % (r["rx_gbps"], r["gpu"]["windows"], r["gpu"]["stalls"], r["gpu_sm_mpct"]/1000, r["gpu"]["nvml"])')"
  done
done

# raw Ethernet over an in-memory net_memif pair: frames read in place from host_pinned mbufs and
# staged from host mbufs, each workload; 0 lost (memif cannot lose a frame), windows on the GPU
rc=0
"$BIN" loopback --transport raw --tx-port net_ring0 --rx-port net_ring0 --no-huge --seconds 0.1 \
  --warmup-seconds 0 >"$WORK/rawprobe.out" 2>"$WORK/rawprobe.err" || rc=$?
if ((rc == 2)) && grep -q "built without it\|needs DPDK" "$WORK/rawprobe.err"; then
  echo "skip raw: $(tail -n 1 "$WORK/rawprobe.err")"
  echo "PASS: every workload over tcp and udp (raw skipped: no DPDK in this build)"
  exit 0
fi
for memory in host_pinned host; do
  for workload in none fft gemm gemm_fp16; do
    out=$WORK/raw-$memory-$workload
    "$BIN" loopback --transport raw --no-huge --memory "$memory" --workload "$workload" --seconds 1 \
      --warmup-seconds 0.2 --tx-port "net_memif0,role=client,socket=$WORK/memif.sock" \
      --rx-port "net_memif1,role=server,socket=$WORK/memif.sock" --payload-bytes 8000 --batch 256 \
      --target-mbps 2000 --workload-batch-bytes 1048576 --gemm-n 512 >"$out.out" 2>"$out.err" ||
      { cat "$out.err"; echo "FAIL: raw $memory $workload exited non-zero"; exit 1; }
    rec=$(grep '^{"event":"result"' "$out.out" | tail -n 1)
    [[ $(json "$rec" 'r["state"] == "Valid" and r["lost"] == 0') == True ]] || { echo "$rec"; echo "FAIL: raw $memory $workload"; exit 1; }
    if [[ $workload == none ]]; then
      [[ $(json "$rec" 'r["gpu"] is None') == True ]] || { echo "$rec"; echo "FAIL: raw none ran the GPU"; exit 1; }
      continue
    fi
    [[ $(json "$rec" 'r["gpu"]["windows"] > 0 and r["gpu"]["bytes"] > 0') == True ]] ||
      { echo "$rec"; echo "FAIL: raw $memory $workload: no GPU windows"; exit 1; }
    if [[ $memory == host_pinned ]]; then
      grep -q "registered with CUDA" "$out.err" || { cat "$out.err"; echo "FAIL: raw host_pinned not registered with CUDA"; exit 1; }
    fi
    echo "ok raw $memory $workload: $(json "$rec" '"%.2f Gb/s, %d windows, %d stalls, %d late, SM %s%%" % (r["rx_gbps"], r["gpu"]["windows"], r["gpu"]["stalls"], r["gpu"]["late"], r["gpu_sm_mpct"]/1000)')"
  done
done
echo "PASS: every workload over tcp, udp and raw (host_pinned in place, host staged)"
