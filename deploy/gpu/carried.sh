# Sourced by the run-*.sh scripts on the lent GPU machine, which has no Java, so that what they share is written once.
# From the repository root: unpacks the runtime deploy/gpu/pack.sh carried into $WORK, points ./busload run at it
# and at the carried agent, and makes $OUT, where everything the run keeps lands.
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
WORK=/tmp/busload; mkdir -p "$WORK"
tar -C "$WORK" -xJf .carry/jre.tar.xz
export BUSLOAD_JAVA="$WORK/jre/bin/java" BUSLOAD_BUNDLE="$PWD/.carry/agent"
FATBIN="$WORK/busload.fatbin"

# The machine as the results describe it: date, commit, GPU, other processes on it, Java. Into $OUT/machine.txt
# and onto the console; a script that needs more appends it (tee -a).
record_machine() {
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,pstate,temperature.gpu --format=csv
    nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
    "$BUSLOAD_JAVA" -version 2>&1 | head -1
  } 2>&1 | tee "$OUT/machine.txt"
}

# The fatbin the carried agent loads, out of its kernels jar, at $FATBIN: the native harness runs the same kernels.
extract_fatbin() {
  python3 -c 'import sys,zipfile,glob; sys.stdout.buffer.write(zipfile.ZipFile(glob.glob(".carry/agent/lib/busload-kernels-*.jar")[0]).read("io/busload/kernels/busload.fatbin"))' > "$FATBIN"
}
