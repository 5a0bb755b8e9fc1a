package io.busload.coordinator.push;

import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Hashes;
import io.busload.protocol.KernelResult;
import io.busload.protocol.MeasuredBy;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What BabelStream's CUDA model prints with {@code --csv}, read into results of the suite {@value #SUITE}: the lines
 * its CUDA stream prints about the device ({@code CUDA Driver: 13000}, {@code CUDA Device 0: "NVIDIA H100 80GB
 * HBM3" 132 SMs(9,0) Memory: 2619 MHz x 5120-bit ...}), then the CSV of one row per kernel.
 *
 * <p>BabelStream prints its rows only after its own check of the arrays passed (it exits before them otherwise), so
 * every row is a checked result. The CSV carries no samples, only the minimum, maximum and mean of the timed runs
 * (the first of {@code num_times} dropped): the mean becomes the result's centre, named as such in {@link MeasuredBy},
 * and the tool's own figure, its bytes over the minimum time, is checked against the bytes counted here, so that a
 * byte model that differs from the tool's is refused rather than stored.
 */
final class BabelStreamOutput {
  static final String TOOL = "BabelStream";
  static final String SUITE = "babelstream";
  static final String HEADER_START = "function,num_times,n_elements,sizeof,";
  private static final String CHECK = "BabelStream's check_solution: every element of a, b and c within 100 ulp of"
      + " the value the kernels imply (the dot product within 1e7 ulp); the tool prints no rows when it fails";
  private static final Pattern DEVICE = Pattern.compile("^CUDA Device (\\d+): \"([^\"]+)\" (\\d+)"
      + " SMs\\((\\d+),(\\d+)\\) Memory: (\\d+) MHz x (\\d+)-bit");
  private static final Pattern DRIVER = Pattern.compile("^CUDA Driver: (\\d+)$");
  private static final Pattern VERSION = Pattern.compile("^Version: (\\S+)$");
  /** A version as tools print them ("5.0", "v5.0-rc1+cuda"): it is shown in views and logs, so nothing else. */
  private static final Pattern VERSION_TEXT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._+-]{0,99}");
  private static final List<String> COLUMNS_AFTER_UNIT = List.of("min_runtime", "max_runtime", "avg_runtime");
  /** Bytes one launch reads and writes, in arrays of {@code n_elements}, as BabelStream's weights count them. */
  private static final Map<String, int[]> ARRAYS = Map.of(
      "Copy", new int[] {1, 1}, "Mul", new int[] {1, 1}, "Add", new int[] {2, 1}, "Triad", new int[] {2, 1},
      "Dot", new int[] {2, 0}, "Nstream", new int[] {3, 1});

  private BabelStreamOutput() {}

  /** Whether {@code text} is BabelStream's CSV output: a line of it starts its header. */
  static boolean is(String text) {
    return text.lines().limit(200).anyMatch(line -> line.startsWith(HEADER_START));
  }

  /** The results of {@code text}, one per kernel row, for a push from {@code context}'s host at its time. */
  static Read read(byte[] body, String text, PushedFile.Context context) {
    String[] lines = text.split("\r?\n", -1);
    String version = context.toolVersion();
    String driver = null;
    DeviceInfo device = null;
    int header = -1;
    for (int i = 0; i < lines.length && header < 0; i++) {
      String line = lines[i].strip();
      Matcher m;
      if ((m = VERSION.matcher(line)).matches() && version == null) {
        version = m.group(1);
      } else if ((m = DRIVER.matcher(line)).matches()) {
        int n = Integer.parseInt(m.group(1));
        driver = (n / 1000) + "." + (n % 1000) / 10;
      } else if ((m = DEVICE.matcher(line)).find()) {
        if (context.host() == null) {
          throw PushRefused.badRow(i + 1, "host", null, "a BabelStream file names no host: push it with"
              + " ./busload push, which names this one, or --host");
        }
        long clockHz = Long.parseLong(m.group(6)) * 1_000_000L;
        int bus = Integer.parseInt(m.group(7));
        device = new DeviceInfo(context.host() + "/cuda:" + m.group(1), DeviceInfo.CUDA, m.group(2), null,
            m.group(4) + "." + m.group(5), Integer.parseInt(m.group(3)), 0, 0, clockHz, bus,
            2.0 * clockHz * bus / 8, driver);
      } else if (line.startsWith(HEADER_START)) {
        header = i;
      }
    }
    if (device == null) {
      throw PushRefused.badRow(1, "device", null, "BabelStream's output names no CUDA device (its line 'CUDA Device N:"
          + " \"NAME\" ... SMs(M,m) Memory: C MHz x B-bit'); only the CUDA model's output is read");
    }
    if (version == null) {
      throw PushRefused.badRow(1, "toolVersion", null, "BabelStream's CSV does not print its version: push with"
          + " --tool-version (the 'Version:' line of its output without --csv)");
    }
    if (!VERSION_TEXT.matcher(version).matches()) {
      throw PushRefused.badRow(1, "toolVersion", null, "a version of letters, digits and . _ + - (at most 100),"
          + " as the tool prints it; got '" + version.replaceAll("\\p{Cntrl}", "?") + "'");
    }
    if (context.measuredAt() == null) {
      throw PushRefused.badRow(1, "measuredAt", null, "BabelStream's output carries no time: push with ./busload push"
          + " (which sends the file's modification time) or --measured-at");
    }
    String[] names = lines[header].strip().split(",", -1);
    double unit = unit(names, header + 1);
    String digest = Hashes.sha256(body);
    List<PushedFile.Row> rows = new ArrayList<>();
    for (int i = header + 1; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty()) {
        continue;
      }
      String[] cells = line.split(",", -1);
      if (cells.length != names.length) {
        throw PushRefused.badRow(i + 1, null, null, cells.length + " of the header's " + names.length + " columns");
      }
      rows.add(new PushedFile.Row(i + 1, result(cells, names, i + 1, unit, device, version, digest, context),
          Map.of()));
    }
    if (rows.isEmpty()) {
      throw PushRefused.unreadable("BabelStream's header has no rows after it (truncated?)", header + 1);
    }
    return new Read(rows, new MeasuredBy(TOOL, version, MeasuredBy.MEAN, CHECK));
  }

  /** The rows, and the tool that measured them. */
  record Read(List<PushedFile.Row> rows, MeasuredBy measuredBy) {}

  private static KernelResult result(String[] cells, String[] names, int line, double unit, DeviceInfo device,
      String version, String digest, PushedFile.Context context) {
    String function = cells[0];
    int[] arrays = ARRAYS.get(function);
    if (arrays == null) {
      throw PushRefused.badRow(line, "function", null, "'" + function + "' is none of BabelStream's kernels "
          + ARRAYS.keySet().stream().sorted().toList());
    }
    long times = whole(cells[1], names[1], line);
    long elements = whole(cells[2], names[2], line);
    long size = whole(cells[3], names[3], line);
    double reported = number(cells[4], names[4], line);
    double min = number(cells[5], names[5], line);
    double max = number(cells[6], names[6], line);
    double mean = number(cells[7], names[7], line);
    if (times < 2 || elements < 1 || (size != 4 && size != 8) || min <= 0 || max < min || mean < min || mean > max) {
      throw PushRefused.badRow(line, null, null, "not a BabelStream result: num_times " + times + ", n_elements "
          + elements + ", sizeof " + size + ", runtimes min " + min + " max " + max + " mean " + mean);
    }
    long read = arrays[0] * elements * size;
    long written = arrays[1] * elements * size;
    long bytes = read + written;
    double ours = bytes / min / unit;
    if (Math.abs(ours - reported) > 1e-4 * reported) {
      throw PushRefused.badRow(line, names[4], null, String.format(Locale.ROOT, "the tool's %.6g does not match its"
          + " bytes over min_runtime (%.6g, %d bytes of %s): the byte count read here is not the tool's", reported,
          ours, bytes, function));
    }
    String type = size == 8 ? "fp64" : "fp32";
    String method = String.format(Locale.ROOT, "%s %s (CUDA model): %d runs of each kernel, the first dropped; the"
        + " mean of the other %d as the centre, with their min and max, as the tool prints them (no samples in its"
        + " CSV); bytes = useful read + written (%d arrays of %d x %d bytes: the tool's own count, its figure %.6g"
        + " %s/s over the min runtime matches); checked by the tool", TOOL, version, times, times - 1,
        arrays[0] + arrays[1], elements, size, reported, names[4].substring(4, names[4].length() - 8));
    UUID id = UUID.nameUUIDFromBytes(("busload push babelstream\n" + context.host() + "\n" + digest + "\n" + line)
        .getBytes(StandardCharsets.UTF_8));
    return KernelResult.builder().id(id).device(device).suite(SUITE)
        .kernel(SUITE + "-" + function.toLowerCase(Locale.ROOT))
        .params(Map.of("type", type, "elements", elements)).valid(true).medianSeconds(mean).minSeconds(min)
        .maxSeconds(max).relativeSpread((max - min) / mean).launchesPerSample(1).warmupLaunches(1).bytesRead(read)
        .bytesWritten(written).bytes(bytes).bandwidth(bytes / mean).method(method).measuredAt(context.measuredAt())
        .build();
  }

  /** Bytes in the unit of the header's {@code max_UNIT_per_sec} column (BabelStream prints MB unless told). */
  private static double unit(String[] names, int line) {
    if (names.length != 8 || !names[4].startsWith("max_") || !names[4].endsWith("_per_sec")
        || !List.of(names).subList(5, 8).equals(COLUMNS_AFTER_UNIT)) {
      throw PushRefused.unreadable("BabelStream's header is not 'function,num_times,n_elements,sizeof,"
          + "max_UNIT_per_sec,min_runtime,max_runtime,avg_runtime': " + String.join(",", names), line);
    }
    return switch (names[4].substring(4, names[4].length() - 8)) {
      case "MB" -> 1e6;
      case "GB" -> 1e9;
      case "MiB" -> 1 << 20;
      case "GiB" -> 1 << 30;
      default -> throw PushRefused.badRow(line, names[4], null, "a unit BabelStream does not print");
    };
  }

  private static long whole(String cell, String column, int line) {
    try {
      return Long.parseLong(cell.strip());
    } catch (NumberFormatException e) {
      throw PushRefused.badRow(line, column, null, "not a whole number: '" + cell + "'");
    }
  }

  private static double number(String cell, String column, int line) {
    try {
      double value = Double.parseDouble(cell.strip());
      if (Double.isFinite(value)) {
        return value;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw PushRefused.badRow(line, column, null, "not a finite number: '" + cell + "'");
  }
}
