#!/usr/bin/env python3
"""Side-by-side tables for hack/bench/nccl-device-run.sh (benchmark, not a test).

Reads RAW/nccl-tests-<op>-<rep>.txt and RAW/spiral-<op>-<rep>.txt (both print nccl-tests' table:
size count type redop root | time algbw busbw #wrong | time algbw busbw #wrong), takes the
median time per size and placement over the repeats, and prints Markdown: the medians, the ratio
nccl-tests time / spiral time (>= 0.95 is the target from 1 MiB up) and the check outcome of each.
Then RAW/gpucopy-<rep>.json against RAW/memcpy-<rep>.txt: median GB/s per case and size and the
ratio spiral / plain cudaMemcpy loop (>= 0.98 is the target from 8 MiB up).
Full tables go to stdout; a digest goes to stderr.
Usage: nccl_compare.py RAW REPEATS
       nccl_compare.py --n-gpu RAW REPEATS ITERS GPUS (hack/bench/nccl-ngpu-run.sh, nccl_compare_ngpu.py)
"""
import json
import os
import re
import statistics
import sys

OPS = ["sendrecv", "all_gather", "all_reduce", "broadcast", "reduce", "reduce_scatter", "alltoall"]
MIB = 1 << 20
digest = []


def nccl_tests_table(path):
    """{(size, in_place): {"time_us", "busbw", "wrong"}} from one nccl-tests style table (the
    out-of-place columns from 5, the in-place ones from 9); wrong is None where it says N/A."""
    rows = {}
    if not os.path.exists(path):
        return rows
    for line in open(path, errors="replace"):
        tok = line.split()
        if len(tok) != 13 or not tok[0].isdigit():
            continue
        for in_place, base in ((False, 5), (True, 9)):
            if tok[base] == "N/A":
                continue
            wrong = None if tok[base + 3] == "N/A" else float(tok[base + 3])
            rows[(int(tok[0]), in_place)] = {"time_us": float(tok[base]), "busbw": float(tok[base + 2]), "wrong": wrong}
    return rows


def table_rows(path):
    """{(size, placement): (time_us, wrong)} from one nccl-tests style table."""
    return {(size, "in" if in_place else "out"): (r["time_us"], r["wrong"])
            for (size, in_place), r in nccl_tests_table(path).items()}


def size_name(b):
    for unit, div in (("GiB", 1 << 30), ("MiB", MIB), ("KiB", 1 << 10)):
        if b >= div and b % div == 0:
            return f"{b // div} {unit}"
    return f"{b} B"


def one_gpu(RAW, REPEATS):
    """nccl-device-run.sh: nccl-tests vs spiral-nccl-bench at one rank, then the copies."""
    print("\n## NCCL: nccl-tests 2.19.6 vs spiral-nccl-bench, one rank, median of %d alternating runs\n" % REPEATS)
    for op in OPS:
        runs = {tool: [table_rows(f"{RAW}/{tool}-{op}-{r}.txt") for r in range(1, REPEATS + 1)]
                for tool in ("nccl-tests", "spiral")}
        keys = sorted(set().union(*[set(r) for r in runs["nccl-tests"] + runs["spiral"]]))
        if not keys:
            print(f"### {op}: no results\n")
            digest.append(f"{op}: NO RESULTS")
            continue
        print(f"### {op}\n")
        print("| size | out: nccl-tests us | out: spiral us | out: ratio | in: nccl-tests us | in: spiral us | "
              "in: ratio | #wrong nccl-tests / spiral |")
        print("|---:|---:|---:|---:|---:|---:|---:|---|")
        worst, agree, missing = {"out": None, "in": None}, True, 0
        fmt = lambda v, digits=2: "-" if v is None else f"{v:.{digits}f}"
        for size in sorted({k[0] for k in keys}):
            cells, wrongs = [], []
            for placement in ("out", "in"):
                key = (size, placement)
                med, wrong = {}, {}
                for tool in ("nccl-tests", "spiral"):
                    times = [r[key][0] for r in runs[tool] if key in r]
                    ws = [r[key][1] for r in runs[tool] if key in r and r[key][1] is not None]
                    med[tool] = statistics.median(times) if times else None
                    wrong[tool] = int(max(ws)) if ws else None
                if None in med.values():
                    missing += 1
                ratio = med["nccl-tests"] / med["spiral"] if None not in med.values() and med["spiral"] > 0 else None
                if ratio is not None and size >= MIB:
                    worst[placement] = ratio if worst[placement] is None else min(worst[placement], ratio)
                nt, sp = wrong["nccl-tests"] or 0, wrong["spiral"] or 0
                agree = agree and ((nt == 0) == (sp == 0))
                cells += [fmt(med["nccl-tests"]), fmt(med["spiral"]), fmt(ratio, 3)]
                wrongs.append(f"{'N/A' if wrong['nccl-tests'] is None else wrong['nccl-tests']} / "
                              f"{'N/A' if wrong['spiral'] is None else wrong['spiral']}")
            print(f"| {size_name(size)} | " + " | ".join(cells) + f" | out {wrongs[0]}, in {wrongs[1]} |")
        parts = []
        for placement in ("out", "in"):
            w = worst[placement]
            if w is None:
                parts.append(f"{placement}-of-place: no comparable sizes from 1 MiB" if placement == "out"
                             else "in-place: no comparable sizes from 1 MiB")
                continue
            name = "out-of-place" if placement == "out" else "in-place"
            parts.append(f"{name} worst ratio from 1 MiB {w:.3f} ({'ok' if w >= 0.95 else 'BELOW 0.95'})")
        line = f"{op}: " + "; ".join(parts) + f"; checks {'agree' if agree else 'DIFFER'}; {missing} sizes missing in a tool"
        print(f"\n{line}\n")
        digest.append(line)

    # --- copies ----------------------------------------------------------------------------------
    spiral, plain = {}, {}
    for r in range(1, REPEATS + 1):
        path = f"{RAW}/gpucopy-{r}.json"
        if os.path.exists(path):
            for line in open(path):
                gpu = json.loads(line)
                if r == 1:
                    g = gpu["gpu"]
                    print(f"\n## Copies on GPU {g['device']}: {g['name']}, PCI {g['pci_bus_id']}, NUMA node "
                          f"{g['numa_node']}, PCIe gen {g['pcie_generation']} x{g['pcie_width']} "
                          f"(max gen {g['pcie_max_generation']} x{g['pcie_max_width']})\n")
                for row in gpu["rows"]:
                    spiral.setdefault((row["direction"], row["memory"], row["bytes"]), []).append(row["gbps"])
        path = f"{RAW}/memcpy-{r}.txt"
        if os.path.exists(path):
            for line in open(path):
                m = re.match(r"memcpy-loop (\w+) (\w+) (\d+) B: [\d.]+ us, ([\d.]+) GB/s", line)
                if m:
                    memory = "device" if m[1] == "d2d" else m[2]
                    plain.setdefault((m[1], memory, int(m[3])), []).append(float(m[4]))
    if spiral:
        print("spiral-gpucopy-bench vs a plain cudaMemcpy loop (spiral-memcpy-loop), median of %d alternating runs\n"
              % REPEATS)
        print("| direction | memory | size | spiral GB/s | cudaMemcpy loop GB/s | ratio |")
        print("|---|---|---:|---:|---:|---:|")
        worst = {}
        for key in sorted(spiral):
            s = statistics.median(spiral[key])
            p = statistics.median(plain[key]) if key in plain else None
            ratio = s / p if p else None
            if ratio is not None and key[2] >= 8 * MIB:
                case = f"{key[0]} {key[1]}"
                worst[case] = min(worst.get(case, ratio), ratio)
            print(f"| {key[0]} | {key[1]} | {size_name(key[2])} | {s:.2f} | "
                  f"{'-' if p is None else f'{p:.2f}'} | {'-' if ratio is None else f'{ratio:.3f}'} |")
        for case, w in worst.items():
            line = f"copy {case}: worst ratio from 8 MiB {w:.3f} ({'ok' if w >= 0.98 else 'BELOW 0.98'})"
            print(f"\n{line}")
            digest.append(line)
    else:
        digest.append("copies: NO RESULTS")

    print("\n## digest\n")
    for line in digest:
        print(f"- {line}")
    print("\n".join(digest), file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1] == "--n-gpu":
        import nccl_compare_ngpu
        nccl_compare_ngpu.main(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), size_name)
    else:
        one_gpu(sys.argv[1], int(sys.argv[2]))
