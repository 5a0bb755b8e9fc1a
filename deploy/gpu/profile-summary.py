#!/usr/bin/env python3
"""Sums an async-profiler collapsed-stack file (deploy/gpu/run-suite-profile.sh) by what the time went to: each
family's input fill and output check (the first Busload frame of the stack that is a family's fill or check), the
device thread's wait for timed batches, host-device copies, host staging, the JIT compilers and GC.

Usage: profile-summary.py FILE.collapsed[.gz] [SECONDS_PER_SAMPLE]   (0.01 for event=cpu,interval=10ms)
"""
import collections, gzip, re, sys

FAMILY = re.compile(r"io/busload/kernels/(?:families/|matmul/)?(\w+?)(?:\$Case)?\.(fill|check|checkAfter|lambda\$check(?:After)?\$\d+)")


def category(frames):
    for f in frames:
        m = FAMILY.search(f)
        if m and "RandomFill" not in f and "RandomFloats" not in f:
            return ("fill " if m.group(2) == "fill" else "check ") + m.group(1)
        if "MatmulReference" in f:
            return "check Matmul"
        if "CudaWorkload.time" in f:
            return "GPU: timed batches (waiting in cuEventSynchronize)"
        if "CudaWorkload.copyUp" in f or "CudaWorkload.copyDown" in f:
            return "host-device copies"
        if "HostStaging" in f:
            return "host staging (allocate, pin)"
    thread = frames[0]
    if "Compiler" in thread:
        return "JIT compilers"
    if "GC" in thread or "G1" in thread:
        return "GC"
    return "other"


def main():
    path = sys.argv[1]
    per_sample = float(sys.argv[2]) if len(sys.argv) > 2 else 0.01
    opener = gzip.open if path.endswith(".gz") else open
    total = 0
    by = collections.Counter()
    with opener(path, "rt") as f:
        for line in f:
            stack, _, n = line.rstrip().rpartition(" ")
            n = int(n)
            total += n
            by[category(stack.split(";"))] += n
    groups = collections.Counter()
    for k, n in by.items():
        head = k.split(" ")[0]
        groups[head if head in ("fill", "check") else k] += n
    print(f"{total} samples, {total * per_sample:.1f} s")
    for title, counter in (("by kind", groups), ("by family", by)):
        print(f"\n| {title} | seconds | share |\n| --- | ---: | ---: |")
        for k, n in counter.most_common():
            print(f"| {k} | {n * per_sample:.1f} | {100 * n / total:.1f}% |")


if __name__ == "__main__":
    main()
