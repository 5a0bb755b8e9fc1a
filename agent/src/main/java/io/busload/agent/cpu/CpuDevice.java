package io.busload.agent.cpu;

import io.busload.agent.device.DeviceConditions;
import io.busload.agent.device.Device;
import io.busload.agent.device.DeviceException;
import io.busload.agent.device.UnavailableException;
import io.busload.agent.device.Workload;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Program;
import io.busload.kernels.Step;
import io.busload.protocol.DeviceInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The host's CPU as a device: one platform thread per hardware thread, off-heap buffers. */
public final class CpuDevice implements Device {
  public static final String SHORT_ID = "cpu";
  private final DeviceInfo info;
  private final int threads;
  private ExecutorService pool;

  private CpuDevice(DeviceInfo info, int threads) {
    this.info = info;
    this.threads = threads;
  }

  public static CpuDevice create(String host) {
    int threads = Runtime.getRuntime().availableProcessors();
    String model = cpuModel();
    DeviceInfo info = new DeviceInfo(host + "/" + SHORT_ID, DeviceInfo.CPU,
        "CPU: " + model + " (" + threads + " threads)", null, null, threads, 0, memoryBytes(), 0, 0, 0,
        System.getProperty("os.name") + " " + System.getProperty("os.version"));
    return new CpuDevice(info, threads);
  }

  @Override
  public DeviceInfo info() {
    return info;
  }

  @Override
  public String shortId() {
    return SHORT_ID;
  }

  /** Free memory is what the JVM may still allocate off-heap, bounded by the machine's RAM. */
  @Override
  public DeviceLimits limits() {
    long available = availableBytes();
    return new DeviceLimits(DeviceLimits.CPU, info.memoryBytes(), available > 0 ? available : info.memoryBytes() / 2, 0,
        threads);
  }

  @Override
  public double sampleTargetSeconds() {
    return 5e-3; // thread hand-off costs tens of microseconds per launch
  }

  /**
   * System property that shortens the time cap: tests that check what a CPU run stores, not how steady its timings
   * are, measure dozens of cases on a shared machine where the spread rarely settles and every case runs to the cap.
   */
  public static final String TIME_CAP_PROPERTY = "busload.cpu.time-cap-seconds";

  /** 1 s, or {@value #TIME_CAP_PROPERTY} where set. */
  @Override
  public double timeCapSeconds() {
    String set = System.getProperty(TIME_CAP_PROPERTY);
    if (set == null) {
      return 1.0;
    }
    double seconds;
    try {
      seconds = Double.parseDouble(set.strip());
    } catch (NumberFormatException e) {
      seconds = Double.NaN;
    }
    if (!(seconds > 0) || Double.isInfinite(seconds)) {
      throw new IllegalArgumentException(TIME_CAP_PROPERTY + ": seconds > 0, not '" + set + "'");
    }
    return seconds;
  }

  @Override
  public String timerDescription() {
    return "timed with System.nanoTime on " + threads + " threads";
  }

  @Override
  public void attach() {
    pool = Executors.newFixedThreadPool(threads, Thread.ofPlatform().name("busload-cpu-", 0).daemon(true).factory());
  }

  @Override
  public Workload prepare(Program program) {
    if (pool == null) {
      throw new IllegalStateException("cpu used before attach() on its worker thread");
    }
    if (program.steps().stream().anyMatch(s -> s instanceof Step.Sgemm)) {
      throw new UnavailableException("no cuBLAS on a CPU device");
    }
    return new CpuWorkload(program, pool, threads);
  }

  @Override
  public DeviceConditions conditions() {
    return DeviceConditions.notRecorded("a CPU device has no nvidia-smi clocks");
  }

  @Override
  public io.busload.agent.device.ClockSensor clockSensor() {
    return io.busload.agent.device.ClockSensor.none(io.busload.protocol.Clocks.Reading.UNAVAILABLE,
        "a CPU device has no GPU clocks or throttle reasons");
  }

  @Override
  public io.busload.agent.device.EnergySensor energySensor() {
    return io.busload.agent.device.EnergySensor.none("the CPU backend reads no energy counter");
  }

  /** Nothing on a CPU outlives a failed case. */
  @Override
  public String recover(DeviceException error) {
    return null;
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
      pool = null;
    }
  }

  static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux, or no /proc: fall through to the architecture.
    }
    return System.getProperty("os.arch");
  }

  /** MemAvailable from /proc/meminfo, 0 when unknown (the caller falls back to half the RAM). */
  static long availableBytes() {
    return meminfoBytes("MemAvailable:");
  }

  /** MemTotal from /proc/meminfo, 0 when unknown (the record says 0). */
  static long memoryBytes() {
    return meminfoBytes("MemTotal:");
  }

  /** The line of /proc/meminfo starting with {@code key}, in bytes (the file counts kB); 0 when unknown. */
  private static long meminfoBytes(String key) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith(key)) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux, or no /proc: unknown.
    }
    return 0;
  }
}
