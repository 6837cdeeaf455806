#!/usr/bin/env python3
"""Side-by-side tables for hack/bench/nccl-options-run.sh (benchmark, not a test).

Reads RAW/nccl-tests-<case>-<rep>.txt and RAW/spiral-<case>-<rep>.txt (nccl-tests' table from
both), takes the median time per size and placement over the repeats and prints, per case, a
Markdown table: the two medians, the ratio nccl-tests time / spiral time and both checks' wrong
elements (the largest over the repeats; N/A where neither checks).
Usage: nccl_options_compare.py RAW REPEATS "name:op[:flags[:environment]] ..." (commas for spaces)
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nccl_compare import size_name, table_rows  # noqa: E402


def case_table(raw, repeats, name, op, flags):
    runs = {tool: [table_rows(f"{raw}/{tool}-{name}-{r}.txt") for r in range(1, repeats + 1)]
            for tool in ("nccl-tests", "spiral")}
    keys = sorted({k for tool in runs.values() for run in tool for k in run}, key=lambda k: (k[0], k[1] != "out"))
    print(f"\n### {name}: {op} {flags}\n")
    if not keys:
        print("no rows from either tool (see raw.tar.gz)")
        return
    print("| size | placement | nccl-tests us | spiral us | ratio | wrong (nccl-tests / spiral) |")
    print("|---:|:---|---:|---:|---:|:---|")
    for key in keys:
        med, wrong = {}, {}
        for tool, tool_runs in runs.items():
            times = [run[key][0] for run in tool_runs if key in run]
            med[tool] = statistics.median(times) if times else None
            w = [run[key][1] for run in tool_runs if key in run and run[key][1] is not None]
            wrong[tool] = "N/A" if not w else str(int(max(w)))
        ratio = f"{med['nccl-tests'] / med['spiral']:.2f}" if med["nccl-tests"] and med["spiral"] else "-"
        cell = lambda v: f"{v:.2f}" if v is not None else "-"  # noqa: E731
        print(f"| {size_name(key[0])} | {key[1]} | {cell(med['nccl-tests'])} | {cell(med['spiral'])} | {ratio} "
              f"| {wrong['nccl-tests']} / {wrong['spiral']} |")


def main():
    raw, repeats, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
    print(f"\n## nccl-tests 2.19.6 vs spiral-nccl-bench, one rank, median of {repeats} alternating runs")
    for c in cases:
        name, op, flags, envs = (c.split(":", 3) + ["", ""])[:4]
        case_table(raw, repeats, name, op, " ".join(w for w in (envs.replace(",", " "), flags.replace(",", " ")) if w))


if __name__ == "__main__":
    main()
