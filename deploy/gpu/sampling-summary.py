#!/usr/bin/env python3
"""How each result of a Busload results CSV was measured, from its typed columns: per result the status,
held/unheld/re-timed samples, stop reason, NVML clocks and throttle reasons, samples dropped while throttled, and the
L2 verdict; then the totals. Exit 1 when a GPU result's clocks were not read (NVML must answer on a GPU host), or when
the file has no sampling columns (its agent did not record how results were measured).

usage: sampling-summary.py RESULTS.csv
"""
import csv
import sys


def main(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "stopReason" not in rows[0]:
        print(f"{path}: no sampling columns (written by an agent that records no sampling?)")
        return 1
    totals = {"results": 0, "timed": 0, "held": 0, "unheld": 0, "retimed": 0, "dropped": 0, "tooFew": 0,
              "cacheResident": 0, "cacheStudy": 0, "clocksRead": 0, "clocksNotRead": 0}
    stops = {}
    print("| kernel | params | status | held/unheld/re-timed | stop | clocks | SM MHz | mem MHz | reasons | dropped |"
          " L2 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        totals["results"] += 1
        if not r["stopReason"]:
            print(f"| {r['kernel']} | {r['params']} | {r['status']} | | | | | | | | |")
            continue
        totals["timed"] += 1
        for key, column in (("held", "heldSamples"), ("unheld", "unheldSamples"), ("retimed", "retimedSamples"),
                            ("dropped", "throttledSamplesDropped")):
            totals[key] += int(r[column])
        stops[r["stopReason"]] = stops.get(r["stopReason"], 0) + 1
        totals["tooFew"] += r["tooFewCleanSamples"] == "true"
        totals["cacheResident"] += r["cacheResidency"] == "CACHE_RESIDENT"
        totals["cacheStudy"] += r["cacheResidency"] == "CACHE_STUDY"
        if r["clocksReading"] == "READ":
            totals["clocksRead"] += 1
        elif r["deviceKind"] == "cuda":
            totals["clocksNotRead"] += 1
        sm = r["smClockMinMHz"] + ("" if r["smClockMinMHz"] == r["smClockMaxMHz"] else "-" + r["smClockMaxMHz"])
        mem = r["memClockMinMHz"] + ("" if r["memClockMinMHz"] == r["memClockMaxMHz"] else "-" + r["memClockMaxMHz"])
        clocks = r["clocksReading"] + ("" if r["clocksReading"] == "READ" else f" ({r['clocksNote']})")
        print(f"| {r['kernel']} | {r['params']} | {r['status']} | {r['heldSamples']}/{r['unheldSamples']}/"
              f"{r['retimedSamples']} | {r['stopReason']} | {clocks} | {sm} | {mem} | {r['throttleReasons']} | "
              f"{r['throttledSamplesDropped']}{' TOO FEW CLEAN' if r['tooFewCleanSamples'] == 'true' else ''} | "
              f"{r['cacheResidency']} |")
    print()
    print(f"{totals['timed']} of {totals['results']} results timed; samples held {totals['held']}, unheld "
          f"{totals['unheld']}, re-timed after a hold timeout {totals['retimed']}; stop reasons {stops}; "
          f"throttled samples dropped {totals['dropped']}, results with too few clean samples {totals['tooFew']}; "
          f"cache-resident {totals['cacheResident']}, cache study {totals['cacheStudy']}; clocks read through NVML "
          f"for {totals['clocksRead']}, GPU results without clocks {totals['clocksNotRead']}")
    return 1 if totals["clocksNotRead"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
