package io.busload.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A {@link KernelResult} as the cells of one CSV row, by column name: what the agent's {@code --format csv} and the
 * coordinator's CSV export write, and what the coordinator reads back when such a file is pushed. One
 * definition, so that what one side writes the other reads.
 *
 * <p>Columns are found by name: a reader takes them in any order and skips those it does not know (the agent's
 * {@code fractionOfCeiling} and {@code fractionOfPeak} are derived, not read back). {@link #SUMMARY} are the columns
 * results CSV always had; {@link #CARRIED} follow, so that a row holds everything its JSON does: the
 * device fingerprint, the environment (driver, agent version, fatbin hash; clocks are in {@code method}) and every
 * sample. Units are SI, as in the record. Lists and objects that CSV has no shape for are one cell each: samples
 * separated by {@code ;}, mismatches as a JSON array, counters as a JSON object (empty: none).
 */
public final class ResultCsv {
  /** The columns of every results CSV so far, in their order; {@code samples} is the number of samples. */
  public static final List<String> SUMMARY = List.of("id", "sweepId", "runId", "measuredAt", "deviceId", "deviceName",
      "kernel", "params", "valid", "medianSeconds", "minSeconds", "maxSeconds", "relativeSpread", "samples", "bytes",
      "bandwidth");
  /** How each sample was timed, and how: the agent's CSV has had these after {@link #SUMMARY}. */
  public static final List<String> METHOD = List.of("launchesPerSample", "method");
  /** The rest of the record, after whatever columns a writer had before. */
  public static final List<String> CARRIED = List.of("schemaVersion", "suite", "agentId", "agentVersion",
      "fatbinHash", "deviceKind", "deviceUuid", "deviceComputeCapability", "deviceMultiprocessors", "deviceL2Bytes",
      "deviceMemoryBytes", "deviceMemoryClockHz", "deviceBusWidthBits", "deviceTheoreticalPeak",
      "deviceDriverVersion", "deviceFingerprint", "warmupLaunches", "bytesRead", "bytesWritten", "sampleSeconds",
      "mismatches", "counters");
  /**
   * How the result was measured, as typed fields, after {@link #CARRIED}: its status, the samples held,
   * unheld and re-timed, the stopping reason, the clocks and throttle reasons read during sampling and the samples
   * dropped for throttling, the working set against L2, and the other devices measuring meanwhile. Empty cells where
   * nothing was timed or nothing read.
   */
  public static final List<String> SAMPLING = List.of("status", "heldSamples", "unheldSamples", "retimedSamples",
      "stopReason", "clocksReading", "clocksNote", "smClockMinMHz", "smClockMaxMHz", "memClockMinMHz",
      "memClockMaxMHz", "throttleReasons", "throttledSamplesDropped", "tooFewCleanSamples", "cacheResidency",
      "workingSetBytes", "othersBusy");
  /**
   * What the case drew ({@link Energy}), after {@link #SAMPLING}: {@code energy} is {@code read} or {@code not read},
   * the figures are empty when not read (never 0), and two derived columns, joules per useful GB and GB/s per watt,
   * that a reader recomputes rather than reads back.
   */
  public static final List<String> ENERGY = List.of("energy", "energyJoules", "energyAverageWatts",
      "energyIdleWatts", "energyWindowSeconds", "energyLaunches", "energyCounterSteps", "joulesPerGigabyte",
      "gigabytesPerSecondPerWatt");
  /**
   * What NVML said of the GPU's health ({@link Health}), after {@link #ENERGY}: {@code health} is {@code read} or
   * {@code not read}; the counters when the run began and after the case are JSON objects whose absent (null) fields
   * were not read; {@code xidEvents} is a JSON array of XID numbers, empty cell where XID events were not watched.
   */
  public static final List<String> HEALTH = List.of("health", "healthAtRunStart", "healthAfterCase", "xidEvents",
      "healthNote");
  /** The {@code energy} cell of a result whose energy was not read. */
  public static final String NOT_READ = "not read";

  /**
   * Columns a reader may go without: the sample count and the fingerprint (both derived, checked when present), the
   * counters (a result that was not profiled has none) and {@link #SAMPLING} (files written by agents that did not
   * record how a result was measured).
   */
  public static final List<String> OPTIONAL = optional();

  private static List<String> optional() {
    List<String> optional = new ArrayList<>(List.of("samples", "deviceFingerprint", "counters"));
    optional.addAll(SAMPLING);
    optional.addAll(ENERGY);
    optional.addAll(HEALTH);
    return List.copyOf(optional);
  }

  private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {};
  private static final Pattern WHOLE = Pattern.compile("-?\\d{1,18}");

  private ResultCsv() {}

  /** The columns a results CSV must have to be read back into results. */
  public static List<String> required() {
    List<String> all = new ArrayList<>(SUMMARY);
    all.addAll(METHOD);
    all.addAll(CARRIED);
    all.removeAll(OPTIONAL);
    return all;
  }

  /** The cell of {@code column} for {@code r}: null for an empty cell; writers format the rest with toString. */
  public static Object value(String column, KernelResult r) {
    DeviceInfo d = r.device();
    return switch (column) {
      case "id" -> r.id();
      case "sweepId" -> r.sweepId();
      case "runId" -> r.runId();
      case "measuredAt" -> r.measuredAt();
      case "deviceId" -> d.id();
      case "deviceName" -> d.name();
      case "kernel" -> r.kernel();
      case "params" -> params(r.params());
      case "valid" -> r.valid();
      case "medianSeconds" -> r.medianSeconds();
      case "minSeconds" -> r.minSeconds();
      case "maxSeconds" -> r.maxSeconds();
      case "relativeSpread" -> r.relativeSpread();
      case "samples" -> r.samples().size();
      case "bytes" -> r.bytes();
      case "bandwidth" -> r.bandwidth();
      case "launchesPerSample" -> r.launchesPerSample();
      case "method" -> r.method();
      case "schemaVersion" -> r.schemaVersion();
      case "suite" -> r.suite();
      case "agentId" -> r.agentId();
      case "agentVersion" -> r.agentVersion();
      case "fatbinHash" -> r.fatbinHash();
      case "deviceKind" -> d.kind();
      case "deviceUuid" -> d.uuid();
      case "deviceComputeCapability" -> d.computeCapability();
      case "deviceMultiprocessors" -> d.multiprocessors();
      case "deviceL2Bytes" -> d.l2Bytes();
      case "deviceMemoryBytes" -> d.memoryBytes();
      case "deviceMemoryClockHz" -> d.memoryClockHz();
      case "deviceBusWidthBits" -> d.busWidthBits();
      case "deviceTheoreticalPeak" -> d.theoreticalPeakBytesPerSecond();
      case "deviceDriverVersion" -> d.driverVersion();
      case "deviceFingerprint" -> d.fingerprint();
      case "warmupLaunches" -> r.warmupLaunches();
      case "bytesRead" -> r.bytesRead();
      case "bytesWritten" -> r.bytesWritten();
      case "sampleSeconds" -> r.samples().stream().map(String::valueOf).collect(Collectors.joining(";"));
      case "mismatches" -> r.mismatches().isEmpty() ? null : new String(JsonCodec.toJson(r.mismatches()),
          java.nio.charset.StandardCharsets.UTF_8);
      case "counters" -> r.counters() == null ? null
          : new String(JsonCodec.toJson(r.counters()), java.nio.charset.StandardCharsets.UTF_8);
      case "status" -> r.status();
      default -> ENERGY.contains(column) ? energy(column, r)
          : HEALTH.contains(column) ? health(column, r.health()) : sampling(column, r.sampling());
    };
  }

  /** A {@link #HEALTH} cell: {@code not read} in {@code health} and empty cells where it was not read. */
  private static Object health(String column, Health h) {
    if (column.equals("health")) {
      return h == null ? NOT_READ : "read";
    }
    if (h == null) {
      return null;
    }
    return switch (column) {
      case "healthAtRunStart" -> json(h.atRunStart());
      case "healthAfterCase" -> json(h.afterCase());
      case "xidEvents" -> h.xids() == null ? null : json(h.xids());
      case "healthNote" -> h.note();
      default -> throw new IllegalArgumentException("no results column '" + column + "'");
    };
  }

  private static String json(Object value) {
    return new String(JsonCodec.toJson(value), java.nio.charset.StandardCharsets.UTF_8);
  }

  /** An {@link #ENERGY} cell: {@code not read} in {@code energy} and empty figures where none was read. */
  private static Object energy(String column, KernelResult r) {
    Energy e = r.energy();
    if (column.equals("energy")) {
      return e == null ? NOT_READ : "read";
    }
    if (e == null) {
      return null;
    }
    return switch (column) {
      case "energyJoules" -> e.joules();
      case "energyAverageWatts" -> e.averageWatts();
      case "energyIdleWatts" -> e.idleWatts();
      case "energyWindowSeconds" -> e.windowSeconds();
      case "energyLaunches" -> e.launches();
      case "energyCounterSteps" -> e.counterSteps();
      case "joulesPerGigabyte" -> e.joulesPerGigabyte(r.bytes());
      case "gigabytesPerSecondPerWatt" -> e.gigabytesPerSecondPerWatt(r.bandwidth());
      default -> throw new IllegalArgumentException("no results column '" + column + "'");
    };
  }

  /** A {@link #SAMPLING} cell: null (empty) when the result was not timed or the figure not read. */
  private static Object sampling(String column, Sampling s) {
    if (!SAMPLING.contains(column)) {
      throw new IllegalArgumentException("no results column '" + column + "'");
    }
    if (s == null) {
      return null;
    }
    Clocks c = s.clocks();
    return switch (column) {
      case "heldSamples" -> s.heldSamples();
      case "unheldSamples" -> s.unheldSamples();
      case "retimedSamples" -> s.retimedSamples();
      case "stopReason" -> s.stopReason();
      case "clocksReading" -> c.reading();
      case "clocksNote" -> c.note();
      case "smClockMinMHz" -> c.smMinMHz();
      case "smClockMaxMHz" -> c.smMaxMHz();
      case "memClockMinMHz" -> c.memMinMHz();
      case "memClockMaxMHz" -> c.memMaxMHz();
      case "throttleReasons" -> c.throttleReasons() == null ? null : "0x" + Long.toHexString(c.throttleReasons());
      case "throttledSamplesDropped" -> c.throttledSamplesDropped();
      case "tooFewCleanSamples" -> c.tooFewCleanSamples();
      case "cacheResidency" -> s.cache().residency();
      case "workingSetBytes" -> s.cache().workingSetBytes();
      case "othersBusy" -> s.othersBusy().isEmpty() ? null : String.join(";", s.othersBusy());
      default -> throw new IllegalArgumentException("no results column '" + column + "'");
    };
  }

  /**
   * The column that holds a field of the record, named as {@code KernelResult}'s JSON names it ({@code device.name},
   * {@code params.stride}, {@code samples}): how a reader names the column a problem with a field lies in.
   */
  public static String column(String field) {
    String top = field.contains(".") ? field.substring(0, field.indexOf('.')) : field;
    return switch (top) {
      case "device" -> switch (field) {
        case "device.id" -> "deviceId";
        case "device.name" -> "deviceName";
        case "device.theoreticalPeakBytesPerSecond" -> "deviceTheoreticalPeak";
        default -> field.length() > "device.".length()
            ? "device" + Character.toUpperCase(field.charAt(7)) + field.substring(8) : "deviceId";
      };
      case "samples" -> "sampleSeconds";
      case "params", "counters", "mismatches", "status" -> top;
      case "sampling" -> sampling(field);
      default -> field.replaceAll("\\[\\d+\\]$", "");
    };
  }

  /** The {@link #SAMPLING} column of a {@code sampling.*} field; the stop reason's when the field is the whole. */
  private static String sampling(String field) {
    String leaf = field.substring(field.lastIndexOf('.') + 1).replaceAll("\\[\\d+\\]$", "");
    return switch (leaf) {
      case "heldSamples", "unheldSamples", "retimedSamples", "stopReason", "throttleReasons",
          "throttledSamplesDropped", "tooFewCleanSamples", "workingSetBytes", "othersBusy" -> leaf;
      case "reading" -> "clocksReading";
      case "note" -> "clocksNote";
      case "smMinMHz" -> "smClockMinMHz";
      case "smMaxMHz" -> "smClockMaxMHz";
      case "memMinMHz" -> "memClockMinMHz";
      case "memMaxMHz" -> "memClockMaxMHz";
      case "residency", "cache" -> "cacheResidency";
      default -> "stopReason";
    };
  }

  /** A kernel's parameters as one text, {@code size=1024;stride=4}, sorted by name. */
  public static String params(Map<String, Object> params) {
    return new TreeMap<>(params).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(";"));
  }

  /** One row's cells by column name; null where the file has no such column, "" for an empty cell. */
  @FunctionalInterface
  public interface Cells {
    String get(String column);
  }

  /** A cell that cannot be what its column holds; {@link #column()} names it. */
  public static final class BadCell extends IllegalArgumentException {
    private final String column;

    public BadCell(String column, String detail) {
      super(column + ": " + detail, null);
      this.column = column;
    }

    public String column() {
      return column;
    }
  }

  /**
   * The result one row holds. Reads each cell into its field and checks what the row states twice (the sample count
   * against the samples, the fingerprint against the device); whether the result is one to store is for the
   * reader's own checks. Throws {@link BadCell} naming the first column that cannot be read.
   */
  public static KernelResult read(Cells cells) {
    List<Double> samples = doubles(cells, "sampleSeconds");
    String count = cells.get("samples");
    if (count != null && !count.isEmpty() && integer(cells, "samples") != samples.size()) {
      throw new BadCell("samples", "says " + count + " samples but sampleSeconds holds " + samples.size());
    }
    DeviceInfo device = new DeviceInfo(text(cells, "deviceId"), text(cells, "deviceKind"), text(cells, "deviceName"),
        text(cells, "deviceUuid"), text(cells, "deviceComputeCapability"), integer(cells, "deviceMultiprocessors"),
        whole(cells, "deviceL2Bytes"), whole(cells, "deviceMemoryBytes"), whole(cells, "deviceMemoryClockHz"),
        integer(cells, "deviceBusWidthBits"), real(cells, "deviceTheoreticalPeak"), text(cells, "deviceDriverVersion"));
    String fingerprint = cells.get("deviceFingerprint");
    if (fingerprint != null && !fingerprint.isEmpty() && !fingerprint.equals(device.fingerprint())) {
      throw new BadCell("deviceFingerprint", "'" + fingerprint + "' is not the fingerprint of the device columns ("
          + device.fingerprint() + "): the row's device was changed after it was measured");
    }
    String bandwidth = cell(cells, "bandwidth");
    ResultStatus status = status(cells);
    Sampling sampling = sampling(cells, device);
    try {
      return KernelResult.builder().schemaVersion(integer(cells, "schemaVersion")).id(uuid(cells, "id"))
          .runId(text(cells, "runId")).sweepId(text(cells, "sweepId")).agentId(text(cells, "agentId"))
          .agentVersion(text(cells, "agentVersion")).fatbinHash(text(cells, "fatbinHash")).device(device)
          .suite(text(cells, "suite")).kernel(text(cells, "kernel")).params(params(cells, "params"))
          .valid(bool(cells, "valid")).mismatches(strings(cells, "mismatches"))
          .medianSeconds(real(cells, "medianSeconds")).minSeconds(real(cells, "minSeconds"))
          .maxSeconds(real(cells, "maxSeconds")).relativeSpread(real(cells, "relativeSpread")).samples(samples)
          .launchesPerSample(integer(cells, "launchesPerSample")).warmupLaunches(integer(cells, "warmupLaunches"))
          .bytesRead(whole(cells, "bytesRead")).bytesWritten(whole(cells, "bytesWritten"))
          .bytes(whole(cells, "bytes")).bandwidth(bandwidth.isEmpty() ? null : real(cells, "bandwidth"))
          .method(text(cells, "method")).measuredAt(instant(cells, "measuredAt"))
          .counters(counters(cells, "counters")).status(status).sampling(sampling).energy(energy(cells))
          .health(health(cells)).build();
    } catch (IllegalArgumentException e) {
      throw e instanceof BadCell ? e : new BadCell("status", e.getMessage().replaceFirst("^status: ", ""));
    }
  }

  /** Empty or absent (a file without sampling columns): null, and the record derives it. */
  private static ResultStatus status(Cells cells) {
    String value = cell(cells, "status").strip();
    return value.isEmpty() ? null : constant(ResultStatus.class, "status", value);
  }

  /** The {@link #SAMPLING} columns, or null when the row has none (not timed, or a file without sampling columns). */
  private static Sampling sampling(Cells cells, DeviceInfo device) {
    if (cell(cells, "stopReason").isBlank()) {
      return null;
    }
    Clocks clocks;
    try {
      clocks = new Clocks(constant(Clocks.Reading.class, "clocksReading", required(cells, "clocksReading")),
        text(cells, "clocksNote"), optionalInteger(cells, "smClockMinMHz"), optionalInteger(cells, "smClockMaxMHz"),
        optionalInteger(cells, "memClockMinMHz"), optionalInteger(cells, "memClockMaxMHz"),
        cell(cells, "throttleReasons").isBlank() ? null
            : parsed(cells, "throttleReasons", Long::decode, "not a hexadecimal mask such as 0x4"),
        integer(cells, "throttledSamplesDropped"), bool(cells, "tooFewCleanSamples"));
    } catch (IllegalArgumentException e) {
      throw e instanceof BadCell ? e : new BadCell("clocksReading", e.getMessage());
    }
    CacheResidency cache = new CacheResidency(constant(CacheResidency.Residency.class, "cacheResidency",
        required(cells, "cacheResidency")), whole(cells, "workingSetBytes"), device.l2Bytes());
    try {
      return new Sampling(integer(cells, "heldSamples"), integer(cells, "unheldSamples"),
          integer(cells, "retimedSamples"), constant(StopReason.class, "stopReason", required(cells, "stopReason")),
          clocks, cache, cell(cells, "othersBusy").isBlank() ? List.of()
              : List.of(cell(cells, "othersBusy").strip().split("\\s*;\\s*")));
    } catch (IllegalArgumentException e) {
      throw e instanceof BadCell ? e : new BadCell("stopReason", e.getMessage());
    }
  }

  /** The {@link #ENERGY} columns, or null when the row has none or says {@code not read}. */
  private static Energy energy(Cells cells) {
    if (cell(cells, "energyJoules").isBlank()) {
      return null;
    }
    try {
      return new Energy(real(cells, "energyJoules"), real(cells, "energyAverageWatts"),
          cell(cells, "energyIdleWatts").isBlank() ? null : real(cells, "energyIdleWatts"),
          real(cells, "energyWindowSeconds"), whole(cells, "energyLaunches"), integer(cells, "energyCounterSteps"));
    } catch (IllegalArgumentException e) {
      throw e instanceof BadCell ? e : new BadCell("energyJoules", e.getMessage());
    }
  }

  /** The {@link #HEALTH} columns, or null when the row has none or says {@code not read}. */
  private static Health health(Cells cells) {
    if (cell(cells, "healthAtRunStart").isBlank()) {
      return null;
    }
    HealthCounters start = healthCounters(cells, "healthAtRunStart");
    HealthCounters after = healthCounters(cells, "healthAfterCase");
    List<Long> xids = null;
    if (!cell(cells, "xidEvents").isBlank()) {
      try {
        xids = JsonCodec.MAPPER.readValue(cell(cells, "xidEvents"), new TypeReference<List<Long>>() {});
      } catch (JsonProcessingException e) {
        throw new BadCell("xidEvents", "not a JSON array of XID numbers: " + e.getOriginalMessage());
      }
    }
    return new Health(start, after, xids, cell(cells, "healthNote"));
  }

  private static HealthCounters healthCounters(Cells cells, String column) {
    String value = cell(cells, column);
    if (value.isBlank()) {
      throw new BadCell(column, "missing: a row with health counters has them at run start and after the case");
    }
    try {
      return JsonCodec.MAPPER.readValue(value, HealthCounters.class);
    } catch (JsonProcessingException e) {
      throw new BadCell(column, "not a JSON object of health counters: " + e.getOriginalMessage());
    }
  }

  private static Integer optionalInteger(Cells cells, String column) {
    return cell(cells, column).isBlank() ? null : integer(cells, column);
  }

  private static <E extends Enum<E>> E constant(Class<E> type, String column, String value) {
    try {
      return Enum.valueOf(type, value.strip());
    } catch (IllegalArgumentException e) {
      throw new BadCell(column, "not one of " + java.util.Arrays.toString(type.getEnumConstants()) + ": '"
          + shorten(value) + "'");
    }
  }

  private static String cell(Cells cells, String column) {
    String value = cells.get(column);
    if (value == null) {
      if (OPTIONAL.contains(column)) {
        return "";
      }
      throw new BadCell(column, "no such column in the file");
    }
    return value;
  }

  /** Empty is null: writers write null as an empty cell. */
  private static String text(Cells cells, String column) {
    String value = cell(cells, column);
    return value.isEmpty() ? null : value;
  }

  private static String required(Cells cells, String column) {
    String value = cell(cells, column);
    if (value.isBlank()) {
      throw new BadCell(column, "empty");
    }
    return value.strip();
  }

  private static UUID uuid(Cells cells, String column) {
    return parsed(cells, column, UUID::fromString, "not a result id (UUID)");
  }

  private static int integer(Cells cells, String column) {
    return parsed(cells, column, Integer::parseInt, "not a whole number");
  }

  private static long whole(Cells cells, String column) {
    return parsed(cells, column, Long::parseLong, "not a whole number");
  }

  private static double real(Cells cells, String column) {
    return parsed(cells, column, Double::parseDouble, "not a number");
  }

  /** A required cell read by {@code parse}; what it is not, when it cannot be read, with the cell quoted. */
  private static <T> T parsed(Cells cells, String column, java.util.function.Function<String, T> parse, String not) {
    String value = required(cells, column);
    try {
      return parse.apply(value);
    } catch (IllegalArgumentException | DateTimeParseException e) { // NumberFormatException is one
      throw new BadCell(column, not + ": '" + shorten(value) + "'");
    }
  }

  private static boolean bool(Cells cells, String column) {
    String value = required(cells, column);
    return switch (value) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new BadCell(column, "not true or false: '" + shorten(value) + "'");
    };
  }

  private static Instant instant(Cells cells, String column) {
    return parsed(cells, column, Instant::parse, "not an ISO-8601 instant such as 2026-11-22T01:00:00Z");
  }

  private static List<Double> doubles(Cells cells, String column) {
    String value = cell(cells, column).strip();
    List<Double> values = new ArrayList<>();
    if (value.isEmpty()) {
      return values;
    }
    for (String part : value.split(";", -1)) {
      try {
        values.add(Double.parseDouble(part.strip()));
      } catch (NumberFormatException e) {
        throw new BadCell(column, "sample " + (values.size() + 1) + " is not a number: '" + shorten(part) + "'");
      }
    }
    return values;
  }

  /**
   * {@code size=1024;stride=4}: whole numbers read as numbers, true and false as booleans, anything else as text,
   * which is how the catalog's parameters are typed.
   */
  private static Map<String, Object> params(Cells cells, String column) {
    String value = cell(cells, column);
    Map<String, Object> params = new LinkedHashMap<>();
    if (value.isEmpty()) {
      return params;
    }
    for (String pair : value.split(";", -1)) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new BadCell(column, "not name=value: '" + shorten(pair) + "'");
      }
      String name = pair.substring(0, eq);
      String raw = pair.substring(eq + 1);
      if (params.put(name, param(raw)) != null) {
        throw new BadCell(column, "'" + shorten(name) + "' given twice");
      }
    }
    return params;
  }

  private static Object param(String raw) {
    if (WHOLE.matcher(raw).matches()) {
      return Long.parseLong(raw);
    }
    if (raw.equals("true") || raw.equals("false")) {
      return Boolean.parseBoolean(raw);
    }
    if (!raw.isEmpty() && (Character.isDigit(raw.charAt(0)) || raw.charAt(0) == '-' || raw.charAt(0) == '.')) {
      try {
        double d = Double.parseDouble(raw);
        if (Double.isFinite(d)) {
          return d;
        }
      } catch (NumberFormatException e) {
        // text that starts like a number: kept as text
      }
    }
    return raw;
  }

  private static List<String> strings(Cells cells, String column) {
    String value = cell(cells, column);
    if (value.isBlank()) {
      return List.of();
    }
    try {
      List<String> list = JsonCodec.MAPPER.readValue(value, STRINGS);
      if (list == null || list.contains(null)) {
        throw new BadCell(column, "a JSON array of texts, without nulls");
      }
      return list;
    } catch (JsonProcessingException e) {
      throw new BadCell(column, "not a JSON array of texts: " + e.getOriginalMessage());
    }
  }

  private static Counters counters(Cells cells, String column) {
    String value = cell(cells, column);
    if (value.isBlank()) {
      return null;
    }
    try {
      return JsonCodec.MAPPER.readValue(value, Counters.class);
    } catch (JsonProcessingException e) {
      throw new BadCell(column, "not a JSON object of counters: " + e.getOriginalMessage());
    }
  }

  /** A cell quoted in a message is cut short: a row may be long, and the message says where to look anyway. */
  private static String shorten(String value) {
    return value.length() > 60 ? value.substring(0, 60) + "..." : value;
  }
}
