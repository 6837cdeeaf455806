#!/usr/bin/env python3
"""Markdown tables for hack/bench/gpucopy-peer-run.sh (benchmark, not a test).

Reads, per repeat R of RAW:
  pair-R.jsonl    spiral-gpucopy-bench --parts peer --devices 0,1 (its {"peer": ...} line: the
                  matrices of peer_summary.hpp, MB/s, one per method, mode and size)
  loop-R.txt      spiral-memcpy-loop peer: "memcpy-loop peer 0->1 p2p 8388608 B: 1.00 us, 2.00 GB/s"
  nccl-R.txt      nccl-tests sendrecv_perf's table (13 columns; out-of-place algbw = GB/s each way)
  matrix-R.jsonl  spiral-gpucopy-bench --parts peer,host on every GPU
and prints the medians over the repeats: the pair's GB/s per size and direction, CE unidirectional
against the cudaMemcpyPeer loop (ratio >= 0.98 is the target from 8 MiB), SM and the
bidirectional figures beside NCCL sendrecv; the matrices; the host aggregate.
Usage: gpucopy_peer_compare.py RAW REPEATS
"""
import json
import os
import re
import statistics
import sys

RAW, REPEATS = sys.argv[1], int(sys.argv[2])
MIB = 1 << 20
TARGET = 0.98


def size_text(b):
    return f"{b >> 30} GiB" if b >= 1 << 30 else f"{b >> 20} MiB"


def median(values):
    return statistics.median(values) if values else None


def fmt(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def peer_part(path):
    """The {"peer": ...} object of one bench run, or None."""
    if not os.path.exists(path):
        return None
    for line in open(path, errors="replace"):
        line = line.strip()
        if line.startswith("{"):
            obj = json.loads(line)
            if "peer" in obj:
                return obj["peer"]
    return None


def matrix_cells(part):
    """{(method, mode, bytes, src device, dst device): GB/s} of one run's matrices."""
    out = {}
    devices = part.get("devices", [])
    for method, mode, nbytes, rows in part.get("peer", []):
        for s, row in enumerate(rows):
            for d, mbps in enumerate(row):
                if mbps >= 0:
                    out[(method, mode, nbytes, devices[s], devices[d])] = mbps / 1000
    return out


def loop_cells(path):
    """{(src, dst, bytes): GB/s} and the peer-access word of the cudaMemcpyPeer loop."""
    out, how = {}, "?"
    if not os.path.exists(path):
        return out, how
    for line in open(path, errors="replace"):
        m = re.match(r"memcpy-loop peer (\d+)->(\d+) (\S+) (\d+) B: \S+ us, (\S+) GB/s", line)
        if m:
            out[(int(m[1]), int(m[2]), int(m[4]))] = float(m[5])
            how = m[3]
    return out, how


def nccl_cells(path):
    """{bytes: out-of-place algbw GB/s} of sendrecv_perf."""
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path, errors="replace"):
        tok = line.split()
        if len(tok) == 13 and tok[0].isdigit() and tok[6] != "N/A":
            out[int(tok[0])] = float(tok[6])
    return out


def collect(kind, reader):
    runs = [reader(os.path.join(RAW, f"{kind}-{r}.{'jsonl' if kind in ('pair', 'matrix') else 'txt'}"))
            for r in range(1, REPEATS + 1)]
    return [r for r in runs if r]


def medians(runs):
    keys = {k for r in runs for k in r}
    return {k: median([r[k] for r in runs if k in r]) for k in keys}


def pair_section():
    parts = collect("pair", peer_part)
    pair = medians([matrix_cells(p) for p in parts])
    loops = [loop_cells(os.path.join(RAW, f"loop-{r}.txt")) for r in range(1, REPEATS + 1)]
    loop = medians([c for c, _ in loops if c])
    how = next((h for c, h in loops if c), "?")
    nccl = medians(collect("nccl", nccl_cells))
    links = parts[0].get("links", []) if parts else []
    path = ", ".join(f"{p[2]}, peer access {'yes' if p[3] else 'no'}" for p in links) or "unknown"
    print(f"\n## GPU 0 <-> GPU 1, median of {len(parts)} (path {path}; the loop ran {how})\n")
    print("GB/s of the bytes that reached the destination. uni: one direction alone; bi: this direction "
          "while the other ran; NCCL sendrecv: algbw, both directions at once (compare with bi).\n")
    print("| size | direction | CE uni | cudaMemcpyPeer loop | ratio | SM uni | CE bi | SM bi | NCCL sendrecv |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    worst = {}
    sizes = sorted({k[2] for k in pair} | {k[2] for k in loop})
    for nbytes in sizes:
        for s, d in ((0, 1), (1, 0)):
            ce = pair.get(("ce", "uni", nbytes, s, d))
            ref = loop.get((s, d, nbytes))
            ratio = ce / ref if ce and ref else None
            if ratio is not None and nbytes >= 8 * MIB:
                worst[(s, d)] = min(worst.get((s, d), ratio), ratio)
            print(f"| {size_text(nbytes)} | {s}->{d} | {fmt(ce)} | {fmt(ref)} | {fmt(ratio, 3)} | "
                  f"{fmt(pair.get(('sm', 'uni', nbytes, s, d)))} | {fmt(pair.get(('ce', 'bi', nbytes, s, d)))} | "
                  f"{fmt(pair.get(('sm', 'bi', nbytes, s, d)))} | {fmt(nccl.get(nbytes))} |")
    print("\n| direction | worst CE / loop ratio from 8 MiB |\n|---|---:|")
    for (s, d), r in sorted(worst.items()):
        print(f"| {s}->{d} | {r:.3f} ({'ok' if r >= TARGET else f'BELOW {TARGET}'}) |")


def matrix_section():
    parts = collect("matrix", peer_part)
    if not parts:
        print("\n## Matrices: no run produced any")
        return
    cells = medians([matrix_cells(p) for p in parts])
    devices = parts[0].get("devices", [])
    print(f"\n## Every pair of the {len(devices)} GPUs, median of {len(parts)}\n")
    for a, b, path, p2p in parts[0].get("links", []):
        print(f"- GPU {a} <-> GPU {b}: {path}, peer access {'yes' if p2p else 'no'}")
    for method, mode, nbytes, _ in parts[0].get("peer", []):
        print(f"\n{method} {mode}, {size_text(nbytes)}, GB/s (rows source, columns destination)\n")
        print("| src \\ dst | " + " | ".join(str(d) for d in devices) + " |")
        print("|---:|" + "---:|" * len(devices))
        for s in devices:
            row = [fmt(cells.get((method, mode, nbytes, s, d))) if s != d else "" for d in devices]
            print(f"| {s} | " + " | ".join(row) + " |")
    hosts = [{h[0]: h for h in p.get("host", [])} for p in parts]
    for direction in ("h2d", "d2h"):
        runs = [h[direction] for h in hosts if direction in h]
        if not runs:
            continue
        print(f"\nAll GPUs {direction} at once, {size_text(runs[0][1])} each, pinned host memory, GB/s\n")
        print("| GPU | alone | all at once | share of alone |\n|---:|---:|---:|---:|")
        for i, d in enumerate(devices):
            alone = median([r[2][i] / 1000 for r in runs])
            together = median([r[3][i] / 1000 for r in runs])
            print(f"| {d} | {fmt(alone)} | {fmt(together)} | {fmt(together / alone if alone else None, 3)} |")
        total = median([sum(r[2]) / 1000 for r in runs])
        agg = median([r[4] / 1000 for r in runs])
        print(f"| sum / aggregate | {fmt(total)} | {fmt(agg)} | {fmt(agg / total if total else None, 3)} |")


pair_section()
matrix_section()
