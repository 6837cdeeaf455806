"""N GPUs, four ways (hack/bench/nccl-ngpu-run.sh; nccl_compare.py --n-gpu calls main()).

Reads, for every operation and repeat r:
  RAW/a-<op>-<r>.out        spiral, one pod (--gpus N): the record line {"event":"result",...}
  RAW/b-<op>-<r>-rank0.out  spiral, two pods of N/2 GPUs: rank 0's record (it reports the cell)
  RAW/c-<op>-<r>.txt        nccl-tests <op>_perf -t N -g 1
  RAW/d-<op>-<r>.txt        nccl-tests <op>_perf -g N
and prints Markdown to stdout: per operation and size the median busbw of each way out of place,
the ratio of each to (c), the in-place busbw of (a) and (c), the check outcomes, spiral's p50 and
p99 per iteration and its slowest rank, and the transport NCCL chose (P2P/NVLink, P2P/PCIe, SHM).
The digest (one line per operation) goes to stdout's end and to stderr.
"""
import json
import os
import statistics

from nccl_compare import nccl_tests_table

OPS = ["sendrecv", "all_gather", "all_reduce", "broadcast", "reduce", "reduce_scatter", "alltoall"]
WAYS = ["a", "b", "c", "d"]
MIB = 1 << 20


def nccl_tests_rows(path):
    """{(size, in_place): {"busbw": GB/s, "wrong": n or None}} from nccl-tests' table."""
    return {(size, int(in_place)): {"busbw": r["busbw"], "wrong": None if r["wrong"] is None else int(r["wrong"])}
            for (size, in_place), r in nccl_tests_table(path).items()}


def spiral_rows(path):
    """The same from a spiral record, plus p50/p99 (us), the slowest rank and the peers."""
    rows, peers, state = {}, [], None
    if not os.path.exists(path):
        return rows, peers, state
    for line in open(path, errors="replace"):
        if not line.startswith('{"event":"result"'):
            continue
        rec = json.loads(line)
        state = f"{rec.get('state')}{': ' + rec['reason'] if rec.get('reason') else ''}"
        part = rec.get("nccl") or {}
        it = part.get("iter", [])
        for i, r in enumerate(part.get("rows", [])):
            time_us = r[2] / 1e3
            p = it[i] if i < len(it) else None
            off = (lambda pm: time_us * (1000 + pm) / 1000) if p else None
            rows[(r[0], r[1])] = {"time": time_us, "busbw": r[4] / 1e3, "wrong": None if r[5] < 0 else r[5],
                                  "p50": off(p[0]) if p and p[0] > -1000 else None,
                                  "p99": off(p[1]) if p and p[1] > -1000 else None,
                                  "slowest": (p[2], off(p[3])) if p else None}
        peers = part.get("peers", [])
    return rows, peers, state


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def wrong_text(runs, key):
    """The check over the repeats: the largest count, N/A when never checked, - when not run."""
    seen = [r[key]["wrong"] for r in runs if key in r]
    if not seen:
        return "-"
    counted = [w for w in seen if w is not None]
    return "N/A" if not counted else str(max(counted))


def main(raw, repeats, iters, gpus, size_name):
    digest = []
    half = gpus // 2
    print(f"\n## NCCL on {gpus} GPUs: busbw (GB/s), median of {repeats} alternating runs, {iters} iterations\n")
    print(f"(a) spiral, one pod `--gpus {gpus}`; (b) spiral, two pods (`--gpus {half} --first-rank 0` / "
          f"`--gpus {gpus - half} --first-rank {half}`); (c) nccl-tests `-t {gpus} -g 1`; (d) nccl-tests "
          f"`-g {gpus}`. Ratios are busbw / busbw of (c). "
          "#wrong: the largest over the repeats, N/A where not checked (nccl-tests and spiral "
          "alike for in-place sendrecv and alltoall: NCCL defines no in-place form). p50/p99: "
          "spiral's per-iteration times (CUDA events), the larger rank's; slowest: the rank with "
          "the largest mean time and that time.\n")
    for op in OPS:
        runs = {w: [] for w in WAYS}
        peers, states = {}, {"a": [], "b": []}
        for r in range(1, repeats + 1):
            for w, path in (("a", f"{raw}/a-{op}-{r}.out"), ("b", f"{raw}/b-{op}-{r}-rank0.out")):
                rows, p, state = spiral_rows(path)
                runs[w].append(rows)
                peers[w] = p or peers.get(w, [])
                states[w].append(state or "no record")
            runs["c"].append(nccl_tests_rows(f"{raw}/c-{op}-{r}.txt"))
            runs["d"].append(nccl_tests_rows(f"{raw}/d-{op}-{r}.txt"))
        keys = sorted(set().union(*[set(x) for w in WAYS for x in runs[w]]))
        if not keys:
            print(f"### {op}: no results\n")
            digest.append(f"{op}: NO RESULTS")
            continue
        wires = {w: sorted({f"{p[0]}->{p[1]} {p[2]} ({p[3]})" for p in peers.get(w, [])}) for w in ("a", "b")}
        print(f"### {op}\n")
        print(f"transports: (a) {'; '.join(wires['a']) or '-'}; (b) {'; '.join(wires['b']) or '-'}\n")
        print("| size | a | b | c | d | a/c | b/c | d/c | in: a | in: c | #wrong a/b/c/d out; in "
              "| a p50/p99 us | a slowest | b p50/p99 us | b slowest |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---|")
        worst = {w: None for w in ("a", "b", "d")}
        agree = True
        for size in sorted({k[0] for k in keys}):
            out, inp = (size, 0), (size, 1)
            bw = {w: med([r[out]["busbw"] for r in runs[w] if out in r]) for w in WAYS}
            ratio = {w: bw[w] / bw["c"] if bw[w] is not None and bw["c"] else None for w in ("a", "b", "d")}
            for w in worst:
                if ratio[w] is not None and size >= MIB:
                    worst[w] = ratio[w] if worst[w] is None else min(worst[w], ratio[w])
            in_bw = {w: med([r[inp]["busbw"] for r in runs[w] if inp in r]) for w in ("a", "c")}
            wrongs = {k: [wrong_text(runs[w], k) for w in WAYS] for k in (out, inp)}
            for k in (out, inp):
                outcomes = {("fail" if x not in ("0", "N/A", "-") else x) for x in wrongs[k] if x != "-"}
                agree = agree and "fail" not in outcomes and len(outcomes - {"-"}) <= 1
            cells = []
            for w in ("a", "b"):
                rows = [r[out] for r in runs[w] if out in r]
                p50, p99 = med([x["p50"] for x in rows]), med([x["p99"] for x in rows])
                slow = [x["slowest"] for x in rows if x["slowest"]]
                ranks = [s[0] for s in slow]
                rank = max(set(ranks), key=ranks.count) if ranks else None
                # the slowest rank's time against the ranks' mean, over the repeats it was slowest in
                slow_t = med([s[1] for s in slow if s[0] == rank])
                off = med([s[1] / x["time"] - 1 for x, s in ((x, x["slowest"]) for x in rows)
                           if s and s[0] == rank and x["time"] > 0])
                cells += [f"{fmt(p50)}/{fmt(p99)}",
                          "-" if rank is None else f"{rank}: {fmt(slow_t)} us ({100 * off:+.1f}%)"]
            print(f"| {size_name(size)} | {fmt(bw['a'])} | {fmt(bw['b'])} | {fmt(bw['c'])} | {fmt(bw['d'])} | "
                  f"{fmt(ratio['a'], 3)} | {fmt(ratio['b'], 3)} | {fmt(ratio['d'], 3)} | {fmt(in_bw['a'])} | "
                  f"{fmt(in_bw['c'])} | {'/'.join(wrongs[out])}; {'/'.join(wrongs[inp])} | " + " | ".join(cells) + " |")
        parts = [f"{w}/c worst from 1 MiB {fmt(worst[w], 3)}" for w in ("a", "b", "d")]
        wire = "+".join(sorted({p[2] for w in ("a", "b") for p in peers.get(w, [])})) or "no peers"
        bad = sorted({s for w in ("a", "b") for s in states[w] if not s.startswith("Valid")})
        line = (f"{op}: {'; '.join(parts)}; checks {'agree, 0 wrong' if agree else 'DIFFER or FAILED'}; "
                f"spiral {wire}; " + ("all Valid" if not bad else "NOT VALID: " + " | ".join(bad)[:300]))
        print(f"\n{line}\n")
        digest.append(line)
    print("\n## digest\n")
    for line in digest:
        print(f"- {line}")
    print("\n".join(digest), file=__import__("sys").stderr)
