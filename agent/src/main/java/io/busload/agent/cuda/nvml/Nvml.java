package io.busload.agent.cuda.nvml;

import io.busload.agent.cuda.NativeCalls;
import io.busload.agent.device.ClockSensor;
import io.busload.agent.device.DeviceException;
import io.busload.protocol.Clocks;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The host's NVML, loaded and initialised once per process; {@link #sensor} finds a GPU by its CUDA UUID (NVML's
 * indices need not follow CUDA's ordinals) and reads it. Readings happen on the device's worker thread only.
 */
public final class Nvml {
  /** The soname the driver installs. */
  static final String LIBRARY = "libnvidia-ml.so.1";
  /** System property naming a library file to load instead (tests; a host with NVML off the loader's path). */
  static final String OVERRIDE_PROPERTY = "busload.nvml";
  /** {@code nvmlClockType_t}: NVML_CLOCK_SM and NVML_CLOCK_MEM. */
  static final int CLOCK_SM = 1;
  static final int CLOCK_MEM = 2;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
  private static final java.lang.foreign.AddressLayout POINTER = ValueLayout.ADDRESS;

  private static Nvml host;
  private static String hostUnavailable;

  private final MethodHandle handleByUuid;
  private final MethodHandle clockInfo;
  private final MethodHandle reasons;
  private final MethodHandle errorString;
  private final String version;

  private Nvml(SymbolLookup symbols) {
    Linker linker = Linker.nativeLinker();
    errorString = downcall(linker, symbols, "nvmlErrorString", FunctionDescriptor.of(POINTER, INT));
    MethodHandle init = downcall(linker, symbols, "nvmlInit_v2", FunctionDescriptor.of(INT));
    handleByUuid = downcall(linker, symbols, "nvmlDeviceGetHandleByUUID", FunctionDescriptor.of(INT, POINTER, POINTER));
    clockInfo = downcall(linker, symbols, "nvmlDeviceGetClockInfo", FunctionDescriptor.of(INT, POINTER, INT, POINTER));
    // NVML 12.2 renamed throttle reasons to clock event reasons; the old name stays exported but deprecated.
    reasons = symbols.find("nvmlDeviceGetCurrentClocksEventReasons")
        .or(() -> symbols.find("nvmlDeviceGetCurrentClocksThrottleReasons"))
        .map(symbol -> linker.downcallHandle(symbol, FunctionDescriptor.of(INT, POINTER, POINTER)))
        .orElseThrow(() -> new NvmlUnavailableException("NVML has neither nvmlDeviceGetCurrentClocksEventReasons nor"
            + " nvmlDeviceGetCurrentClocksThrottleReasons"));
    MethodHandle driverVersion = downcall(linker, symbols, "nvmlSystemGetDriverVersion",
        FunctionDescriptor.of(INT, POINTER, INT));
    check(invoke(init), "nvmlInit_v2");
    try (Arena call = Arena.ofConfined()) {
      MemorySegment text = call.allocate(96);
      int status;
      try {
        status = (int) driverVersion.invokeExact(text, 96);
      } catch (Throwable t) {
        throw rethrow(t);
      }
      check(status, "nvmlSystemGetDriverVersion");
      version = text.getString(0);
    }
  }

  /** The sensor of the GPU with CUDA UUID {@code uuid}, or one saying (typed NOT_READ) why it cannot read. */
  public static synchronized ClockSensor sensor(String uuid) {
    if (uuid == null) {
      return ClockSensor.none(Clocks.Reading.NOT_READ, "the GPU has no CUDA UUID to find it by in NVML");
    }
    if (host == null && hostUnavailable == null) {
      try {
        host = load(Optional.ofNullable(System.getProperty(OVERRIDE_PROPERTY)).filter(p -> !p.isBlank())
            .map(Path::of).orElse(null));
      } catch (NvmlUnavailableException e) {
        hostUnavailable = e.getMessage();
      }
    }
    if (host == null) {
      return ClockSensor.none(Clocks.Reading.NOT_READ, hostUnavailable);
    }
    try {
      return host.sensorOf(uuid);
    } catch (NvmlUnavailableException e) {
      return ClockSensor.none(Clocks.Reading.NOT_READ, e.getMessage());
    }
  }

  /** Loads and initialises NVML from {@code file}, or by soname when null. */
  static Nvml load(Path file) {
    SymbolLookup symbols;
    String what = file == null ? LIBRARY : file.toString();
    try {
      symbols = file == null ? SymbolLookup.libraryLookup(LIBRARY, Arena.global())
          : SymbolLookup.libraryLookup(file, Arena.global());
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new NvmlUnavailableException("cannot load " + what + " (" + e.getMessage() + "): no NVML on this host");
    }
    try {
      return new Nvml(symbols);
    } catch (DeviceException e) {
      throw new NvmlUnavailableException(what + ": " + e.getMessage(), e);
    }
  }

  /** NVML's driver version, as {@code nvmlSystemGetDriverVersion} gives it. */
  String version() {
    return version;
  }

  /** The sensor of one GPU; {@link NvmlUnavailableException} when NVML does not know the UUID. */
  ClockSensor sensorOf(String uuid) {
    Arena arena = Arena.ofAuto(); // lives while the sensor refers to its segments
    MemorySegment slot = arena.allocate(POINTER);
    int status;
    try {
      status = (int) handleByUuid.invokeExact(arena.allocateFrom(uuid), slot);
    } catch (Throwable t) {
      throw rethrow(t);
    }
    if (status != 0) {
      throw new NvmlUnavailableException("nvmlDeviceGetHandleByUUID(" + uuid + ") failed: " + error(status));
    }
    return new Sensor(slot.get(POINTER, 0), arena.allocate(INT), arena.allocate(LONG), "NVML, driver " + version);
  }

  /** One GPU's readings; its segments are reused, so it must stay on one thread (the device's worker). */
  private final class Sensor implements ClockSensor {
    private final MemorySegment device;
    private final MemorySegment clock;
    private final MemorySegment mask;
    private final String note;

    Sensor(MemorySegment device, MemorySegment clock, MemorySegment mask, String note) {
      this.device = device;
      this.clock = clock;
      this.mask = mask;
      this.note = note;
    }

    @Override
    public Clocks.Reading availability() {
      return Clocks.Reading.READ;
    }

    @Override
    public String note() {
      return note;
    }

    @Override
    public Reading read() {
      int sm = clock(CLOCK_SM, "NVML_CLOCK_SM");
      int mem = clock(CLOCK_MEM, "NVML_CLOCK_MEM");
      int status;
      try {
        status = (int) reasons.invokeExact(device, mask);
      } catch (Throwable t) {
        throw rethrow(t);
      }
      check(status, "nvmlDeviceGetCurrentClocksEventReasons");
      return new Reading(sm, mem, mask.get(LONG, 0));
    }

    private int clock(int type, String name) {
      int status;
      try {
        status = (int) clockInfo.invokeExact(device, type, clock);
      } catch (Throwable t) {
        throw rethrow(t);
      }
      check(status, "nvmlDeviceGetClockInfo", name);
      return clock.get(INT, 0);
    }
  }

  private void check(int status, String call, String... args) {
    if (status != 0) {
      throw new DeviceException(call + (args.length == 0 ? "" : "(" + String.join(", ", args) + ")") + " failed: "
          + error(status));
    }
  }

  /** NVML's words for a return code, and the code. */
  private String error(int status) {
    try {
      MemorySegment text = (MemorySegment) errorString.invokeExact(status);
      return text.reinterpret(256).getString(0) + " (" + status + ")";
    } catch (Throwable t) {
      return "NVML return code " + status;
    }
  }

  private static int invoke(MethodHandle handle) {
    try {
      return (int) handle.invokeExact();
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static MethodHandle downcall(Linker linker, SymbolLookup symbols, String name, FunctionDescriptor descriptor) {
    return NativeCalls.downcall(linker, symbols, name, descriptor,
        missing -> new NvmlUnavailableException("NVML has no symbol " + missing));
  }

  private static RuntimeException rethrow(Throwable t) {
    return NativeCalls.rethrow(t);
  }
}
