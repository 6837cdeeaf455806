#!/usr/bin/env python3
"""Summarises the Go collector's GODEBUG=gctrace=1 lines in a manager log (fleet-scale.sh with
MANAGER_GODEBUG=gctrace=1 writes them to manager-1.log and manager-2.log): how many
collections, how often, the CPU they took (the sum of gctrace's five "ms cpu" parts, mark
assists among them), and the live heap after each and the goal each aimed at.

    python3 hack/bench/gctrace_summary.py LOGDIR/manager-1.log LOGDIR/manager-2.log
"""
import re
import sys

LINE = re.compile(r"gc (\d+) @([\d.]+)s \d+%: [\d.+]+ ms clock, "
                  r"([\d.]+)\+([\d.]+)/([\d.]+)/([\d.]+)\+([\d.]+) ms cpu, "
                  r"\d+->\d+->(\d+) MB, (\d+) MB goal")


def summarise(path):
    count, cpu_ms, assist_ms, seconds, live, goal = 0, 0.0, 0.0, 0.0, [], []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.search(line)
            if not m:
                continue
            parts = [float(m.group(i)) for i in range(3, 8)]
            count += 1
            cpu_ms += sum(parts)
            assist_ms += parts[1]
            seconds = float(m.group(2))
            live.append(int(m.group(8)))
            goal.append(int(m.group(9)))
    if count == 0:
        return f"{path}: no gctrace lines (was MANAGER_GODEBUG=gctrace=1 set?)"
    live.sort()
    goal.sort()
    return (f"{path}: {count} collections in {seconds:.0f} s ({count / max(seconds, 1) * 60:.1f} a minute), "
            f"GC CPU {cpu_ms / 1000:.1f} s (mark assists {assist_ms / 1000:.1f} s), {cpu_ms / count:.0f} ms a collection; "
            f"live heap after a collection median {live[count // 2]} MB, largest {live[-1]} MB; "
            f"goal median {goal[count // 2]} MB")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        print(summarise(p))
