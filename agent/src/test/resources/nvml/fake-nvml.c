/*
 * A stand-in for libnvidia-ml.so.1 with the functions Busload binds, for NvmlTest on hosts without a GPU. GPU-fake-0's
 * SM clock and throttle reasons follow FAKE_NVML_SM / FAKE_NVML_REASONS. For NVLink it knows three GPUs:
 * GPU-fake-0 with 18 links to NVSwitches, 17 of them active (one trained down); GPU-fake-direct with 4 links to the
 * GPU at 00000000:00:07.0 and 2 more to 0000000A:41:00.0; GPU-fake-pcie, which has no NVLink (NOT_SUPPORTED).
 * Built by the test with the host's C compiler; never shipped.
 */
#include <stdlib.h>
#include <string.h>

typedef struct fake_device *nvmlDevice_t;
static struct fake_device { int unused; } the_gpu, direct_gpu, pcie_gpu;

/* nvml.h's nvmlPciInfo_t: the layout nvmlDeviceGetNvLinkRemotePciInfo_v2 fills. */
typedef struct {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

int nvmlInit_v2(void) { return 0; }

const char *nvmlErrorString(int status) {
  return status == 13 ? "Not Found" : status == 3 ? "Not Supported" : "Unknown Error";
}

int nvmlSystemGetDriverVersion(char *version, unsigned int length) {
  strncpy(version, "580.82.07", length);
  return 0;
}

int nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device) {
  if (strcmp(uuid, "GPU-fake-0") == 0) {
    *device = &the_gpu;
  } else if (strcmp(uuid, "GPU-fake-direct") == 0) {
    *device = &direct_gpu;
  } else if (strcmp(uuid, "GPU-fake-pcie") == 0) {
    *device = &pcie_gpu;
  } else {
    return 13; /* NVML_ERROR_NOT_FOUND */
  }
  return 0;
}

/* 2: NVML_ERROR_INVALID_ARGUMENT (no such link), 3: NVML_ERROR_NOT_SUPPORTED (no NVLink). */
static int links(nvmlDevice_t device, unsigned int link) {
  if (device == &pcie_gpu) {
    return 3;
  }
  return link < (device == &the_gpu ? 18u : 6u) ? 0 : 2;
}

int nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, int *active) {
  int status = links(device, link);
  if (status == 0) {
    *active = !(device == &the_gpu && link == 5);
  }
  return status;
}

int nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link, int *type) {
  int status = links(device, link);
  if (status == 0) {
    *type = device == &the_gpu ? 2 /* NVML_NVLINK_DEVICE_TYPE_SWITCH */ : 0 /* GPU */;
  }
  return status;
}

int nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci) {
  int status = links(device, link);
  if (status == 0) {
    memset(pci, 0, sizeof *pci);
    strcpy(pci->busId, device == &direct_gpu && link < 4 ? "00000000:00:07.0"
        : device == &direct_gpu ? "0000000A:41:00.0" : "00000000:C3:00.0");
  }
  return status;
}

int nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *clock) {
  const char *sm = getenv("FAKE_NVML_SM");
  *clock = type == 1 ? (sm ? (unsigned int) atoi(sm) : 1980) : 2619;
  return device == &the_gpu ? 0 : 999;
}

int nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons) {
  const char *r = getenv("FAKE_NVML_REASONS");
  *reasons = r ? strtoull(r, NULL, 0) : 0;
  return device == &the_gpu ? 0 : 999;
}

#ifndef FAKE_NVML_NO_ENERGY
/*
 * Energy: GPU-fake-0's counter moves 1000 mJ on every read from 5,000,000 mJ and it draws 75 W; GPU-fake-pcie stands
 * for a GPU older than Volta, whose NVML has no energy counter (NOT_SUPPORTED). Built with FAKE_NVML_NO_ENERGY, the
 * library lacks both functions, as an NVML too old for them does.
 */
static unsigned long long fake_energy = 5000000ULL;

int nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *millijoules) {
  if (device == &pcie_gpu) {
    return 3;
  }
  fake_energy += 1000;
  *millijoules = fake_energy;
  return 0;
}

int nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *milliwatts) {
  if (device == &pcie_gpu) {
    return 3;
  }
  *milliwatts = 75000;
  return 0;
}
#endif

#ifndef FAKE_NVML_NO_ENERGY
/* nvml.h's nvmlFieldValue_t; GPU-fake-0 gives NVML_FI_DEV_POWER_INSTANT (186) as 62 W, every other field NOT_SUPPORTED. */
typedef struct {
  unsigned int fieldId, scopeId;
  long long timestamp, latencyUsec;
  int valueType, nvmlReturn;
  union { double d; unsigned int ui; unsigned long ul; unsigned long long ull; long long sll; } value;
} nvmlFieldValue_t;

int nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, nvmlFieldValue_t *values) {
  for (int i = 0; i < count; i++) {
    values[i].nvmlReturn = device == &the_gpu && values[i].fieldId == 186 ? 0 : 3;
    values[i].valueType = 1; /* NVML_VALUE_TYPE_UNSIGNED_INT */
    values[i].value.ui = 62000;
  }
  return 0;
}
#endif

#ifndef FAKE_NVML_NO_HEALTH
/*
 * Health counters and XID events. GPU-fake-0 is a clean Hopper: ECC counters 0, remapped rows 0 and none pending,
 * retired pages NOT_SUPPORTED (Hopper remaps rows instead), no PCIe replays, XID events supported and none come.
 * Built with -DFAKE_NVML_FAULT=<n>, one fault appears once the test calls fake_nvml_step() (the run's middle):
 * 1 corrected ECC errors, 2 an uncorrected ECC error, 3 an older GPU (retired pages, no row remapping) whose double-bit
 * retirement is pending, 4 a pending row remap, 5 a failed row remap, 6 PCIe replays, 7 XID 79 (fallen off the bus),
 * 8 every health query NOT_SUPPORTED from the start (ECC off, no event support). Built with FAKE_NVML_NO_HEALTH, the
 * library lacks the health functions, as an old NVML does.
 */
#ifndef FAKE_NVML_FAULT
#define FAKE_NVML_FAULT 0
#endif
static int stepped = 0;
static int xid_pending = 0;
static struct fake_event_set { int registered; } the_set;
typedef struct fake_event_set *nvmlEventSet_t;

/* nvml.h's nvmlEventData_t (NVML 11.0 on). */
typedef struct {
  nvmlDevice_t device;
  unsigned long long eventType, eventData;
  unsigned int gpuInstanceId, computeInstanceId;
} nvmlEventData_t;

void fake_nvml_step(void) {
  stepped = 1;
  xid_pending = FAKE_NVML_FAULT == 7;
}

static int fault(int n) { return stepped && FAKE_NVML_FAULT == n; }

static int unsupported(nvmlDevice_t device) { return device != &the_gpu || FAKE_NVML_FAULT == 8; }

/* errorType 0 corrected, 1 uncorrected; counterType 0 volatile, 1 aggregate. */
int nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int errorType, int counterType, unsigned long long *count) {
  if (unsupported(device)) {
    return 3;
  }
  *count = errorType == 0 ? (fault(1) ? 4 : 0) + (counterType == 1 ? 10 : 0) : (fault(2) ? 1 : 0);
  return 0;
}

/* cause 0 multiple single-bit, 1 double-bit; only the older GPU of fault 3 retires pages. */
int nvmlDeviceGetRetiredPages(nvmlDevice_t device, int cause, unsigned int *pageCount, unsigned long long *addresses) {
  if (unsupported(device) || FAKE_NVML_FAULT != 3) {
    return 3;
  }
  unsigned int pages = cause == 1 && stepped ? 1 : 0;
  int status = *pageCount < pages ? 7 /* NVML_ERROR_INSUFFICIENT_SIZE */ : 0;
  for (unsigned int i = 0; addresses && i < pages && i < *pageCount; i++) {
    addresses[i] = 0x1000ULL * (i + 1);
  }
  *pageCount = pages;
  return status;
}

int nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, int *isPending) {
  if (unsupported(device) || FAKE_NVML_FAULT != 3) {
    return 3;
  }
  *isPending = stepped;
  return 0;
}

int nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
    unsigned int *isPending, unsigned int *failureOccurred) {
  if (unsupported(device) || FAKE_NVML_FAULT == 3) {
    return 3;
  }
  *corrRows = fault(4) ? 1 : 0;
  *uncRows = fault(5) ? 1 : 0;
  *isPending = fault(4);
  *failureOccurred = fault(5);
  return 0;
}

int nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value) {
  if (unsupported(device)) {
    return 3;
  }
  *value = 5 + (fault(6) ? 12 : 0);
  return 0;
}

int nvmlEventSetCreate(nvmlEventSet_t *set) {
  the_set.registered = 0;
  *set = &the_set;
  return 0;
}

/* nvmlEventTypeXidCriticalError is 0x8. */
int nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes, nvmlEventSet_t set) {
  if (unsupported(device) || set != &the_set || eventTypes != 0x8ULL) {
    return device == &the_gpu && FAKE_NVML_FAULT != 8 ? 2 : 3;
  }
  set->registered = 1;
  return 0;
}

/* 10: NVML_ERROR_TIMEOUT, nothing came within timeoutms. */
int nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms) {
  (void) timeoutms;
  if (set != &the_set || !set->registered) {
    return 2;
  }
  if (!xid_pending) {
    return 10;
  }
  xid_pending = 0;
  memset(data, 0, sizeof *data);
  data->device = &the_gpu;
  data->eventType = 0x8ULL;
  data->eventData = 79;
  data->gpuInstanceId = 0xFFFFFFFFu;
  data->computeInstanceId = 0xFFFFFFFFu;
  return 0;
}

int nvmlEventSetFree(nvmlEventSet_t set) {
  if (set != &the_set) {
    return 2;
  }
  set->registered = 0;
  return 0;
}
#endif
