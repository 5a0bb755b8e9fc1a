package io.busload.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The end of {@code ./busload test}: the tests that the JUnit engines reported skipped in this run, grouped by
 * reason, so that a skip is never silent; then whether the run passed and how long it took.
 *
 * <p>Only the JDK is used, so that the launcher can run this file as it is ({@code java TestReport.java}) even when the
 * build it reports on failed before making a jar. Its arguments are positional for the same reason: it is called by
 * the launcher only.
 *
 * <p>Usage: {@code TestReport ROOT MARKER EXIT WHAT}: the repository, a file made when the run started (reports newer
 * than it are this run's), Maven's exit status, and the words for what ran ("tests").
 */
public final class TestReport {
  private TestReport() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4 || !args[2].matches("\\d+")) {
      System.err.println("usage: TestReport ROOT MARKER EXIT WHAT");
      System.exit(2);
    }
    Path root = Path.of(args[0]);
    FileTime since = Files.getLastModifiedTime(Path.of(args[1]));
    int exit = Integer.parseInt(args[2]);
    for (String line : skipped(reports(root, since))) {
      System.err.println("busload: " + line);
    }
    Duration took = Duration.between(since.toInstant(), Instant.now());
    String time = took.toMinutes() + " min " + took.toSecondsPart() + " s";
    System.err.println("busload: " + args[3] + (exit == 0 ? " passed in " : " FAILED after ") + time);
  }

  /** Surefire's and Failsafe's XML reports under {@code root} written after {@code since}. */
  static List<Path> reports(Path root, FileTime since) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(f -> {
        String path = root.relativize(f).toString();
        return f.getFileName().toString().matches("TEST-.*\\.xml") && path.matches(".*target/[^/]*-reports/[^/]*")
            && !path.startsWith(".tools/");
      }).filter(f -> {
        try {
          return Files.getLastModifiedTime(f).compareTo(since) > 0;
        } catch (IOException e) {
          return false;
        }
      }).toList();
    }
  }

  /** One line per reason, the most frequent first: {@code skipped 3 test(s) because: REASON}. */
  static List<String> skipped(List<Path> reports) throws Exception {
    Map<String, Integer> byReason = new TreeMap<>();
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    for (Path report : reports) {
      NodeList skips = factory.newDocumentBuilder().parse(report.toFile()).getElementsByTagName("skipped");
      for (int i = 0; i < skips.getLength(); i++) {
        byReason.merge(reason((Element) skips.item(i)), 1, Integer::sum);
      }
    }
    List<Map.Entry<String, Integer>> entries = new ArrayList<>(byReason.entrySet());
    entries.sort(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()));
    return entries.stream().map(e -> "skipped " + e.getValue() + " test(s) because: " + e.getKey()).toList();
  }

  /**
   * The message of a skip ({@code @Disabled}'s reason), or else the message of the exception that aborted the test
   * (an assumption), which is the first line of its stack trace after the exception's class.
   */
  static String reason(Element skipped) {
    String message = skipped.getAttribute("message");
    if (!message.isBlank()) {
      return message.strip();
    }
    String trace = skipped.getTextContent().strip();
    int colon = trace.indexOf(": ");
    if (!trace.isEmpty() && colon > 0) {
      return trace.substring(colon + 2).lines().findFirst().orElse("").strip();
    }
    return "(no reason given)";
  }
}
