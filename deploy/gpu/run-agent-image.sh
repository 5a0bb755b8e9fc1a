#!/usr/bin/env bash
# Runs on the lent GPU machine, which has no container engine: the agent image's filesystem, unpacked from its own
# layers, runs the coalescing suite with the driver's libraries bound in as the NVIDIA container toolkit would bind
# them, and the bundle (deploy/gpu/pack.sh) runs the same suite in the same call, twice each, alternating.
#
# Carried (deploy/gpu/pack-agent-image.sh makes it, in parts when it is over what one call carries):
#   .carry/image*/config.json      the image's config, as the image tar holds it (entrypoint, env, user, diff_ids)
#   .carry/image*/layer-N.tar.xz.K piece K of layer N (both from 0): the layer's tar as the image holds it,
#                                  recompressed with xz for the transfer; the joined pieces' sha256 must equal the
#                                  config's diff_id N before the layer is used
#   .carry/jre.tar.xz, .carry/agent  the bundle
# Under $OUT: machine.txt, layers.txt (each layer's diff_id checked), bundle-N.csv/.err and image-N.csv/.err
# (N = 1, 2), elapsed.txt, compare-*.txt (FleetComparison: medians of each case, image against bundle, and the
# bundle against itself for the run-to-run spread).
set -uo pipefail
cd "$(dirname "$0")/../.."
. deploy/gpu/carried.sh
record_machine
ARGS=(run --suite coalescing --device cuda:0 --format csv --energy-window "${BUSLOAD_ENERGY_WINDOW:-0}")

# The filesystem, layer by layer, each checked against the config before it is unpacked.
ROOTFS="$WORK/rootfs"; rm -rf "$ROOTFS"; mkdir -p "$ROOTFS"
CONFIG=$(ls .carry/image*/config.json | head -1)
python3 - "$CONFIG" > "$WORK/diff_ids" <<'EOF'
import json, sys
for d in json.load(open(sys.argv[1]))["rootfs"]["diff_ids"]:
    print(d.split(":", 1)[1])
EOF
n=0; : > "$OUT/layers.txt"
while read -r want; do
  pieces=$(ls .carry/image*/layer-$n.tar.xz.* 2>/dev/null | awk -F/ '{print $NF" "$0}' | sort | cut -d' ' -f2)
  [[ -n "$pieces" ]] || { echo "layer $n: not carried" | tee -a "$OUT/layers.txt"; exit 1; }
  cat $pieces | xz -dc > "$WORK/layer.tar"
  got=$(sha256sum "$WORK/layer.tar" | cut -d' ' -f1)
  [[ "$got" == "$want" ]] || { echo "layer $n: sha256 $got, the config says $want" | tee -a "$OUT/layers.txt"; exit 1; }
  tar -C "$ROOTFS" -xpf "$WORK/layer.tar"
  echo "layer $n: sha256 $got = diff_id, $(stat -c %s "$WORK/layer.tar") bytes" | tee -a "$OUT/layers.txt"
  n=$((n + 1))
done < "$WORK/diff_ids"
rm -f "$WORK/layer.tar"
du -sh "$ROOTFS" | tee -a "$OUT/layers.txt"

# What the toolkit does for a container: the GPU's device nodes, the driver's user-space libraries (libcuda,
# libnvidia-ml and the ones they load) bound in read-only, and the loader's cache made again so they are found.
# No CUDA toolkit goes in: the image has none (so cuBLAS, a toolkit library, is absent there).
DRIVER_DIR=$(dirname "$(readlink -f "$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')")" 2>/dev/null)
[[ -n "$DRIVER_DIR" && -e "$DRIVER_DIR/libcuda.so.1" ]] || DRIVER_DIR=/usr/local/nvidia/lib64
echo "driver libraries from $DRIVER_DIR" | tee -a "$OUT/layers.txt"
python3 - "$CONFIG" > "$WORK/entry.sh" <<'EOF'
import json, shlex, sys
c = json.load(open(sys.argv[1]))["config"]
env = " ".join(shlex.quote(e) for e in c.get("Env", []))
cmd = " ".join(shlex.quote(a) for a in c.get("Entrypoint", []))
print(f'cd {shlex.quote(c.get("WorkingDir") or "/")} && exec env -i {env} {cmd} "$@"')
print(f'# user {c.get("User", "0")}', file=sys.stderr)
EOF
USER_ID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"].get("User","0"))' "$CONFIG")
echo "entrypoint: $(head -1 "$WORK/entry.sh"); user $USER_ID" | tee -a "$OUT/layers.txt"
ENTRY=$(head -1 "$WORK/entry.sh")

run_image() {
  unshare --mount --fork bash -s "$ROOTFS" "$DRIVER_DIR" "$USER_ID" "$ENTRY" "${ARGS[@]}" <<'EOF'
R=$1 D=$2 U=$3 ENTRY=$4; shift 4
set -e
mount --make-rprivate /
mount -t proc proc "$R/proc"
mount --rbind /sys "$R/sys"
mount -t tmpfs -o mode=1777 tmpfs "$R/tmp"
mount -t tmpfs tmpfs "$R/dev"
for node in null zero random urandom full tty; do touch "$R/dev/$node"; mount --bind "/dev/$node" "$R/dev/$node"; done
for node in /dev/nvidia*; do
  if [[ -d "$node" ]]; then mkdir -p "$R$node"; mount --rbind "$node" "$R$node"; else touch "$R$node"; mount --bind "$node" "$R$node"; fi
done
mkdir -p "$R/dev/shm" && mount -t tmpfs tmpfs "$R/dev/shm"
mkdir -p "$R/usr/local/nvidia/lib64" && mount --bind -o ro "$D" "$R/usr/local/nvidia/lib64"
mount -o remount,bind,ro "$R/usr/local/nvidia/lib64"
echo /usr/local/nvidia/lib64 > "$R/etc/ld.so.conf.d/000-nvidia-driver.conf"
chroot "$R" /sbin/ldconfig
[[ "$U" == *:* ]] || U="$U:$U"
chroot --userspec="$U" "$R" /bin/sh -c "$ENTRY" entry "$@"
EOF
}

: > "$OUT/elapsed.txt"
TIMEFORMAT='%R s elapsed, user %U s, sys %S s of CPU'
for i in 1 2; do
  { time env ${BUSLOAD_BUNDLE_WITHOUT_CUBLAS:+BUSLOAD_CUBLAS=/nonexistent} ./busload "${ARGS[@]}" > "$OUT/bundle-$i.csv" 2> "$OUT/bundle-$i.err" ; } 2> "$WORK/time.txt"
  echo "bundle $i: exit $?, $(cat "$WORK/time.txt")" | tee -a "$OUT/elapsed.txt"
  { time run_image > "$OUT/image-$i.csv" 2> "$OUT/image-$i.err" ; } 2> "$WORK/time.txt"
  echo "image $i: exit $?, $(cat "$WORK/time.txt")" | tee -a "$OUT/elapsed.txt"
  tail -2 "$OUT/image-$i.err"
done
compare() { "$BUSLOAD_JAVA" -cp "$BUSLOAD_BUNDLE/agent.jar:$BUSLOAD_BUNDLE/lib/*" io.busload.agent.crosscheck.FleetComparison "$@"; }
for i in 1 2; do compare "$OUT/bundle-$i.csv" "$OUT/image-$i.csv" > "$OUT/compare-image-$i.txt" 2>&1; echo "image $i against bundle $i: exit $?"; tail -4 "$OUT/compare-image-$i.txt"; done
compare "$OUT/bundle-1.csv" "$OUT/bundle-2.csv" > "$OUT/compare-bundle.txt" 2>&1; echo "bundle 2 against bundle 1: exit $?"; tail -4 "$OUT/compare-bundle.txt"
tar -C "$OUT" -czf "$WORK/all.tar.gz" . && mv "$WORK/all.tar.gz" "$OUT/all.tar.gz"
