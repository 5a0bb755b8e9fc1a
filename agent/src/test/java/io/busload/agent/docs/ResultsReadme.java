package io.busload.agent.docs;

import io.busload.agent.report.Csv;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Checks one {@code docs/results/X/README.md} against the files beside it and returns what is wrong, one line
 * each (empty when it holds). Three kinds of check:
 * <ul>
 *   <li><b>paths</b>: every relative path the text names (a link target, or a backticked word with a slash or a
 *       file extension) exists, from the README's folder or the repository root; a bare file name may lie anywhere
 *       under the README's folder or in the repository's sources ({@code timing.cu}); none reaches outside the
 *       repository or into {@code shared/} (a reference folder users do not have). Build outputs ({@code target/})
 *       and the lent machine's {@code .carry/} are named as places, not checked;</li>
 *   <li><b>figures</b>: {@code <!-- figure "TEXT" = FUNCTION FILE [KERNEL PARAMS] -->} says TEXT, which must appear
 *       in the README, is FUNCTION of FILE; a number is compared at the decimals the text shows;</li>
 *   <li><b>tables</b>: {@code <!-- table "HEADER" = FUNCTION FILE ... -->} before a markdown table whose first two
 *       columns are kernel and params says every cell of column HEADER is FUNCTION of FILE for that row.</li>
 * </ul>
 * Functions: {@code valid} ("V of N" valid rows), {@code spread-median} (median relative spread of the valid rows,
 * in %), {@code spread-under} and {@code spread-over} ("K of N" valid rows with a spread under or over 1%),
 * {@code within} ("K of N" rows of a ratios.md within 1% of native), {@code elapsed} (the seconds of an
 * elapsed.txt), {@code bandwidth} (GB/s), {@code of-memcpy} (% of the memcpy-d2d row), {@code of-peak} (%),
 * {@code spread} (%). FILE is a results CSV (the CLI's or the coordinator's columns), a CLI table (.txt) or a
 * ratios.md, relative to the README's folder.
 */
final class ResultsReadme {
  private static final Pattern FIGURE = Pattern.compile("<!--\\s*figure\\s+\"([^\"]+)\"\\s*=\\s*(\\S+)\\s+(\\S+)"
      + "(?:\\s+(\\S+)\\s+(\\S+))?\\s*-->");
  private static final Pattern TABLE = Pattern.compile("<!--\\s*table\\s+((?:\"[^\"]+\"\\s*=\\s*\\S+\\s+\\S+\\s*)+)-->");
  private static final Pattern TABLE_COLUMN = Pattern.compile("\"([^\"]+)\"\\s*=\\s*(\\S+)\\s+(\\S+)");
  private static final Pattern COMMENT = Pattern.compile("<!--.*?-->", Pattern.DOTALL);
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern TICKED = Pattern.compile("`([^`\\s]+)`");
  private static final Pattern COUNT = Pattern.compile("\\d+ of \\d+");
  private static final Pattern NUMBER = Pattern.compile("-?\\d+(?:\\.(\\d+))?");
  private static final Pattern PATH_LIKE = Pattern.compile("[\\w.\\-/]*(/|\\.(csv|txt|md|json|err|sh|cu|java|yaml|xml|sql))/?");

  /** One row of results, whatever file it came from. */
  record Result(String kernel, String params, boolean valid, double bandwidth, double peakFraction, double spread) {}

  private final Path readme;
  private final Path repository;
  private final String text;
  private final List<String> problems = new ArrayList<>();

  private ResultsReadme(Path readme, Path repository) throws IOException {
    this.readme = readme;
    this.repository = repository.toAbsolutePath().normalize();
    this.text = Files.readString(readme);
  }

  static List<String> check(Path readme, Path repository) {
    try {
      ResultsReadme r = new ResultsReadme(readme, repository);
      r.paths();
      r.figures();
      r.tables();
      return r.problems;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void problem(String what) {
    problems.add(repository.relativize(readme.toAbsolutePath().normalize()) + ": " + what);
  }

  private Path folder() {
    return readme.getParent();
  }

  // ---- paths ------------------------------------------------------------------------------------------------

  private void paths() {
    String prose = COMMENT.matcher(text).replaceAll("");
    List<String> named = new ArrayList<>();
    LINK.matcher(prose).results().map(m -> m.group(1)).filter(t -> !t.contains("://") && !t.startsWith("#"))
        .forEach(named::add);
    TICKED.matcher(prose).results().map(m -> m.group(1)).filter(t -> PATH_LIKE.matcher(t).matches()
        && !t.startsWith("--") && !t.contains("://")).forEach(named::add);
    for (String name : named) {
      String path = name.replaceAll("#.*$", "");
      if (path.contains("shared/")) {
        problem("names " + name + ": shared/ is the team's reference folder, which users do not have");
        continue;
      }
      if (path.contains("target/") || path.startsWith(".carry/")) {
        continue;
      }
      Path local = folder().resolve(path).toAbsolutePath().normalize();
      Path fromRoot = repository.resolve(path).toAbsolutePath().normalize();
      boolean inside = local.startsWith(repository) || fromRoot.startsWith(repository);
      if (!inside) {
        problem("names " + name + ", outside the repository");
      } else if (!Files.exists(local) && !Files.exists(fromRoot)
          && !(path.indexOf('/') < 0 && (named(folder(), path) || named(repository, path)))) {
        problem("names " + name + ", which does not exist (from its folder or the repository root)");
      }
    }
  }

  /** Whether a file called {@code name} lies under {@code root}, build outputs and dependencies left out. */
  private static boolean named(Path root, String name) {
    boolean[] found = {false};
    try {
      Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
        @Override
        public java.nio.file.FileVisitResult preVisitDirectory(Path dir, java.nio.file.attribute.BasicFileAttributes a) {
          String n = dir.getFileName() == null ? "" : dir.getFileName().toString();
          return List.of("target", "node_modules", ".tools", ".git", ".busload").contains(n)
              ? java.nio.file.FileVisitResult.SKIP_SUBTREE : java.nio.file.FileVisitResult.CONTINUE;
        }

        @Override
        public java.nio.file.FileVisitResult visitFile(Path file, java.nio.file.attribute.BasicFileAttributes a) {
          found[0] = file.getFileName().toString().equals(name);
          return found[0] ? java.nio.file.FileVisitResult.TERMINATE : java.nio.file.FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found[0];
  }

  // ---- figures ----------------------------------------------------------------------------------------------

  private void figures() {
    String prose = COMMENT.matcher(text).replaceAll("");
    Matcher m = FIGURE.matcher(text);
    while (m.find()) {
      String claimed = m.group(1);
      if (!prose.contains(claimed)) {
        problem("figure \"" + claimed + "\" is checked but not in the text");
      }
      String actual;
      try {
        actual = counted(claimed, compute(m.group(2), m.group(3), m.group(4), m.group(5), claimed));
      } catch (RuntimeException e) {
        problem("figure \"" + claimed + "\": " + e.getMessage());
        continue;
      }
      if (!actual.equals(claimed)) {
        problem("says \"" + claimed + "\" but " + m.group(2) + " of " + m.group(3)
            + (m.group(4) == null ? "" : " " + m.group(4) + " " + m.group(5)) + " is \"" + actual + "\"");
      }
    }
  }

  /** A count ("K of N") put in place of the claim's own, keeping its words; anything else as it is. */
  private static String counted(String claimed, String actual) {
    Matcher count = COUNT.matcher(claimed);
    return actual.matches("\\d+ of \\d+") && count.find()
        ? claimed.substring(0, count.start()) + actual + claimed.substring(count.end()) : actual;
  }

  /** FUNCTION of FILE (and kernel and params), formatted as {@code claimed} is (its decimals, its words). */
  private String compute(String function, String file, String kernel, String params, String claimed) {
    Path path = folder().resolve(file);
    return switch (function) {
      case "valid" -> {
        List<Result> rows = results(path);
        yield rows.stream().filter(Result::valid).count() + " of " + rows.size();
      }
      case "spread-median" -> like(claimed, 100 * median(valid(path).stream().mapToDouble(Result::spread).toArray()));
      case "spread-under" -> countOf(path, r -> r.spread() < 0.01 ? 1 : 0);
      case "spread-over" -> countOf(path, r -> r.spread() > 0.01 ? 1 : 0);
      case "within" -> within(path);
      case "elapsed" -> like(claimed, suiteSeconds(read(path)));
      default -> like(claimed, value(function, path, kernel, params));
    };
  }

  /**
   * The suite's seconds in an elapsed.txt: its "coalescing suite:" line where the file also times the native
   * harness (deploy/gpu/run-coalescing.sh), else the first "N s elapsed".
   */
  private static double suiteSeconds(String elapsed) {
    String suite = elapsed.lines().filter(l -> l.startsWith("coalescing suite:")).findFirst().orElse(elapsed);
    return number(suite, "([\\d.]+) s elapsed");
  }

  private String countOf(Path path, ToDoubleFunction<Result> counted) {
    List<Result> rows = valid(path);
    return (long) rows.stream().mapToDouble(counted).sum() + " of " + rows.size();
  }

  /** A per-row value of one result, in the unit the docs show (GB/s or %). */
  private double value(String function, Path path, String kernel, String params) {
    List<Result> rows = results(path);
    Result row = row(rows, kernel, params, path);
    return switch (function) {
      case "bandwidth" -> row.bandwidth() / 1e9;
      case "of-memcpy" -> 100 * row.bandwidth() / row(rows, "memcpy-d2d", null, path).bandwidth();
      case "of-peak" -> 100 * row.peakFraction();
      case "spread" -> 100 * row.spread();
      default -> throw new IllegalArgumentException("unknown function '" + function + "'");
    };
  }

  private static Result row(List<Result> rows, String kernel, String params, Path path) {
    return rows.stream().filter(r -> r.kernel().equals(kernel) && (params == null || r.params().equals(canonical(params))))
        .findFirst().orElseThrow(() -> new IllegalArgumentException("no row " + kernel + " " + params + " in " + path));
  }

  private String within(Path path) {
    long rows = 0;
    long yes = 0;
    for (String line : read(path).split("\n")) {
      String[] cells = line.split("\\|");
      if (cells.length >= 7 && !cells[1].isBlank() && !cells[1].contains("kernel") && !cells[1].contains("---")) {
        rows++;
        yes += cells[cells.length - 1].strip().equals("yes") ? 1 : 0; // the last column, whatever comes before
      }
    }
    return yes + " of " + rows;
  }

  // ---- tables -----------------------------------------------------------------------------------------------

  private void tables() {
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      Matcher m = TABLE.matcher(lines[i]);
      if (!m.find()) {
        continue;
      }
      int header = i + 1;
      while (header < lines.length && !lines[header].startsWith("|")) {
        header++;
      }
      List<String> columns = cells(lines[header]);
      Matcher c = TABLE_COLUMN.matcher(m.group(1));
      while (c.find()) {
        int column = columns.indexOf(c.group(1));
        if (column < 0) {
          problem("table at line " + (header + 1) + " has no column \"" + c.group(1) + "\"");
          continue;
        }
        for (int row = header + 2; row < lines.length && lines[row].startsWith("|"); row++) {
          List<String> cells = cells(lines[row]);
          String shown = cells.get(column);
          try {
            String actual = like(shown, value(c.group(2), folder().resolve(c.group(3)), cells.get(0), cells.get(1)));
            if (!actual.equals(shown)) {
              problem("line " + (row + 1) + ", " + cells.get(0) + " " + cells.get(1) + ", column \"" + c.group(1)
                  + "\": shows " + shown + " but " + c.group(3) + " gives " + actual);
            }
          } catch (RuntimeException e) {
            problem("line " + (row + 1) + ", column \"" + c.group(1) + "\": " + e.getMessage());
          }
        }
      }
    }
  }

  private static List<String> cells(String line) {
    String inner = line.strip();
    inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
    return Arrays.stream(inner.split("\\|", -1)).map(String::strip).toList();
  }

  // ---- reading results --------------------------------------------------------------------------------------

  private List<Result> valid(Path path) {
    return results(path).stream().filter(Result::valid).toList();
  }

  /** Results of a CSV (by header name) or of a CLI table (.txt). */
  static List<Result> results(Path path) {
    String content = read(path);
    if (path.toString().endsWith(".csv")) {
      List<List<String>> records = Csv.parse(content);
      List<String> header = records.getFirst();
      Map<String, Integer> at = header.stream().collect(Collectors.toMap(h -> h, header::indexOf, (a, b) -> a));
      List<Result> rows = new ArrayList<>();
      for (List<String> r : records.subList(1, records.size())) {
        boolean valid = Boolean.parseBoolean(r.get(at.get("valid")));
        double bandwidth = valid ? Double.parseDouble(r.get(at.get("bandwidth"))) : 0;
        String peak = at.containsKey("fractionOfPeak") ? r.get(at.get("fractionOfPeak")) : "";
        rows.add(new Result(r.get(at.get("kernel")), canonical(r.get(at.get("params"))), valid, bandwidth,
            peak.isEmpty() ? Double.NaN : Double.parseDouble(peak),
            valid ? Double.parseDouble(r.get(at.get("relativeSpread"))) : Double.NaN));
      }
      return rows;
    }
    // kernel params valid median-us GB/s of-memcpy of-peak spread samples
    Pattern row = Pattern.compile("^(\\S+)\\s+(\\S+=\\S*)\\s+(yes|NO|skip)\\s+(.*)$");
    List<Result> rows = new ArrayList<>();
    for (String line : content.split("\n")) {
      Matcher m = row.matcher(line);
      if (!m.matches()) {
        continue;
      }
      boolean valid = m.group(3).equals("yes");
      String[] f = m.group(4).strip().split("\\s+");
      rows.add(new Result(m.group(1), canonical(m.group(2)), valid, valid ? Double.parseDouble(f[1]) * 1e9 : 0,
          valid ? Double.parseDouble(f[3].replace("%", "")) / 100 : Double.NaN,
          valid ? Double.parseDouble(f[4].replace("%", "")) / 100 : Double.NaN));
    }
    return rows;
  }

  /** Params in name order: older results files keep the axis order. */
  static String canonical(String params) {
    return Arrays.stream(params.split(";")).sorted().collect(Collectors.joining(";"));
  }

  private static String read(Path path) {
    try {
      return Files.readString(path);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + path + ": " + e.getMessage(), e);
    }
  }

  private static double number(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    if (!m.find()) {
      throw new IllegalArgumentException("no match for " + regex);
    }
    return Double.parseDouble(m.group(1));
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** {@code value} written as {@code shown} writes its number: same decimals, same words around it. */
  static String like(String shown, double value) {
    Matcher m = NUMBER.matcher(shown);
    if (!m.find()) {
      throw new IllegalArgumentException("'" + shown + "' holds no number");
    }
    int decimals = m.group(1) == null ? 0 : m.group(1).length();
    String formatted = String.format(Locale.ROOT, "%." + decimals + "f", value);
    return shown.substring(0, m.start()) + formatted + shown.substring(m.end());
  }
}
