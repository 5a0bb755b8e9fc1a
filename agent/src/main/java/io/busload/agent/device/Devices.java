package io.busload.agent.device;

import io.busload.agent.cpu.CpuDevice;
import io.busload.agent.cuda.CudaDiscovery;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one factory: every CUDA GPU JCuda can see, or the CPU when there is none (JCuda's native library does
 * not load, no driver, or zero GPUs). The CPU can always be asked for by name.
 */
public final class Devices {
  private static final Logger LOG = LoggerFactory.getLogger(Devices.class);

  private final List<Device> all;

  private Devices(List<Device> all) {
    this.all = List.copyOf(all);
  }

  /** These devices, as if discovered (tests, and hosts whose devices are made another way). */
  public static Devices of(List<Device> devices) {
    return new Devices(devices);
  }

  /** Discovers the GPUs; the CPU device is always available as {@code cpu}. */
  public static Devices discover() {
    return discover(hostName());
  }

  /** As {@link #discover()}, with devices named after {@code host} (a Slurm job's node name). */
  public static Devices discover(String host) {
    List<Device> devices = new ArrayList<>(CudaDiscovery.discover(host));
    if (devices.isEmpty()) {
      LOG.info("no CUDA device usable ({}); measuring on the CPU", CudaDiscovery.lastReason());
    }
    devices.add(CpuDevice.create(host));
    return new Devices(devices);
  }

  /** The devices to serve by default: every GPU, or the CPU when there is none. */
  public List<Device> defaults() {
    List<Device> gpus = all.stream().filter(d -> !d.shortId().equals(CpuDevice.SHORT_ID)).toList();
    return gpus.isEmpty() ? List.of(byShortId(CpuDevice.SHORT_ID)) : gpus;
  }

  public List<Device> all() {
    return all;
  }

  /** By {@code cpu}/{@code cuda:N} or by full id ({@code host/cuda:N}). */
  public Device byShortId(String id) {
    return all.stream().filter(d -> d.shortId().equals(id) || d.info().id().equals(id)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown device '" + id + "'; known: "
            + all.stream().map(Device::shortId).collect(Collectors.joining(", "))));
  }

  public static String hostName() {
    String env = System.getenv("HOSTNAME");
    try {
      String name = InetAddress.getLocalHost().getHostName();
      if (name != null && !name.isBlank()) {
        return name;
      }
    } catch (Exception e) {
      LOG.debug("no host name from the resolver: {}", e.toString());
    }
    return env != null && !env.isBlank() ? env : "localhost";
  }
}
