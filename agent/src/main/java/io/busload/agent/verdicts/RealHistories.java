package io.busload.agent.verdicts;

import io.busload.analysis.Words;
import io.busload.analysis.changepoint.ChangePoint;
import io.busload.analysis.changepoint.EDivisive;
import io.busload.analysis.changepoint.OnlineDetector;
import io.busload.analysis.evaluation.Detector;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The change detectors on real histories: every result file under the given folders that busload run wrote (JSON or
 * CSV; other files are skipped and counted), one series per model, kernel and params, each run's bandwidth median
 * in measuring order.
 */
final class RealHistories {
  private RealHistories() {}

  /** One series: the model and case, and the medians in measuring order. */
  record Series(String model, String kernelCase, List<Measured> points) {}

  static String markdown(List<Path> folders) {
    List<Path> files = new ArrayList<>();
    for (Path folder : folders) {
      try (Stream<Path> walk = Files.walk(folder)) {
        walk.filter(Files::isRegularFile).filter(p -> p.toString().endsWith(".csv") || p.toString().endsWith(".json"))
            .sorted().forEach(files::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    List<String> used = new ArrayList<>();
    int skipped = 0;
    Map<String, Map<String, Measured>> byCase = new TreeMap<>();
    for (Path file : files) {
      List<Measured> results;
      try {
        results = ResultFiles.read(file);
      } catch (BadInputException e) {
        skipped++;
        continue;
      }
      used.add(file.toString());
      for (Measured m : results) {
        if (m.valid() && m.bandwidth() != null) {
          // The same result copied into two folders counts once.
          byCase.computeIfAbsent(m.deviceName() + "\n" + m.key(), k -> new LinkedHashMap<>())
              .putIfAbsent(m.measuredAt() + m.deviceId(), m);
        }
      }
    }
    List<Series> series = new ArrayList<>();
    byCase.forEach((key, points) -> series.add(new Series(key.substring(0, key.indexOf('\n')),
        key.substring(key.indexOf('\n') + 1),
        points.values().stream().sorted(Comparator.comparing(Measured::measuredAt)).toList())));

    Detector z = Detector.zScore();
    Detector online = Detector.eDivisive(OnlineDetector.Settings.defaults());
    EDivisive offline = new EDivisive(EDivisive.Settings.defaults());
    StringBuilder md = new StringBuilder();
    md.append("Result files read: ").append(used.size()).append(" (").append(skipped)
        .append(" other .csv/.json files skipped: native harness output, not busload results).\n\n");
    md.append("| model | series | points per series (min / median / max) | series long enough for z-score (6) / "
        + "E-Divisive on arrival (14) / whole history (12) | z-score alarms | E-Divisive alarms, on arrival / whole "
        + "history | largest run-to-run move of a median |\n|---|---|---|---|---|---|---|\n");
    Map<String, List<Series>> byModel = new TreeMap<>();
    series.forEach(s -> byModel.computeIfAbsent(s.model(), k -> new ArrayList<>()).add(s));
    List<String> alarms = new ArrayList<>();
    for (Map.Entry<String, List<Series>> e : byModel.entrySet()) {
      List<Integer> lengths = e.getValue().stream().map(s -> s.points().size()).sorted().toList();
      int zAlarms = 0;
      int onlineAlarms = 0;
      int offlineAlarms = 0;
      double largest = 0;
      String largestWhere = "";
      for (Series s : e.getValue()) {
        double[] values = s.points().stream().mapToDouble(Measured::bandwidth).toArray();
        for (int t : z.alarms(values)) {
          zAlarms++;
          alarms.add("z-score: " + s.model() + " " + s.kernelCase() + " at run " + (t + 1) + " of " + values.length);
        }
        for (int t : online.alarms(values)) {
          onlineAlarms++;
          alarms.add("E-Divisive on arrival: " + s.model() + " " + s.kernelCase() + " at run " + (t + 1));
        }
        for (ChangePoint c : offline.detect(values)) {
          offlineAlarms++;
          alarms.add("E-Divisive whole history: " + s.model() + " " + s.kernelCase() + " from run " + (c.index() + 1));
        }
        for (int i = 1; i < values.length; i++) {
          double move = (values[i] - values[i - 1]) / values[i - 1];
          if (Math.abs(move) > Math.abs(largest)) {
            largest = move;
            largestWhere = s.kernelCase() + ", " + s.points().get(i - 1).measuredAt().toString().substring(0, 16)
                + " → " + s.points().get(i).measuredAt().toString().substring(0, 16);
          }
        }
      }
      long zLong = lengths.stream().filter(n -> n >= 6).count();
      long onLong = lengths.stream().filter(n -> n >= 14).count();
      long offLong = lengths.stream().filter(n -> n >= 12).count();
      md.append("| ").append(e.getKey()).append(" | ").append(lengths.size()).append(" | ").append(lengths.getFirst())
          .append(" / ").append(lengths.get(lengths.size() / 2)).append(" / ").append(lengths.getLast()).append(" | ")
          .append(zLong).append(" / ").append(onLong).append(" / ").append(offLong).append(" | ").append(zAlarms)
          .append(" | ").append(onlineAlarms).append(" / ").append(offlineAlarms).append(" | ")
          .append(largest == 0 ? "-" : Words.signedPercent(largest) + " (" + largestWhere + ")").append(" |\n");
    }
    md.append('\n');
    if (alarms.isEmpty()) {
      md.append("No alarm from either method.\n");
    } else {
      alarms.forEach(a -> md.append("- ").append(a).append('\n'));
    }
    md.append("\nFiles:\n");
    used.forEach(f -> md.append("- ").append(f).append('\n'));
    return md.toString();
  }
}
