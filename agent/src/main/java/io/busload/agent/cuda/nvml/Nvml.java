package io.busload.agent.cuda.nvml;

import io.busload.agent.cuda.NativeCalls;
import io.busload.agent.device.ClockSensor;
import io.busload.agent.device.DeviceException;
import io.busload.agent.device.EnergySensor;
import io.busload.agent.device.HealthSensor;
import io.busload.protocol.HealthCounters;
import io.busload.protocol.Clocks;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host's NVML, loaded and initialised once per process; {@link #sensor} finds a GPU by its CUDA UUID (NVML's
 * indices need not follow CUDA's ordinals) and reads it. Readings happen on the device's worker thread only.
 */
public final class Nvml {
  private static final Logger LOG = LoggerFactory.getLogger(Nvml.class);
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
  /** NVLink queries; null where this NVML lacks them, and then links are read elsewhere. */
  private final MethodHandle nvlinkState;
  private final MethodHandle nvlinkRemoteType;
  private final MethodHandle nvlinkRemotePci;
  /** Energy and power (Volta and later); null where this NVML lacks them, and then energy is not read. */
  private final MethodHandle totalEnergy;
  private final MethodHandle powerUsage;
  /** nvmlDeviceGetFieldValues, for the instantaneous power (Hopper's power usage is a one-second average). */
  private final MethodHandle fieldValues;
  /** Health queries (read-only) and the XID event set; each null where this NVML lacks it, and then not read. */
  private final MethodHandle eccTotal;
  private final MethodHandle retiredPages;
  private final MethodHandle retiredPending;
  private final MethodHandle remappedRows;
  private final MethodHandle pcieReplays;
  private final MethodHandle eventSetCreate;
  private final MethodHandle registerEvents;
  private final MethodHandle eventSetWait;
  private final MethodHandle eventSetFree;
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
    nvlinkState = optional(linker, symbols, "nvmlDeviceGetNvLinkState", FunctionDescriptor.of(INT, POINTER, INT,
        POINTER));
    nvlinkRemoteType = optional(linker, symbols, "nvmlDeviceGetNvLinkRemoteDeviceType",
        FunctionDescriptor.of(INT, POINTER, INT, POINTER));
    nvlinkRemotePci = optional(linker, symbols, "nvmlDeviceGetNvLinkRemotePciInfo_v2",
        FunctionDescriptor.of(INT, POINTER, INT, POINTER));
    totalEnergy = optional(linker, symbols, "nvmlDeviceGetTotalEnergyConsumption",
        FunctionDescriptor.of(INT, POINTER, POINTER));
    powerUsage = optional(linker, symbols, "nvmlDeviceGetPowerUsage", FunctionDescriptor.of(INT, POINTER, POINTER));
    fieldValues = optional(linker, symbols, "nvmlDeviceGetFieldValues", FunctionDescriptor.of(INT, POINTER, INT,
        POINTER));
    // nvml.h: nvmlDeviceGetTotalEccErrors(device, nvmlMemoryErrorType_t, nvmlEccCounterType_t, unsigned long long *)
    eccTotal = optional(linker, symbols, "nvmlDeviceGetTotalEccErrors", FunctionDescriptor.of(INT, POINTER, INT, INT,
        POINTER));
    // (device, nvmlPageRetirementCause_t, unsigned int *pageCount, unsigned long long *addresses)
    retiredPages = optional(linker, symbols, "nvmlDeviceGetRetiredPages", FunctionDescriptor.of(INT, POINTER, INT,
        POINTER, POINTER));
    retiredPending = optional(linker, symbols, "nvmlDeviceGetRetiredPagesPendingStatus",
        FunctionDescriptor.of(INT, POINTER, POINTER));
    // (device, unsigned int *corrRows, *uncRows, *isPending, *failureOccurred)
    remappedRows = optional(linker, symbols, "nvmlDeviceGetRemappedRows", FunctionDescriptor.of(INT, POINTER, POINTER,
        POINTER, POINTER, POINTER));
    pcieReplays = optional(linker, symbols, "nvmlDeviceGetPcieReplayCounter",
        FunctionDescriptor.of(INT, POINTER, POINTER));
    eventSetCreate = optional(linker, symbols, "nvmlEventSetCreate", FunctionDescriptor.of(INT, POINTER));
    registerEvents = optional(linker, symbols, "nvmlDeviceRegisterEvents", FunctionDescriptor.of(INT, POINTER, LONG,
        POINTER));
    eventSetWait = optional(linker, symbols, "nvmlEventSetWait_v2", FunctionDescriptor.of(INT, POINTER, POINTER, INT));
    eventSetFree = optional(linker, symbols, "nvmlEventSetFree", FunctionDescriptor.of(INT, POINTER));
    MethodHandle driverVersion = downcall(linker, symbols, "nvmlSystemGetDriverVersion",
        FunctionDescriptor.of(INT, POINTER, INT));
    check(NativeCalls.status(() -> (int) init.invokeExact()), "nvmlInit_v2");
    try (Arena call = Arena.ofConfined()) {
      MemorySegment text = call.allocate(96);
      check(NativeCalls.status(() -> (int) driverVersion.invokeExact(text, 96)), "nvmlSystemGetDriverVersion");
      version = text.getString(0);
    }
  }

  /** The sensor of the GPU with CUDA UUID {@code uuid}, or one saying (typed NOT_READ) why it cannot read. */
  public static synchronized ClockSensor sensor(String uuid) {
    return onHost(uuid, Nvml::sensorOf, why -> ClockSensor.none(Clocks.Reading.NOT_READ, why));
  }

  /** The energy counter of the GPU with CUDA UUID {@code uuid}, or one saying why it cannot read. */
  public static synchronized EnergySensor energySensor(String uuid) {
    return onHost(uuid, Nvml::energySensorOf, EnergySensor::none);
  }

  /** The error counters and XID events of the GPU with CUDA UUID {@code uuid}, or a sensor saying why not. */
  public static synchronized HealthSensor healthSensor(String uuid) {
    return onHost(uuid, Nvml::healthSensorOf, HealthSensor::none);
  }

  /**
   * The sensor {@code sensorOf} makes of this host's NVML for the GPU with CUDA UUID {@code uuid}; where there is
   * no UUID, no NVML or no such GPU, the one {@code none} makes of why.
   */
  private static <S> S onHost(String uuid, java.util.function.BiFunction<Nvml, String, S> sensorOf,
      java.util.function.Function<String, S> none) {
    if (uuid == null) {
      return none.apply("the GPU has no CUDA UUID to find it by in NVML");
    }
    loadHost();
    if (host == null) {
      return none.apply(hostUnavailable);
    }
    try {
      return sensorOf.apply(host, uuid);
    } catch (NvmlUnavailableException | DeviceException e) {
      return none.apply(e.getMessage());
    }
  }

  /** This host's NVML, loaded once ({@code busload.nvml} names another library); why not, when it cannot be. */
  private static void loadHost() {
    if (host == null && hostUnavailable == null) {
      try {
        host = load(Optional.ofNullable(System.getProperty(OVERRIDE_PROPERTY)).filter(p -> !p.isBlank())
            .map(Path::of).orElse(null));
      } catch (NvmlUnavailableException e) {
        hostUnavailable = e.getMessage();
      }
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

  /**
   * A GPU's NVLinks as NVML reports them: active links, those ending at another GPU by its PCI bus id
   * (sysfs spelling, {@code 0000:07:00.0}), and those ending at an NVSwitch, through which it reaches every GPU on
   * the same fabric.
   *
   * @param links the links NVML knows on this GPU, active or not; 0 when it has no NVLink
   * @param active those that are up
   * @param toGpus active links straight to another GPU, by that GPU's bus id
   * @param toSwitches active links to an NVSwitch
   */
  public record NvLinks(int links, int active, Map<String, Integer> toGpus, int toSwitches) {
    public static final NvLinks NONE = new NvLinks(0, 0, Map.of(), 0);

    public NvLinks {
      toGpus = Map.copyOf(toGpus);
    }
  }

  /** {@code nvmlPciInfo_t}: 16 bytes of legacy bus id, five unsigned ints, then the 32-byte bus id. */
  private static final long PCI_INFO_BYTES = 68;
  private static final long PCI_BUS_ID_OFFSET = 36;
  /** NVML_NVLINK_MAX_LINKS since Hopper; NVML answers INVALID_ARGUMENT past a GPU's own last link. */
  static final int MAX_LINKS = 18;
  private static final int ERROR_INVALID_ARGUMENT = 2;
  private static final int ERROR_NOT_SUPPORTED = 3;
  private static final int REMOTE_GPU = 0;
  private static final int REMOTE_SWITCH = 2;

  /** The NVLinks of the GPU with CUDA UUID {@code uuid} on this host; empty when NVML cannot say. */
  public static synchronized Optional<NvLinks> nvlinks(String uuid) {
    if (uuid == null) {
      return Optional.empty();
    }
    loadHost();
    if (host == null) {
      return Optional.empty();
    }
    try {
      return host.nvlinksOf(uuid);
    } catch (NvmlUnavailableException | DeviceException e) {
      LOG.info("NVLink state of {} not read from NVML: {}", uuid, e.getMessage());
      return Optional.empty();
    }
  }

  /** The NVLinks of one GPU; empty when this NVML has no NVLink queries. */
  Optional<NvLinks> nvlinksOf(String uuid) {
    if (nvlinkState == null) {
      return Optional.empty();
    }
    try (Arena call = Arena.ofConfined()) {
      MemorySegment device = handle(uuid, call);
      MemorySegment value = call.allocate(INT);
      MemorySegment pci = call.allocate(PCI_INFO_BYTES);
      int links = 0;
      int active = 0;
      int toSwitches = 0;
      Map<String, Integer> toGpus = new java.util.TreeMap<>();
      for (int link = 0; link < MAX_LINKS; link++) {
        int status = (int) nvlinkState.invokeExact(device, link, value);
        if (status == ERROR_NOT_SUPPORTED && link == 0) {
          return Optional.of(NvLinks.NONE);
        }
        if (status == ERROR_INVALID_ARGUMENT) {
          break;
        }
        check(status, "nvmlDeviceGetNvLinkState", uuid, "link " + link);
        links++;
        if (value.get(INT, 0) == 0) {
          continue;
        }
        active++;
        int type = REMOTE_GPU;
        if (nvlinkRemoteType != null) {
          status = (int) nvlinkRemoteType.invokeExact(device, link, value);
          check(status, "nvmlDeviceGetNvLinkRemoteDeviceType", uuid, "link " + link);
          type = value.get(INT, 0);
        }
        if (type == REMOTE_SWITCH) {
          toSwitches++;
        } else if (type == REMOTE_GPU && nvlinkRemotePci != null) {
          status = (int) nvlinkRemotePci.invokeExact(device, link, pci);
          check(status, "nvmlDeviceGetNvLinkRemotePciInfo_v2", uuid, "link " + link);
          toGpus.merge(sysfsBusId(pci.getString(PCI_BUS_ID_OFFSET)), 1, Integer::sum);
        }
      }
      return Optional.of(new NvLinks(links, active, toGpus, toSwitches));
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** NVML's {@code 00000000:07:00.0} in sysfs's spelling, {@code 0000:07:00.0}. */
  static String sysfsBusId(String nvml) {
    String lower = nvml.strip().toLowerCase(java.util.Locale.ROOT);
    return lower.matches("^[0-9a-f]{8}:.*") ? lower.substring(4) : lower;
  }

  /** NVML's driver version, as {@code nvmlSystemGetDriverVersion} gives it. */
  String version() {
    return version;
  }

  /** The sensor of one GPU; {@link NvmlUnavailableException} when NVML does not know the UUID. */
  ClockSensor sensorOf(String uuid) {
    Arena arena = Arena.ofAuto(); // lives while the sensor refers to its segments
    return new Sensor(handle(uuid, arena), arena);
  }

  /**
   * The energy sensor of one GPU, tried once: a GPU whose NVML answers NOT_SUPPORTED (older than Volta) gets a
   * sensor that says so. {@link NvmlUnavailableException} when NVML does not know the UUID.
   */
  EnergySensor energySensorOf(String uuid) {
    if (totalEnergy == null || powerUsage == null) {
      return EnergySensor.none("this NVML (driver " + version + ") has no nvmlDeviceGetTotalEnergyConsumption or"
          + " nvmlDeviceGetPowerUsage");
    }
    Arena arena = Arena.ofAuto(); // lives while the sensor refers to its segments
    EnergyReader reader = new EnergyReader(handle(uuid, arena), arena);
    try {
      reader.totalMillijoules();
      reader.powerMilliwatts();
    } catch (DeviceException e) {
      return EnergySensor.none("energy not read on this GPU: " + e.getMessage());
    }
    return reader;
  }

  /** What the energy and health readers share: one GPU's handle, and reading through this NVML. */
  private abstract class GpuReader {
    final MemorySegment device;

    GpuReader(MemorySegment device) {
      this.device = device;
    }

    public boolean reads() {
      return true;
    }

    public String note() {
      return source();
    }
  }

  /** One GPU's energy and power; its segments are reused, so it must stay on one thread (the device's worker). */
  private final class EnergyReader extends GpuReader implements EnergySensor {
    private final MemorySegment millijoules;
    private final MemorySegment milliwatts;
    /** One {@code nvmlFieldValue_t}; null once the instantaneous field has failed, and the average is read. */
    private MemorySegment field;

    EnergyReader(MemorySegment device, Arena arena) {
      super(device);
      millijoules = arena.allocate(LONG);
      milliwatts = arena.allocate(INT);
      field = fieldValues == null ? null : arena.allocate(FIELD_VALUE_BYTES, 8);
    }

    @Override
    public long totalMillijoules() {
      check(NativeCalls.status(() -> (int) totalEnergy.invokeExact(device, millijoules)),
          "nvmlDeviceGetTotalEnergyConsumption");
      return millijoules.get(LONG, 0); // unsigned 64 bits: reaching 2^63 mJ would take a 1 kW GPU 292 million years
    }

    @Override
    public long powerMilliwatts() {
      if (field != null) {
        long instant = instantMilliwatts();
        if (instant >= 0) {
          return instant;
        }
        field = null;
      }
      check(NativeCalls.status(() -> (int) powerUsage.invokeExact(device, milliwatts)), "nvmlDeviceGetPowerUsage");
      return Integer.toUnsignedLong(milliwatts.get(INT, 0));
    }

    private long instantMilliwatts() {
      return Nvml.this.instantMilliwatts(device, field);
    }
  }

  /** {@code nvmlMemoryErrorType_t} and {@code nvmlEccCounterType_t}. */
  static final int ECC_CORRECTED = 0;
  static final int ECC_UNCORRECTED = 1;
  static final int ECC_VOLATILE = 0;
  static final int ECC_AGGREGATE = 1;
  /** {@code nvmlPageRetirementCause_t}. */
  static final int RETIRED_MULTIPLE_SINGLE_BIT = 0;
  static final int RETIRED_DOUBLE_BIT = 1;
  /** {@code nvmlEventTypeXidCriticalError}. */
  static final long EVENT_XID_CRITICAL = 0x8L;
  private static final int ERROR_INSUFFICIENT_SIZE = 7;
  private static final int ERROR_TIMEOUT = 10;
  /** {@code nvmlEventData_t}: device, eventType, eventData (the XID), gpuInstanceId, computeInstanceId. */
  private static final long EVENT_DATA_BYTES = 32;
  private static final long EVENT_TYPE_OFFSET = 8;
  private static final long EVENT_DATA_OFFSET = 16;
  /** Events taken in one poll at most, so a GPU that floods events cannot hold its worker. */
  static final int MAX_EVENTS_PER_POLL = 256;

  /** The health sensor of one GPU; {@link NvmlUnavailableException} when NVML does not know the UUID. */
  HealthSensor healthSensorOf(String uuid) {
    Arena arena = Arena.ofAuto(); // lives while the sensor refers to its segments
    return new HealthReader(handle(uuid, arena), arena);
  }

  /** One GPU's health queries; its segments are reused, so it must stay on one thread (the device's worker). */
  private final class HealthReader extends GpuReader implements HealthSensor {
    private final MemorySegment count;
    private final MemorySegment[] words;

    HealthReader(MemorySegment device, Arena arena) {
      super(device);
      this.count = arena.allocate(LONG);
      this.words = new MemorySegment[] {arena.allocate(INT), arena.allocate(INT), arena.allocate(INT),
          arena.allocate(INT)};
    }

    @Override
    public HealthCounters read() {
      Long[] rows = remapped();
      return new HealthCounters(ecc(ECC_CORRECTED, ECC_VOLATILE), ecc(ECC_UNCORRECTED, ECC_VOLATILE),
          ecc(ECC_CORRECTED, ECC_AGGREGATE), ecc(ECC_UNCORRECTED, ECC_AGGREGATE), retired(RETIRED_MULTIPLE_SINGLE_BIT),
          retired(RETIRED_DOUBLE_BIT), flag(retiredPending), rows == null ? null : rows[0],
          rows == null ? null : rows[1], rows == null ? null : rows[2] != 0, rows == null ? null : rows[3] != 0,
          replays());
    }

    private Long ecc(int errorType, int counterType) {
      if (eccTotal == null) {
        return null;
      }
      int status = NativeCalls.status(() -> (int) eccTotal.invokeExact(device, errorType, counterType, count));
      return status == 0 ? count.get(LONG, 0) : null;
    }

    /** Pages retired for {@code cause}: asked with no buffer, NVML gives the count (INSUFFICIENT_SIZE if any). */
    private Long retired(int cause) {
      if (retiredPages == null) {
        return null;
      }
      words[0].set(INT, 0, 0);
      int status = NativeCalls.status(() -> (int) retiredPages.invokeExact(device, cause, words[0],
          MemorySegment.NULL));
      return status == 0 || status == ERROR_INSUFFICIENT_SIZE ? Integer.toUnsignedLong(words[0].get(INT, 0)) : null;
    }

    private Boolean flag(MethodHandle query) {
      if (query == null) {
        return null;
      }
      int status = NativeCalls.status(() -> (int) query.invokeExact(device, words[0]));
      return status == 0 ? words[0].get(INT, 0) != 0 : null;
    }

    /** Correctable rows, uncorrectable rows, pending, failure; null where not read. */
    private Long[] remapped() {
      if (remappedRows == null) {
        return null;
      }
      int status = NativeCalls.status(() -> (int) remappedRows.invokeExact(device, words[0], words[1], words[2],
          words[3]));
      if (status != 0) {
        return null;
      }
      Long[] values = new Long[4];
      for (int i = 0; i < 4; i++) {
        values[i] = Integer.toUnsignedLong(words[i].get(INT, 0));
      }
      return values;
    }

    private Long replays() {
      if (pcieReplays == null) {
        return null;
      }
      return NativeCalls.status(() -> (int) pcieReplays.invokeExact(device, words[0])) == 0
          ? Integer.toUnsignedLong(words[0].get(INT, 0)) : null;
    }

    @Override
    public XidWatch watchXids() {
      if (eventSetCreate == null || registerEvents == null || eventSetWait == null || eventSetFree == null) {
        return HealthSensor.NOT_WATCHING;
      }
      Arena arena = Arena.ofConfined();
      try {
        MemorySegment slot = arena.allocate(POINTER);
        if ((int) eventSetCreate.invokeExact(slot) != 0) {
          arena.close();
          return HealthSensor.NOT_WATCHING;
        }
        MemorySegment set = slot.get(POINTER, 0);
        int status = (int) registerEvents.invokeExact(device, EVENT_XID_CRITICAL, set);
        if (status != 0) {
          LOG.info("XID events not watched: nvmlDeviceRegisterEvents failed: {}", error(status));
          int ignored = (int) eventSetFree.invokeExact(set);
          arena.close();
          return HealthSensor.NOT_WATCHING;
        }
        return new Xids(set, arena);
      } catch (Throwable t) {
        arena.close();
        throw rethrow(t);
      }
    }
  }

  /** One registered event set, polled with a zero timeout so the worker never waits on it. */
  private final class Xids implements HealthSensor.XidWatch {
    private final MemorySegment set;
    private final MemorySegment data;
    private final Arena arena;
    private boolean closed;

    Xids(MemorySegment set, Arena arena) {
      this.set = set;
      this.data = arena.allocate(EVENT_DATA_BYTES, 8);
      this.arena = arena;
    }

    @Override
    public boolean watching() {
      return true;
    }

    @Override
    public java.util.List<Long> poll() {
      java.util.List<Long> xids = new java.util.ArrayList<>();
      for (int i = 0; i < MAX_EVENTS_PER_POLL && !closed; i++) {
        int status = NativeCalls.status(() -> (int) eventSetWait.invokeExact(set, data, 0));
        if (status == ERROR_TIMEOUT) {
          break;
        }
        if (status != 0) {
          LOG.warn("nvmlEventSetWait_v2 failed: {}; XID events after this are not seen", error(status));
          break;
        }
        if ((data.get(LONG, EVENT_TYPE_OFFSET) & EVENT_XID_CRITICAL) != 0) {
          xids.add(data.get(LONG, EVENT_DATA_OFFSET));
        }
      }
      return xids;
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        try {
          int ignored = (int) eventSetFree.invokeExact(set);
        } catch (Throwable t) {
          throw rethrow(t);
        } finally {
          arena.close();
        }
      }
    }
  }

  /** {@code nvmlFieldValue_t}: fieldId, scopeId, timestamp, latencyUsec, valueType, nvmlReturn, then the value. */
  private static final long FIELD_VALUE_BYTES = 40;
  private static final long FIELD_RETURN_OFFSET = 28;
  private static final long FIELD_VALUE_OFFSET = 32;
  /** {@code NVML_FI_DEV_POWER_INSTANT}: the power now, in milliwatts (an unsigned int value). */
  static final int FIELD_POWER_INSTANT = 186;

  /** The instantaneous power in milliwatts through one field value; -1 where this driver or GPU does not give it. */
  private long instantMilliwatts(MemorySegment device, MemorySegment field) {
    field.fill((byte) 0);
    field.set(INT, 0, FIELD_POWER_INSTANT);
    int status = NativeCalls.status(() -> (int) fieldValues.invokeExact(device, 1, field));
    if (status != 0 || field.get(INT, FIELD_RETURN_OFFSET) != 0) {
      return -1;
    }
    return Integer.toUnsignedLong(field.get(INT, FIELD_VALUE_OFFSET));
  }

  /** One GPU's readings; its segments are reused, so it must stay on one thread (the device's worker). */
  private final class Sensor implements ClockSensor {
    private final MemorySegment device;
    private final MemorySegment clock;
    private final MemorySegment mask;

    Sensor(MemorySegment device, Arena arena) {
      this.device = device;
      clock = arena.allocate(INT);
      mask = arena.allocate(LONG);
    }

    @Override
    public Clocks.Reading availability() {
      return Clocks.Reading.READ;
    }

    @Override
    public String note() {
      return source();
    }

    @Override
    public Reading read() {
      int sm = clock(CLOCK_SM, "NVML_CLOCK_SM");
      int mem = clock(CLOCK_MEM, "NVML_CLOCK_MEM");
      int status = NativeCalls.status(() -> (int) reasons.invokeExact(device, mask));
      check(status, "nvmlDeviceGetCurrentClocksEventReasons");
      return new Reading(sm, mem, mask.get(LONG, 0));
    }

    private int clock(int type, String name) {
      int status = NativeCalls.status(() -> (int) clockInfo.invokeExact(device, type, clock));
      check(status, "nvmlDeviceGetClockInfo", name);
      return clock.get(INT, 0);
    }
  }

  /**
   * The handle of the GPU with CUDA UUID {@code uuid}, its slot in {@code arena};
   * {@link NvmlUnavailableException} when NVML does not know the UUID.
   */
  private MemorySegment handle(String uuid, Arena arena) {
    MemorySegment slot = arena.allocate(POINTER);
    int status = NativeCalls.status(() -> (int) handleByUuid.invokeExact(arena.allocateFrom(uuid), slot));
    if (status != 0) {
      throw new NvmlUnavailableException("nvmlDeviceGetHandleByUUID(" + uuid + ") failed: " + error(status));
    }
    return slot.get(POINTER, 0);
  }

  /** What every sensor here says it reads through. */
  private String source() {
    return "NVML, driver " + version;
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

  private static MethodHandle optional(Linker linker, SymbolLookup symbols, String name,
      FunctionDescriptor descriptor) {
    return symbols.find(name).map(symbol -> linker.downcallHandle(symbol, descriptor)).orElse(null);
  }

  private static MethodHandle downcall(Linker linker, SymbolLookup symbols, String name, FunctionDescriptor descriptor) {
    return NativeCalls.downcall(linker, symbols, name, descriptor,
        missing -> new NvmlUnavailableException("NVML has no symbol " + missing));
  }

  private static RuntimeException rethrow(Throwable t) {
    return NativeCalls.rethrow(t);
  }
}
