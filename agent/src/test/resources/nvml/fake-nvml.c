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
