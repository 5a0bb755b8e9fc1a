/*
 * A stand-in for libnvidia-ml.so.1 with the five functions Busload binds, for NvmlTest on hosts without a GPU: it
 * knows one GPU (UUID GPU-fake-0) whose SM clock and throttle reasons follow FAKE_NVML_SM / FAKE_NVML_REASONS.
 * Built by the test with the host's C compiler; never shipped.
 */
#include <stdlib.h>
#include <string.h>

typedef struct fake_device *nvmlDevice_t;
static struct fake_device { int unused; } the_gpu;

int nvmlInit_v2(void) { return 0; }

const char *nvmlErrorString(int status) { return status == 13 ? "Not Found" : "Unknown Error"; }

int nvmlSystemGetDriverVersion(char *version, unsigned int length) {
  strncpy(version, "580.82.07", length);
  return 0;
}

int nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device) {
  if (strcmp(uuid, "GPU-fake-0") != 0) {
    return 13; /* NVML_ERROR_NOT_FOUND */
  }
  *device = &the_gpu;
  return 0;
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
