package io.busload.agent.cuda;

import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;

import io.busload.protocol.DeviceInfo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUuuid;
import io.busload.agent.cuda.nvml.Nvml;
import jcuda.driver.JCudaDriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the GPUs through the driver API. Anything that keeps JCuda from working here (its native library
 * does not load, no libcuda.so.1, cuInit fails, zero devices) yields no devices and a reason, never a crash.
 */
public final class CudaDiscovery {
  private static final Logger LOG = LoggerFactory.getLogger(CudaDiscovery.class);
  private static volatile String lastReason = "not tried";

  private CudaDiscovery() {}

  public static String lastReason() {
    return lastReason;
  }

  public static List<CudaDevice> discover(String host) {
    try {
      JCudaDriver.setExceptionsEnabled(false); // the checker turns results into exceptions, with arguments
      Cuda.check(JCudaDriver.cuInit(0), "cuInit", "flags=0");
      int[] count = new int[1];
      Cuda.check(JCudaDriver.cuDeviceGetCount(count), "cuDeviceGetCount");
      if (count[0] == 0) {
        lastReason = "cuDeviceGetCount found 0 GPUs";
        return List.of();
      }
      String driver = driverVersion();
      List<CUdevice> handles = new ArrayList<>();
      for (int ordinal = 0; ordinal < count[0]; ordinal++) {
        CUdevice device = new CUdevice();
        Cuda.check(JCudaDriver.cuDeviceGet(device, ordinal), "cuDeviceGet", "ordinal=" + ordinal);
        handles.add(device);
      }
      java.util.Map<String, String> topo = count[0] > 1 ? HostTopology.nvidiaSmiTopo() : java.util.Map.of();
      List<DeviceInfo> infos = new ArrayList<>();
      for (int ordinal = 0; ordinal < count[0]; ordinal++) {
        infos.add(describe(host, ordinal, handles.get(ordinal), driver));
      }
      // Each GPU's NVLinks as NVML reports them, where there is a pair to join.
      List<java.util.Optional<Nvml.NvLinks>> nvlinks = infos.stream()
          .map(info -> count[0] > 1 ? Nvml.nvlinks(info.uuid()) : java.util.Optional.<Nvml.NvLinks>empty()).toList();
      List<CudaDevice> devices = new ArrayList<>();
      for (int ordinal = 0; ordinal < count[0]; ordinal++) {
        devices.add(new CudaDevice(ordinal, count[0], handles.get(ordinal),
            infos.get(ordinal).withTopology(topology(ordinal, handles, topo, nvlinks))));
      }
      lastReason = count[0] + " GPU(s)";
      return devices;
    } catch (LinkageError e) {
      lastReason = "JCuda's native library did not load: " + briefly(e.getMessage());
    } catch (CudaException e) {
      lastReason = e.getMessage();
    } catch (RuntimeException e) {
      lastReason = "CUDA discovery failed: " + e;
      LOG.warn("CUDA discovery failed", e);
    }
    return List.of();
  }

  static DeviceInfo describe(String host, int ordinal, CUdevice device, String driver) {
    byte[] name = new byte[256];
    Cuda.check(JCudaDriver.cuDeviceGetName(name, name.length, device), "cuDeviceGetName", "ordinal=" + ordinal);
    String uuid = uuid(device, ordinal);
    long[] memory = new long[1];
    Cuda.check(JCudaDriver.cuDeviceTotalMem(memory, device), "cuDeviceTotalMem", "ordinal=" + ordinal);
    int major = attribute(device, ordinal, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    int minor = attribute(device, ordinal, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    int sms = attribute(device, ordinal, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    int l2 = attribute(device, ordinal, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    long memoryClockHz = attribute(device, ordinal, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) * 1000L; // kHz
    int busWidth = attribute(device, ordinal, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    return new DeviceInfo(host + "/cuda:" + ordinal, DeviceInfo.CUDA, cString(name), uuid,
        major + "." + minor, sms, l2, memory[0], memoryClockHz, busWidth,
        theoreticalPeak(memoryClockHz, busWidth), driver);
  }

  /** The GPU's place in the host, or null with a warning: a GPU is usable without it. */
  private static io.busload.protocol.Topology topology(int ordinal, List<CUdevice> devices,
      java.util.Map<String, String> topo, List<java.util.Optional<Nvml.NvLinks>> nvlinks) {
    try {
      return HostTopology.of(ordinal, devices, topo, nvlinks);
    } catch (RuntimeException e) {
      LOG.warn("cuda:{}: topology not recorded: {}", ordinal, e.getMessage());
      return null;
    }
  }

  /** Double data rate: memory clock x bus width in bytes x 2 (docs/design/invariants.md#measuring). */
  public static double theoreticalPeak(long memoryClockHz, int busWidthBits) {
    return memoryClockHz * (busWidthBits / 8.0) * 2.0;
  }

  /** 13000 -> "13.0", 12060 -> "12.6". */
  public static String driverVersion(int version) {
    return (version / 1000) + "." + (version % 1000) / 10;
  }

  /** nvidia-smi's spelling: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx. */
  public static String uuid(byte[] bytes) {
    StringBuilder hex = new StringBuilder("GPU-");
    for (int i = 0; i < bytes.length; i++) {
      if (i == 4 || i == 6 || i == 8 || i == 10) {
        hex.append('-');
      }
      hex.append(String.format("%02x", bytes[i] & 0xff));
    }
    return hex.toString();
  }

  /** The UUID, or null (with a warning) where this driver does not give it: a GPU is still usable without it. */
  private static String uuid(CUdevice device, int ordinal) {
    CUuuid uuid = new CUuuid();
    try {
      Cuda.check(JCudaDriver.cuDeviceGetUuid(uuid, device), "cuDeviceGetUuid", "ordinal=" + ordinal);
      return uuid(uuid.bytes);
    } catch (CudaException e) {
      LOG.warn("{}; device recorded without a UUID", e.getMessage());
      return null;
    }
  }

  private static String driverVersion() {
    int[] version = new int[1];
    Cuda.check(JCudaDriver.cuDriverGetVersion(version), "cuDriverGetVersion");
    return driverVersion(version[0]);
  }

  /** Attributes a newer driver may have dropped read as 0 ("unknown"), with a warning, instead of failing. */
  private static int attribute(CUdevice device, int ordinal, int attribute) {
    int[] value = new int[1];
    int result = JCudaDriver.cuDeviceGetAttribute(value, attribute, device);
    try {
      Cuda.check(result, "cuDeviceGetAttribute", CUdevice_attribute.stringFor(attribute), "ordinal=" + ordinal);
    } catch (CudaException e) {
      LOG.warn("{}; recorded as 0 (unknown)", e.getMessage());
      return 0;
    }
    return value[0];
  }

  /** JCuda's load error carries whole stack traces: keep its first line and the line naming libcuda. */
  static String briefly(String message) {
    if (message == null) {
      return "no reason given";
    }
    String[] lines = message.split("\\R");
    String cuda = java.util.Arrays.stream(lines).filter(l -> l.contains("libcuda")).findFirst().orElse("");
    return (lines[0] + (cuda.isEmpty() ? "" : " (" + cuda.trim() + ")")).trim();
  }

  private static String cString(byte[] bytes) {
    int end = 0;
    while (end < bytes.length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, 0, end, StandardCharsets.US_ASCII).trim();
  }
}
