#!/usr/bin/env bash
# Runs on a lent machine with two or more GPUs (no Java there; carry .carry made by deploy/gpu/pack.sh): the
# "every GPU at once" and its topology, as built on the CPU on 2026-11-24 and not yet run on GPUs. Under $OUT:
#   machine.txt           date, commit, nvidia-smi, Java
#   topology.txt          nvidia-smi topo -m (the escaped header the agent now strips) and nvidia-smi nvlink -s
#   stride-alone.json     ./busload run --suite stride --device cuda:0: one GPU with the host to itself
#   stride-all.json/.err  ./busload run --suite stride --device all: every GPU at once, one worker each; every
#                         result's sampling.othersBusy should name the other GPUs, and its device.topology.peers
#                         the links NVML counts (source "...; NVLinks from NVML's active links")
#   summary.txt           per device: results, valid, results measured beside others, peers as recorded, and the
#                         median bandwidth of stride 1 alone and at once
set -uo pipefail
cd "$(dirname "$0")/../.."
. deploy/gpu/carried.sh
record_machine
{ nvidia-smi topo -m; nvidia-smi nvlink -s; } > "$OUT/topology.txt" 2>&1
./busload run --suite stride --device cuda:0 --format json > "$OUT/stride-alone.json" 2> "$OUT/stride-alone.err"
echo "stride on cuda:0 alone: exit $?"
./busload run --suite stride --device all --format json > "$OUT/stride-all.json" 2> "$OUT/stride-all.err"
echo "stride on every GPU at once: exit $?"
python3 - "$OUT/stride-alone.json" "$OUT/stride-all.json" > "$OUT/summary.txt" <<'PY'
import json, sys
alone = json.load(open(sys.argv[1]))
together = json.load(open(sys.argv[2]))
def stride1(results, device):
    for r in results:
        if r["device"]["id"].endswith(device) and r["kernel"] == "stride-copy-fp32" and r["params"].get("stride") == 1:
            return r.get("bandwidth")
for device in sorted({r["device"]["id"] for r in together}):
    mine = [r for r in together if r["device"]["id"] == device]
    beside = [r for r in mine if (r.get("sampling") or {}).get("othersBusy")]
    topology = mine[0]["device"].get("topology") or {}
    peers = ", ".join(f'cuda:{p["ordinal"]} {p["link"]} {p["detail"]}' for p in topology.get("peers", []))
    short = device.split("/")[-1]
    print(f'{device}: {len(mine)} results, {sum(r["valid"] for r in mine)} valid, {len(beside)} measured beside others;'
          f' peers: {peers}; topology from: {topology.get("source")}')
    print(f'  stride 1: alone {stride1(alone, short)} B/s, at once {stride1(together, short)} B/s')
PY
cat "$OUT/summary.txt"
