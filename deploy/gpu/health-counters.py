"""Reads, never sets, the health counters NVML keeps for GPU 0: ECC error counts (volatile and aggregate, corrected
and uncorrected), remapped rows (corrected, uncorrected, pending, failed), retired pages where the GPU retires pages
instead, and the PCIe replay counter. One line per counter, 'name: value' or 'name: not read (NVML code)'."""
import ctypes
import sys

nvml = ctypes.CDLL("libnvidia-ml.so.1")
assert nvml.nvmlInit_v2() == 0
handle = ctypes.c_void_p()
assert nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(handle)) == 0
label = sys.argv[1] if len(sys.argv) > 1 else "now"


def show(name, status, value):
    print("%s %s: %s" % (label, name, value if status == 0 else "not read (NVML %d)" % status))


count = ctypes.c_ulonglong()
for error, error_name in ((0, "corrected"), (1, "uncorrected")):
    for counter, counter_name in ((0, "volatile"), (1, "aggregate")):
        status = nvml.nvmlDeviceGetTotalEccErrors(handle, error, counter, ctypes.byref(count))
        show("ecc %s %s" % (counter_name, error_name), status, count.value)
corrected, uncorrected, pending, failed = (ctypes.c_uint() for _ in range(4))
status = nvml.nvmlDeviceGetRemappedRows(handle, ctypes.byref(corrected), ctypes.byref(uncorrected),
                                        ctypes.byref(pending), ctypes.byref(failed))
for name, value in (("corrected", corrected), ("uncorrected", uncorrected), ("pending", pending),
                    ("failed", failed)):
    show("remapped rows " + name, status, value.value)
pages = ctypes.c_uint(0)
for cause, cause_name in ((0, "multiple single-bit"), (1, "double-bit")):
    status = nvml.nvmlDeviceGetRetiredPages(handle, cause, ctypes.byref(pages), None)
    show("retired pages " + cause_name, status, pages.value)
replay = ctypes.c_uint()
show("pcie replay counter", nvml.nvmlDeviceGetPcieReplayCounter(handle, ctypes.byref(replay)), replay.value)
