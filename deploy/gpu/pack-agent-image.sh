#!/usr/bin/env bash
# Packs the agent image (deploy/target/images/agent.tar, an OCI layout made by ./busload images) for a lent GPU machine, which has
# no container engine and takes at most 64 MiB a call: the image's config, and each layer's tar as the image holds
# it, recompressed with xz (the image stores them gzipped), cut into pieces of at most BUDGET_MB (the base layer
# alone is more than one call carries). The pieces are spread over .carry/image1, .carry/image2, ... of at most
# BUDGET_MB each, so that they travel in consecutive calls (ignored paths stay on a warm machine);
# run-agent-image.sh joins each layer's pieces and checks it against the config's diff_ids before it unpacks it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
IMAGE=${1:-$ROOT/deploy/target/images/agent.tar}
BUDGET_MB=${BUDGET_MB:-40}
rm -rf "$ROOT"/.carry/image[0-9]*
python3 - "$IMAGE" "$ROOT/.carry" "$BUDGET_MB" <<'EOF'
import json, os, shutil, subprocess, sys, tarfile, gzip, hashlib
image, carry, budget = sys.argv[1], sys.argv[2], int(sys.argv[3]) << 20
work = os.path.join(carry, "image-work"); shutil.rmtree(work, ignore_errors=True); os.makedirs(work)
def blob(t, digest):
    return t.extractfile("blobs/" + digest.replace(":", "/")).read()
with tarfile.open(image) as t:  # an OCI image layout, as Jib's buildTar writes it
    index = json.load(t.extractfile("index.json"))
    manifest = json.loads(blob(t, index["manifests"][0]["digest"]))
    config = blob(t, manifest["config"]["digest"])
    diff_ids = [d.split(":", 1)[1] for d in json.loads(config)["rootfs"]["diff_ids"]]
    packed = []
    for n, layer in enumerate(manifest["layers"]):
        raw = blob(t, layer["digest"])
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        digest = hashlib.sha256(raw).hexdigest()
        if digest != diff_ids[n]:
            sys.exit(f"layer {n}: sha256 {digest}, the config says {diff_ids[n]}")
        out = os.path.join(work, f"layer-{n}.tar.xz")
        with open(out, "wb") as f:
            subprocess.run(["xz", "-9e", "-T2", "-c"], input=raw, stdout=f, check=True)
        print(f"layer {n}: {len(raw)} bytes, {os.path.getsize(out)} as xz, sha256 {digest}")
        with open(out, "rb") as f:
            k = 0
            while chunk := f.read(budget):
                piece = f"{out}.{k:02d}"
                open(piece, "wb").write(chunk)
                packed.append((len(chunk), piece))
                k += 1
        os.remove(out)
# Largest first into the first part that still has room; the config goes with part 1.
parts = []
for size, path in sorted(packed, reverse=True):
    for part in parts:
        if part[0] + size <= budget:
            part[0] += size; part[1].append(path); break
    else:
        parts.append([size, [path]])
for i, (size, paths) in enumerate(parts, 1):
    d = os.path.join(carry, f"image{i}"); os.makedirs(d)
    for p in paths:
        shutil.move(p, d)
    if i == 1:
        open(os.path.join(d, "config.json"), "wb").write(config)
    print(f".carry/image{i}: {size} bytes")
shutil.rmtree(work)
EOF
du -sh "$ROOT"/.carry/image[0-9]*
