package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/security.md is the threat model a lab reads before trusting Busload on a shared network: every row names the
 * test that plays its attacker, and a row is only worth its test. This keeps each named test class and method in the
 * tree, so that renaming or deleting an attacker test fails here instead of leaving the table pointing at nothing.
 */
class SecurityDocTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Path DOC = ROOT.resolve("docs/security.md");
  private static final Set<String> NOT_SOURCES = Set.of("target", "node_modules", ".git", ".tools", ".busload",
      ".carry", "results", "generated");
  /** `SomeTest`, `SomeTest.method_name`, `SomeTest.method_prefix*`, and `method_name` after one in the same cell. */
  private static final Pattern CITED = Pattern.compile(
      "`([A-Z][A-Za-z0-9]*(?:Test|IT))(?:\\.([a-z][A-Za-z0-9_]*)(\\*)?)?`|`([a-z][A-Za-z0-9]*_[A-Za-z0-9_]+)(\\*)?`");

  @Test
  void securityDoc_everyTestItNamesExists() throws IOException {
    Map<String, String> tests = testSources();
    List<String> missing = new ArrayList<>();
    int rows = 0;
    for (String line : Files.readAllLines(DOC)) {
      if (!line.startsWith("| ") || line.startsWith("| Who") || line.startsWith("| ---")) {
        continue;
      }
      rows++;
      String[] cells = line.split("\\|");
      String testCell = cells[cells.length - 1];
      String lastClass = null;
      Matcher m = CITED.matcher(testCell);
      while (m.find()) {
        String cls = m.group(1) != null ? m.group(1) : lastClass;
        String method = m.group(1) != null ? m.group(2) : m.group(4);
        boolean prefix = m.group(3) != null || m.group(5) != null;
        if (cls == null) {
          missing.add(method + " (no test class before it in its cell)");
          continue;
        }
        lastClass = cls;
        String source = tests.get(cls);
        if (source == null) {
          missing.add(cls);
        } else if (method != null && !source.contains(" " + method + (prefix ? "" : "("))) {
          missing.add(cls + "." + method + (prefix ? "*" : ""));
        }
      }
    }
    assertThat(rows).as("rows of the threat model").isGreaterThanOrEqualTo(20);
    assertThat(missing).as("tests named in docs/security.md that are not in the tree").isEmpty();
  }

  @Test
  void cited_findsClassesMethodsAndPrefixes() {
    Matcher m = CITED.matcher("`LimitsTest.push_moreAtOnce_*`, `AgentStoreTest`, `other_method`");
    assertThat(m.find()).isTrue();
    assertThat(m.group(1)).isEqualTo("LimitsTest");
    assertThat(m.group(2)).isEqualTo("push_moreAtOnce_");
    assertThat(m.group(3)).isEqualTo("*");
    assertThat(m.find()).isTrue();
    assertThat(m.group(1)).isEqualTo("AgentStoreTest");
    assertThat(m.find()).isTrue();
    assertThat(m.group(4)).isEqualTo("other_method");
  }

  /** Test class name to its source, over every module's src/test. */
  private static Map<String, String> testSources() throws IOException {
    Map<String, String> sources = new HashMap<>();
    try (Stream<Path> files = Files.walk(ROOT)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        Path relative = ROOT.relativize(file);
        boolean skip = false;
        for (Path part : relative) {
          skip |= NOT_SOURCES.contains(part.toString());
        }
        if (!skip && relative.toString().contains("/src/test/")) {
          String name = file.getFileName().toString();
          sources.put(name.substring(0, name.length() - ".java".length()), Files.readString(file));
        }
      }
    }
    return sources;
  }
}
