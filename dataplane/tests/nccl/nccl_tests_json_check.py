#!/usr/bin/env python3
"""ctest nccl.tests_json: nccl-tests' own tools/analyze_perf_json.py (2.19.6, testdata/nccl-tests/)
reads the data plane's nccl-tests JSON as it reads nccl-tests' -J output, and says what we wrote.

  nccl_tests_json_check.py <nccl_tests_json_fixture> <testdata dir>

(a) a recorded GPU sweep (testdata/h200_1gpu_all_reduce_run2.json: one H200, no per-iteration
    times) through the fixture, i.e. the data plane's merge and writer;
(b) a synthetic four-rank sweep on two hosts, made here with known stragglers and spikes, through
    the same path. Exit 77 (skipped) when python3 lacks a module the script imports.
"""
import ast
import importlib
import json
import os
import subprocess
import sys
import tempfile

FIXTURE, DATA = sys.argv[1], sys.argv[2]
SCRIPT = os.path.join(DATA, "nccl-tests", "analyze_perf_json.py")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def skip_without_script_modules():
    tree = ast.parse(open(SCRIPT).read())
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
        for name in names:
            try:
                importlib.import_module(name)
            except ImportError:
                print(f"skipped: python3 lacks module {name!r}, which analyze_perf_json.py imports")
                sys.exit(77)


def convert(doc, out):
    src = out + ".in"
    with open(src, "w") as f:
        json.dump(doc, f)
    r = subprocess.run([FIXTURE, src, out], capture_output=True, text=True)
    check(r.returncode == 0, f"fixture wrote {os.path.basename(out)} {r.stderr.strip()}")
    with open(out) as f:
        return json.load(f)


def analyze(path, *flags):
    r = subprocess.run([sys.executable, SCRIPT, path, *flags], capture_output=True, text=True)
    check(r.returncode == 0, f"analyze_perf_json.py {' '.join(flags)} exits 0 {r.stderr.strip()[-300:]}")
    return r.stdout


# Keys in the order nccl-tests 2.19.6's src/util.cu writes them.
TOP = ["version", "start_time", "args", "env", "nccl_version", "config", "results", "out_of_bounds",
       "average_bus_bandwidth", "errors", "end_time"]
CONFIG = ["nthreads", "ngpus", "minimum_bytes", "maximum_bytes", "step_factor", "warmup_iters", "iterations",
          "aggregated_iterations", "validation", "graph", "blocking_collectives", "per_iter_timing",
          "per_iter_skip", "parallel_init", "devices"]
DEVICE = ["rank", "group", "pid", "hostname", "device", "device_hex", "device_info"]
PLACE = ["time", "alg_bw", "bus_bw", "nwrong"]
PER_ITER = ["skipped_iterations", "min_us", "max_us", "avg_us", "p50_us", "p95_us", "p99_us", "stdev_us",
            "cv_pct", "times_us"]


def check_schema(doc, per_iter, processes):
    check(list(doc) == TOP and doc["version"] == 3, "top-level keys in nccl-tests' order, version 3")
    check(list(doc["config"]) == CONFIG, "config keys")
    check(all(list(d) == DEVICE for d in doc["config"]["devices"]), "device keys")
    for r in doc["results"]:
        keys = ["size", "count", "type", "redop", "root", "out_of_place"] + \
            (["out_of_place_per_iter"] if per_iter else []) + ["in_place"] + \
            (["in_place_per_iter"] if per_iter else []) + ["actual_iterations", "experiment_name"]
        if list(r) != keys or list(r["out_of_place"]) != PLACE:
            check(False, f"result keys at {r['size']}: {list(r)}")
            return
        if per_iter:
            want = PER_ITER + (["per_process_max_times_us"] if processes > 1 else [])
            if list(r["out_of_place_per_iter"]) != want:
                check(False, f"per-iteration keys at {r['size']}: {list(r['out_of_place_per_iter'])}")
                return
    check(True, "result keys in nccl-tests' order" + (" with per-iteration objects" if per_iter else ""))


def recorded(tmp):
    src = json.load(open(os.path.join(DATA, "h200_1gpu_all_reduce_run2.json")))
    doc = convert(src, os.path.join(tmp, "recorded.json"))
    check_schema(doc, per_iter=False, processes=1)
    rows = src["ranks"][0]["rows"]
    want = sorted({r["bytes"] for r in rows})
    check([r["size"] for r in doc["results"]] == want, f"sizes 8 B .. 1 GiB as recorded ({len(want)})")
    times = {(r["bytes"], r["in_place"]): r["time_us"] for r in rows}
    check(all(abs(r["out_of_place"]["time"] - times[(r["size"], False)]) < 1e-9 and
              abs(r["in_place"]["time"] - times[(r["size"], True)]) < 1e-9 for r in doc["results"]),
          "times as recorded (1 GiB out of place 504.70 us)")
    gib = doc["results"][-1]["out_of_place"]
    check(abs(gib["alg_bw"] - (1 << 30) / 504.70e-6 / 1e9) < 1e-6 and gib["bus_bw"] == 0,
          f"algbw from our formula ({gib['alg_bw']:.2f} GB/s), busbw 0 at one rank as nccl-tests")
    check(doc["config"]["per_iter_timing"] == "false" and doc["nccl_version"] == 22809,
          "no per-iteration timing (that run predates it), NCCL 2.28.9 as 22809")
    out = analyze(doc_path := os.path.join(tmp, "recorded.json"))
    check("Version:    3" in out and "Results:    28" in out and "Iterations: 100" in out,
          "overview: version 3, 28 results, 100 iterations")
    check("Process rows: 0" in out and "N/A (no process rows)" in out, "no process rows: consistency N/A")
    out = analyze(doc_path, "--all")
    check(out.count("No per-process data available.") == 3, "--all: straggler, spikes, nodes say no per-process data")


# Synthetic sweep: 4 ranks (0,1 on node-a; 2,3 on node-b), 1, 2 and 4 MiB, 10 iterations.
BASE = {1 << 20: 100.0, 2 << 20: 200.0, 4 << 20: 400.0}


def synthetic_times(rank, size, in_place):
    times = []
    for i in range(10):
        t = BASE[size] * (1 + 0.01 * ((rank + i) % 3)) + (5 if in_place else 0)
        if i == 0:
            t *= 1.4  # every rank's first iteration: warm-up
        if size == 2 << 20 and rank == 2:
            t *= 1.3  # rank 2 slow at 2 MiB throughout: the straggler
        if size == 4 << 20 and i == 3:
            t *= 3.0  # every rank at 4 MiB, iteration 3: system-wide spike
        if size == 1 << 20 and i == 5 and rank == 1:
            t *= 4.0  # rank 1 alone at 1 MiB, iteration 5
        times.append(t)
    return times


def synthetic(tmp):
    ranks = []
    for rank in range(4):
        rows = []
        for size in BASE:
            for ip in (False, True):
                t = synthetic_times(rank, size, ip)
                rows.append({"bytes": size, "count": size // 4, "in_place": ip, "time_us": sum(t) / len(t),
                             "algbw_gbps": 0.0, "busbw_gbps": 0.0, "wrong": 0, "gpu_time_us": sum(t) / len(t),
                             "iter_ns": [round(x * 1000) for x in t]})
        host = "node-a" if rank < 2 else "node-b"
        ranks.append({"device": {"rank": rank, "pid": 4000 + rank, "host": host, "device": rank % 2,
                                 "pci_bus_id": f"0000:{0x1B + rank:02X}:00.0", "name": "Synthetic GPU"},
                      "rows": rows})
    src = {"op": "all_reduce", "min_bytes": 1 << 20, "max_bytes": 4 << 20, "step_factor": 2, "iterations": 10,
           "warmup_iterations": 1, "check_iterations": 1, "nccl_version": "2.28.9", "ranks": ranks}
    path = os.path.join(tmp, "synthetic.json")
    doc = convert(src, path)
    check_schema(doc, per_iter=True, processes=4)
    r1 = doc["results"][0]["out_of_place_per_iter"]
    want = [max(synthetic_times(k, 1 << 20, False)[i] for k in range(4)) for i in range(10)]
    check(all(abs(a - b) < 0.001 for a, b in zip(r1["times_us"], want)), "times_us: each iteration's max over ranks")
    check(doc["config"]["devices"][2]["device_hex"] == "0000:1d:00", "device_hex as nccl-tests writes it")
    out = analyze(path, "--all")
    check("Process rows: 4" in out and "PASS" in out, "4 process rows; times_us == max over process rows: PASS")
    avg = sum(want) / 10
    check(f"{1 << 20:14d}  {avg:10.1f}" in out, f"stats table: 1 MiB out of place avg {avg:.1f} us")
    mean = [sum(synthetic_times(k, 2 << 20, False)) / 10 for k in range(4)]
    line = f"2 MB:  fastest=process  0 ({mean[0]:.1f}us)  slowest=process  2 ({mean[2]:.1f}us)"
    check(line in out, f"straggler: {line}")
    check("iter  3:  4/4 processes spiked" in out and "[SYSTEM-WIDE]" in out, "spikes: 4 MiB iteration 3 system-wide")
    check("iter  5:  1/4 processes spiked" in out and "[STRAGGLER: process 1]" in out,
          "spikes: 1 MiB iteration 5 on rank 1 alone")
    check("Node 0 (node-a, processes  0- 1)" in out and "Node 1 (node-b, processes  2- 3)" in out,
          "nodes: grouped by the ranks' hostnames")
    check(f"{1 << 20:14d}  {want[0]:10.1f}" in out, "iter0: the warm-up iteration's time")
    out = analyze(path, "--in-place", "--straggler")
    mean = [sum(synthetic_times(k, 2 << 20, True)) / 10 for k in range(4)]
    check("STRAGGLER ANALYSIS (IP)" in out and f"slowest=process  2 ({mean[2]:.1f}us)" in out,
          "--in-place reads in_place_per_iter (rank 2 at 2 MiB, 5 us slower in place)")


skip_without_script_modules()
keep = os.environ.get("NCCL_TESTS_JSON_KEEP")  # a folder to keep the files in, to look at them
with tempfile.TemporaryDirectory() as tmp:
    if keep:
        os.makedirs(keep, exist_ok=True)
        for name in ("recorded.json", "synthetic.json"):  # the writer does not replace a file
            if os.path.exists(os.path.join(keep, name)):
                os.remove(os.path.join(keep, name))
    recorded(keep or tmp)
    synthetic(keep or tmp)
print("PASSED" if not failures else f"FAILED: {len(failures)}")
sys.exit(1 if failures else 0)
