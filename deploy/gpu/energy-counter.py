"""How often the GPU's NVML total-energy counter moves: polled as fast as Python can through ctypes, first with the
GPU idle, then while a thread keeps it copying (PyTorch, device to device). Prints the steps' spacing and size."""
import ctypes
import statistics
import sys
import threading
import time

nvml = ctypes.CDLL("libnvidia-ml.so.1")
assert nvml.nvmlInit_v2() == 0
handle = ctypes.c_void_p()
assert nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(handle)) == 0
energy = ctypes.c_ulonglong()
power = ctypes.c_uint()


def counter():
    status = nvml.nvmlDeviceGetTotalEnergyConsumption(handle, ctypes.byref(energy))
    if status != 0:
        sys.exit("nvmlDeviceGetTotalEnergyConsumption failed: %d" % status)
    return energy.value


def poll(seconds):
    steps, polls = [], 0
    last, start = counter(), time.perf_counter()
    while time.perf_counter() - start < seconds:
        now = counter()
        polls += 1
        if now != last:
            steps.append((time.perf_counter(), now - last))
            last = now
    return steps, polls


def report(label, steps, polls, seconds):
    gaps = [b[0] - a[0] for a, b in zip(steps, steps[1:])]
    nvml.nvmlDeviceGetPowerUsage(handle, ctypes.byref(power))
    if len(gaps) < 2:
        print("%s: %d steps in %.1f s (%d polls)" % (label, len(steps), seconds, polls))
        return
    mj = [s[1] for s in steps[1:]]
    print("%s: %d steps in %.1f s, %d polls (every %.0f us); step spacing ms: median %.1f, min %.1f, max %.1f;"
          " mJ per step: median %d, min %d, max %d; power now %.1f W" % (
              label, len(steps), seconds, polls, 1e6 * seconds / polls, 1e3 * statistics.median(gaps),
              1e3 * min(gaps), 1e3 * max(gaps), statistics.median(mj), min(mj), max(mj), power.value / 1e3))


report("idle", *poll(3.0), 3.0)
import torch  # noqa: E402  (after the idle poll: loading it takes seconds)
a = torch.empty(1 << 28, dtype=torch.float32, device="cuda").uniform_()
b = torch.empty_like(a)
stop = threading.Event()


def load():
    while not stop.is_set():
        for _ in range(50):
            b.copy_(a)
        torch.cuda.synchronize()


thread = threading.Thread(target=load)
thread.start()
time.sleep(0.5)
report("copying", *poll(3.0), 3.0)
stop.set()
thread.join()
