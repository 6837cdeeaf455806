#!/usr/bin/env python3
"""nvbandwidth 0.8 (-j) and spiral-gpucopy-bench (--json) side by side, per figure, from the raw
folder of hack/bench/nvbandwidth-side-run.sh: nvbandwidth-N.json and spiral-N.jsonl per repeat.

Each cell is the median over the repeats; "run CV" is the coefficient of variation of a tool's
figure across the repeats (sample stddev / mean). Ours also carries its within-run CV (3 repeats
inside each run, --local-repeats 3), the median of it over the runs.
Usage: nvbandwidth_compare.py RAW_DIR REPEATS
"""
import json
import statistics
import sys

# nvbandwidth testcase -> (our figure, unit); our figure is (kind, key)
PAIRS = [
    ("host_to_device_memcpy_ce", ("row", "h2d"), "GB/s"),
    ("device_to_host_memcpy_ce", ("row", "d2h"), "GB/s"),
    ("device_local_copy", ("row", "d2d"), "GB/s"),
    ("host_device_latency_sm", ("local", "latency_host"), "ns"),
    ("device_to_device_latency_sm", ("local", "latency_peer"), "ns"),
    (None, ("local", "sm_read"), "GB/s"),
    (None, ("local", "sm_write"), "GB/s"),
    (None, ("local", "latency_device"), "ns"),
]


def cv(values):
    if len(values) < 2 or statistics.mean(values) == 0:
        return None
    return 100 * statistics.stdev(values) / statistics.mean(values)


def nvbandwidth(path):
    """{testcase: {(row, col): value}} of the Passed testcases; others {testcase: status}."""
    out, status = {}, {}
    try:
        with open(path) as f:
            run = json.load(f)["nvbandwidth"]
    except (OSError, ValueError, KeyError):
        return out, status
    for t in run.get("testcases", []):
        status[t["name"]] = t.get("status", "?")
        if t.get("status") != "Passed":
            continue
        cells = {}
        for r, row in enumerate(t.get("bandwidth_matrix", [])):
            for c, v in enumerate(row):
                if v != "N/A":
                    cells[(r, c)] = float(v)
        out[t["name"]] = cells
    return out, status


def spiral(path):
    """{(kind, key, device, peer): (value, within-run cv)}"""
    out = {}
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return out
    for line in lines:
        j = json.loads(line)
        for row in j.get("rows", []):
            if row["memory"] in ("pinned", "device"):
                out[("row", row["direction"], row["device"], -1)] = (row["gbps"], None)
        for d, test, peer, milli, cv_milli, _ in j.get("local", []):
            out[("local", test, d, peer)] = (milli / 1e3, cv_milli / 1e3)
    return out


def fmt(v, nd=2):
    return "-" if v is None else f"{v:.{nd}f}"


def main():
    raw, repeats = sys.argv[1], int(sys.argv[2])
    nvb = [nvbandwidth(f"{raw}/nvbandwidth-{r}.json") for r in range(1, repeats + 1)]
    ours = [spiral(f"{raw}/spiral-{r}.jsonl") for r in range(1, repeats + 1)]
    print(f"\n## Side by side, medians of {repeats} alternating runs\n")
    print("| nvbandwidth testcase | ours | GPU | unit | nvbandwidth | its run CV % | ours | our run CV % "
          "| our in-run CV % | ours / nvbandwidth |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|")
    keys = sorted({(k[2], k[3]) for o in ours for k in o} | {(0, -1)})
    for testcase, (kind, key), unit in PAIRS:
        for device, peer in keys:
            ours_v = [o[(kind, key, device, peer)] for o in ours if (kind, key, device, peer) in o]
            # nvbandwidth's matrices: row CPU (0) or source GPU, column GPU
            cell = (device, peer) if key == "latency_peer" else (0, device)
            nvb_v = [n[0][testcase][cell] for n in nvb if testcase and testcase in n[0] and cell in n[0][testcase]]
            if not ours_v and not nvb_v:
                continue
            o = statistics.median(v for v, _ in ours_v) if ours_v else None
            n = statistics.median(nvb_v) if nvb_v else None
            inrun = statistics.median(c for _, c in ours_v) if ours_v and ours_v[0][1] is not None else None
            where = f"{device}" if peer < 0 else f"{device}->{peer}"
            print(f"| {testcase or '(none in 0.8)'} | {key} | {where} | {unit} | {fmt(n)} | {fmt(cv(nvb_v))} | {fmt(o)} "
                  f"| {fmt(cv([v for v, _ in ours_v]))} | {fmt(inrun)} | {fmt(o / n if o and n else None, 3)} |")
    statuses = {name: s for n in nvb for name, s in n[1].items() if s != "Passed"}
    for name, s in sorted(statuses.items()):
        print(f"\nnvbandwidth {name}: {s} (not measured on this machine)")


if __name__ == "__main__":
    main()
