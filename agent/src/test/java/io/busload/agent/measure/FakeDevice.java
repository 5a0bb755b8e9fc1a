package io.busload.agent.measure;

import io.busload.agent.cpu.CpuDevice;
import io.busload.agent.device.ClockSensor;
import io.busload.agent.device.DeviceConditions;
import io.busload.agent.device.Device;
import io.busload.agent.device.DeviceException;
import io.busload.agent.device.EnergySensor;
import io.busload.agent.device.Workload;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Program;
import io.busload.protocol.Clocks;
import io.busload.protocol.DeviceInfo;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A GPU-shaped device whose timings, holds and clock readings are scripted, for {@link MeasurementTest}. Programs
 * really run once on the CPU backend (the first, checked launch), so their outputs pass or fail their real checks;
 * every later batch only reports the scripted seconds.
 */
final class FakeDevice implements Device {
  /** Seconds per launch and hold of the n-th timed batch (0: the checked launch, 1: the probe, 2: warm-up, ...). */
  interface Script {
    Workload.Batch batch(int call, int launches);
  }

  static final double TARGET = 1e-3;

  private final CpuDevice cpu = CpuDevice.create("fake");
  private final DeviceInfo info;
  private final long l2Bytes;
  Script script = (call, launches) -> new Workload.Batch(launches * 1e-4, Workload.Hold.HELD);
  ClockSensor sensor = ClockSensor.none(Clocks.Reading.NOT_READ, "no libnvidia-ml.so.1 in this test");
  EnergySensor energy = EnergySensor.none("no libnvidia-ml.so.1 in this test");
  io.busload.agent.device.HealthSensor health = io.busload.agent.device.HealthSensor.none(
      "no libnvidia-ml.so.1 in this test");
  /** Whether the first launch runs the program (false: outputs stay poisoned, the check fails). */
  boolean computes = true;
  /** Thrown by the timed batch of this call, or never when negative. */
  int failAtCall = -1;
  /** Whether {@link #recover} fails too, leaving the device lost. */
  boolean recoveryFails;
  final List<Integer> launchesPerCall = new ArrayList<>();
  /** The most launches a batch may have and be held (a GPU's 512 steps); none when the maximum int. */
  int heldLaunchLimit = Integer.MAX_VALUE;
  /** Whether this device times apart from the host, as a GPU does (the first check then runs beside the samples). */
  boolean timesApart;
  /** Whether the workload keeps a second host copy of its outputs ({@link Workload#downloadApart}). */
  boolean keepsApart;
  /** Whether the output read into that second copy has one byte changed: a kernel wrong after its first launch. */
  boolean wrongAfterFirstLaunch;
  /** Host copies handed to a check or a comparison, by each call to download or downloadApart. */
  final List<String> reads = new ArrayList<>();

  FakeDevice(long l2Bytes) {
    this.l2Bytes = l2Bytes;
    this.info = new DeviceInfo("fake/cuda:0", DeviceInfo.CUDA, "Fake GPU", "GPU-0", "9.0", 132, l2Bytes, 80L << 30,
        2_619_000_000L, 5120, 3.35e12, "13.0");
    cpu.attach();
  }

  static ClockSensor readings(IntFunction<ClockSensor.Reading> reading) {
    return new ClockSensor() {
      private int n;

      @Override
      public Clocks.Reading availability() {
        return Clocks.Reading.READ;
      }

      @Override
      public String note() {
        return "scripted";
      }

      @Override
      public Reading read() {
        return reading.apply(n++);
      }
    };
  }

  @Override
  public DeviceInfo info() {
    return info;
  }

  @Override
  public String shortId() {
    return "cuda:0";
  }

  @Override
  public DeviceLimits limits() {
    return new DeviceLimits(DeviceLimits.CUDA, 80L << 30, 70L << 30, l2Bytes, 132);
  }

  @Override
  public double sampleTargetSeconds() {
    return TARGET;
  }

  @Override
  public double timeCapSeconds() {
    return 1.0;
  }

  @Override
  public String timerDescription() {
    return "scripted";
  }

  @Override
  public void attach() {}

  @Override
  public Workload prepare(Program program) {
    Workload real = cpu.prepare(program);
    return new Workload() {
      private int call;

      @Override
      public Batch time(int launches) {
        int n = call++;
        launchesPerCall.add(launches);
        if (n == failAtCall) {
          throw new DeviceException("cuLaunchKernel failed: CUDA_ERROR_ILLEGAL_ADDRESS (scripted)");
        }
        if (n == 0 && computes) {
          real.time(1);
        }
        return script.batch(n, launches);
      }

      @Override
      public int heldLaunchLimit() {
        return heldLaunchLimit;
      }

      @Override
      public List<MemorySegment> download() {
        reads.add("download");
        return real.download();
      }

      @Override
      public java.util.Optional<List<MemorySegment>> downloadApart() {
        if (!keepsApart) {
          return java.util.Optional.empty();
        }
        reads.add("downloadApart");
        List<MemorySegment> now = new ArrayList<>(real.download());
        for (int i = 0; i < program.buffers().size(); i++) {
          if (program.buffers().get(i).role() != io.busload.kernels.Buffer.Role.INPUT) {
            MemorySegment copy = java.lang.foreign.Arena.ofAuto().allocate(now.get(i).byteSize(), 64);
            copy.copyFrom(now.get(i));
            if (wrongAfterFirstLaunch) {
              byte first = copy.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0);
              copy.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) (first ^ 1)); // one bit off, as a late fault

            }
            now.set(i, copy);
          }
        }
        return java.util.Optional.of(List.copyOf(now));
      }

      @Override
      public void close() {
        real.close();
      }
    };
  }

  @Override
  public boolean timesApartFromHost() {
    return timesApart;
  }

  @Override
  public DeviceConditions conditions() {
    return DeviceConditions.notRecorded("scripted device");
  }

  @Override
  public ClockSensor clockSensor() {
    return sensor;
  }

  @Override
  public EnergySensor energySensor() {
    return energy;
  }

  @Override
  public io.busload.agent.device.HealthSensor healthSensor() {
    return health;
  }

  @Override
  public String recover(DeviceException error) {
    if (recoveryFails) {
      throw new DeviceException("cuDevicePrimaryCtxReset failed (scripted)");
    }
    return "context reset (scripted)";
  }

  @Override
  public void close() {
    cpu.close();
  }
}
