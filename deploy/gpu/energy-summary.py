"""Summarises one run-energy.sh run (its folder as the argument): the nvidia-smi cross-check of each case's average
watts over the same window, stride-32 against stride-1, every kernel family ranked by joules per useful GB, and the
bandwidth with the energy window against the run without it. Markdown on stdout.

The window of a result ends at its measuredAt (taken just after the window closes) and lasts windowSeconds. Against
it: the mean of nvidia-smi's power.draw.instant samples inside the window, and power.draw (NVML's one-second average)
at the sample nearest the window's end, which averages the last second, the window itself."""
import csv
import datetime as dt
import json
import statistics
import sys
from collections import defaultdict

TOLERANCE = 0.05
folder = sys.argv[1]
rows = json.load(open(folder + "/coalescing.json"))


def instant(text):
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


smi = []
with open(folder + "/smi-power.csv") as f:
    for rec in csv.reader(f):
        if not rec or rec[0].startswith("timestamp"):
            continue
        try:
            t = dt.datetime.strptime(rec[0].strip(), "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=dt.timezone.utc)
            smi.append((t.timestamp(), float(rec[1]), float(rec[2]) if len(rec) > 2 else None))
        except ValueError:
            continue


def label(r):
    p = {k: v for k, v in r["params"].items() if k != "size"}
    return r["kernel"] + ("" if not p else " " + ",".join("%s=%s" % kv for kv in sorted(p.items())))


def jpgb(r):
    e = r["energy"]
    return e["joules"] / (e["launches"] * r["bytes"] / 1e9)


read = [r for r in rows if r.get("energy")]
print("# Energy, %s\n" % folder.rstrip("/").split("/")[-1])
print("%d results, %d with energy; window %.2f-%.2f s (median %.2f), counter period median %.0f ms\n" % (
    len(rows), len(read), min(r["energy"]["windowSeconds"] for r in read),
    max(r["energy"]["windowSeconds"] for r in read), statistics.median(r["energy"]["windowSeconds"] for r in read),
    1e3 * statistics.median(r["energy"]["windowSeconds"] / r["energy"]["counterSteps"] for r in read)))

print("## nvidia-smi cross-check (tolerance %.0f%%)\n" % (100 * TOLERANCE))
print("| case | Busload W | smi instant mean W (n) | diff | smi power.draw at end W | diff |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
d_inst, d_avg = [], []
for r in read:
    e = r["energy"]
    end = instant(r["measuredAt"])
    start = end - e["windowSeconds"]
    inside = [s for s in smi if start <= s[0] <= end and s[2] is not None]
    near = min(smi, key=lambda s: abs(s[0] - end)) if smi else None
    wi = statistics.mean(s[2] for s in inside) if inside else None
    di = wi / e["averageWatts"] - 1 if wi else None
    da = near[1] / e["averageWatts"] - 1 if near and abs(near[0] - end) < 0.15 else None
    if di is not None:
        d_inst.append(di)
    if da is not None:
        d_avg.append(da)
    print("| %s | %.1f | %s | %s | %s | %s |" % (
        label(r), e["averageWatts"], "%.1f (%d)" % (wi, len(inside)) if wi else "-",
        "%+.1f%%" % (100 * di) if di is not None else "-", "%.1f" % near[1] if da is not None else "-",
        "%+.1f%%" % (100 * da) if da is not None else "-"))


def verdict(ds, what):
    if not ds:
        return "%s: no matching samples" % what
    within = sum(abs(d) <= TOLERANCE for d in ds)
    return "%s: %d of %d windows within %.0f%%; median %+.1f%%, mean |diff| %.1f%%, worst %+.1f%%" % (
        what, within, len(ds), 100 * TOLERANCE, 100 * statistics.median(ds),
        100 * statistics.mean(abs(d) for d in ds), 100 * max(ds, key=abs))


print()
print("- " + verdict(d_inst, "power.draw.instant, mean over the window"))
print("- " + verdict(d_avg, "power.draw (one-second average) at the window's end"))

print("\n## stride-copy-fp32: joules per useful GB\n")
print("| stride | J/GB | W | GB/s | GB/s per W |")
print("| ---: | ---: | ---: | ---: | ---: |")
strides = {}
for r in read:
    if r["kernel"] == "stride-copy-fp32":
        s = r["params"]["stride"]
        strides[s] = jpgb(r)
        print("| %s | %.3f | %.1f | %.1f | %.2f |" % (s, jpgb(r), r["energy"]["averageWatts"], r["bandwidth"] / 1e9,
                                                     r["bandwidth"] / 1e9 / r["energy"]["averageWatts"]))
if 1 in strides and 32 in strides:
    ratio = strides[32] / strides[1]
    print("\nstride-32 / stride-1: %.2fx the joules per useful GB (%s 4x)" % (ratio, ">=" if ratio >= 4 else "UNDER"))

print("\n## Kernel families ranked by joules per useful GB (best case of each family; all its cases beside)\n")
family = defaultdict(list)
for r in read:
    family[r["kernel"]].append(r)
print("| rank | kernel | best J/GB (case) | worst J/GB | cases | W (best case) | GB/s per W (best case) |")
print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
ranked = sorted(family.items(), key=lambda kv: min(jpgb(r) for r in kv[1]))
for i, (k, rs) in enumerate(ranked, 1):
    best = min(rs, key=jpgb)
    worst = max(rs, key=jpgb)
    print("| %d | %s | %.3f (%s) | %.3f | %d | %.1f | %.2f |" % (
        i, k, jpgb(best), label(best).replace(k, "").strip() or "-", jpgb(worst), len(rs),
        best["energy"]["averageWatts"], best["bandwidth"] / 1e9 / best["energy"]["averageWatts"]))

print("\n## Every case by joules per useful GB\n")
print("| case | J/GB | J | window s | launches | W | idle W | GB/s |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for r in sorted(read, key=jpgb):
    e = r["energy"]
    print("| %s | %.3f | %.2f | %.3f | %d | %.1f | %s | %.1f |" % (
        label(r), jpgb(r), e["joules"], e["windowSeconds"], e["launches"], e["averageWatts"],
        "%.1f" % e["idleWatts"] if e.get("idleWatts") is not None else "not read", r["bandwidth"] / 1e9))

try:
    base = {label(r): r for r in json.load(open(folder + "/baseline.json"))}
except FileNotFoundError:
    base = {}
if base:
    diffs = [rows_r["bandwidth"] / base[label(rows_r)]["bandwidth"] - 1 for rows_r in rows
             if rows_r.get("bandwidth") and base.get(label(rows_r), {}).get("bandwidth")]
    print("\n## Bandwidth with the energy window against the run without it (--energy-window 0)\n")
    print("%d cases: median %+.2f%%, mean |diff| %.2f%%, worst %+.2f%%; within 1%%: %d" % (
        len(diffs), 100 * statistics.median(diffs), 100 * statistics.mean(abs(d) for d in diffs),
        100 * max(diffs, key=abs), sum(abs(d) <= 0.01 for d in diffs)))
