package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The JVM options live in one argument file, {@code deploy/src/main/dist/jvm.options}: every place that starts a
 * Busload JVM names that file, and no other file in the tree spells the options out, so that a change to them is
 * made once.
 */
class JvmOptionsTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Path OPTIONS = ROOT.resolve("deploy/src/main/dist/jvm.options");
  /** Folders that are not the project's sources: builds, tools, state, and measurement records kept as they ran. */
  private static final Set<String> NOT_SOURCES = Set.of("target", "node_modules", ".git", ".tools", ".busload",
      ".carry", "results", "generated");

  private static List<String> options() throws IOException {
    return Files.readAllLines(OPTIONS).stream().map(String::strip).filter(l -> l.startsWith("--")).toList();
  }

  private static List<Path> sourceFiles() throws IOException {
    try (Stream<Path> files = Files.walk(ROOT)) {
      return files.filter(Files::isRegularFile).filter(JvmOptionsTest::isSource).toList();
    }
  }

  private static boolean isSource(Path file) {
    for (Path part : ROOT.relativize(file)) {
      if (NOT_SOURCES.contains(part.toString())) {
        return false;
      }
    }
    return true;
  }

  @Test
  void jvmOptions_holdHazelcastsOptions() throws IOException {
    // By kind, not spelled out: this file must not repeat the list either.
    assertThat(options()).anyMatch(o -> o.startsWith("--enable-native-access="))
        .anyMatch(o -> o.startsWith("--add-opens "))
        .anyMatch(o -> o.startsWith("--add-exports "))
        .anyMatch(o -> o.startsWith("--sun-misc-unsafe-memory-access="));
  }

  @Test
  void tree_noFileButTheArgumentFileSpellsTheOptions() throws IOException {
    List<String> repeats = new ArrayList<>();
    for (Path file : sourceFiles()) {
      // A document may explain an option (docs/design/invariants.md says why each is there); what starts a JVM may not
      // spell them.
      if (file.equals(OPTIONS) || file.toString().endsWith(".class") || file.toString().endsWith(".jar")
          || file.toString().endsWith(".md")) {
        continue;
      }
      String text;
      try {
        text = Files.readString(file);
      } catch (MalformedInputException binary) {
        continue;
      }
      for (String option : options()) {
        // --enable-native-access alone is how the agent runs without a cluster (./busload run), and jlink's own
        // --add-modules names the modules of a runtime: neither is this list.
        if (!option.startsWith("--enable-native-access") && !option.startsWith("--add-modules")
            && text.contains(option)) {
          repeats.add(ROOT.relativize(file) + ": " + option);
        }
      }
    }
    assertThat(repeats).as("files that repeat the options of " + ROOT.relativize(OPTIONS)).isEmpty();
  }

  @Test
  void everyStarter_namesTheArgumentFile() throws IOException {
    for (String starter : List.of("busload", "pom.xml", "deploy/gpu/run-fleet.sh", "deploy/gpu/run-membership.sh",
        "deploy/systemd/busload-agent.service", "deploy/systemd/busload-coordinator.service",
        "deploy/systemd/busload-dashboard.service")) {
      assertThat(Files.readString(ROOT.resolve(starter))).as(starter).contains("jvm.options");
    }
  }
}
