package io.busload.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which modules {@code ./busload test} tests and how it runs them side by side: a real root pom and module poms, and
 * a stand-in Maven (a script) that logs when each module's run starts and ends.
 */
class TestRunTest {
  @TempDir Path root;
  private Path events;
  private Path maven;

  @BeforeEach
  void tree() throws Exception {
    Files.writeString(root.resolve("pom.xml"), """
        <project><modules><module>kernels</module><module>docs</module><module>agent</module>
        <module>coordinator</module><module>deploy</module><module>broken</module></modules></project>""");
    for (String module : List.of("kernels", "docs", "agent", "coordinator", "deploy", "broken")) {
      Files.createDirectories(root.resolve(module));
      Files.writeString(root.resolve(module).resolve("pom.xml"), module.equals("deploy") ? """
          <project><build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId></plugin>
          <plugin><artifactId>maven-failsafe-plugin</artifactId></plugin></plugins></build></project>"""
          : "<project><build><plugins/></build></project>");
      if (!module.equals("docs")) {
        Files.createDirectories(root.resolve(module).resolve("src/test/java"));
      }
    }
    events = root.resolve("events");
    maven = Files.writeString(root.resolve("mvn"), """
        #!/bin/bash
        module=reactor
        for ((i = 1; i <= $#; i++)); do if [[ ${!i} == -pl ]]; then j=$((i + 1)); module=${!j}; fi; done
        echo "start $module $*" >> %1$s
        echo "output of $module"
        sleep 1
        echo "end $module" >> %1$s
        [[ $module != broken ]]
        """.formatted(events));
    Files.setPosixFilePermissions(maven, PosixFilePermissions.fromString("rwx------"));
  }

  @Test
  void plan_modulesWithTests_longestFirstThenPomOrder_failsafeGoalsOnlyWhereThePomDeclaresIt() throws Exception {
    List<TestRun.Module> plan = TestRun.plan(root, false);

    assertThat(plan).extracting(TestRun.Module::name).containsExactly("coordinator", "agent", "deploy", "kernels",
        "broken");
    assertThat(plan.get(2).goals()).containsExactly("surefire:test", "failsafe:integration-test", "failsafe:verify");
    assertThat(plan.get(0).goals()).containsExactly("surefire:test");
    assertThat(plan).noneMatch(TestRun.Module::last);
    assertThat(TestRun.plan(root, true)).filteredOn(TestRun.Module::last).extracting(TestRun.Module::name)
        .containsExactly("deploy");
  }

  @Test
  void runTests_twoAtOnce_neverMoreEachModuleOnceAndAFailureNamedWhileTheOthersStillRun() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    List<TestRun.Outcome> outcomes = TestRun.runTests(root, TestRun.plan(root, false), List.of(maven.toString(), "-B"),
        2, new PrintStream(printed, true, StandardCharsets.UTF_8));

    List<String> lines = Files.readAllLines(events);
    assertThat(mostAtOnce(lines)).isEqualTo(2);
    assertThat(lines).filteredOn(l -> l.startsWith("start ")).containsExactlyInAnyOrder(
        "start coordinator -B -pl coordinator surefire:test", "start agent -B -pl agent surefire:test",
        "start deploy -B -pl deploy surefire:test failsafe:integration-test failsafe:verify",
        "start kernels -B -pl kernels surefire:test", "start broken -B -pl broken surefire:test");
    assertThat(TestRun.failed(outcomes)).containsExactly("broken");
    String out = printed.toString(StandardCharsets.UTF_8);
    assertThat(out).contains("output of coordinator\nbusload: coordinator: tests passed in 0 min ",
        "output of broken\nbusload: broken: tests FAILED (exit 1) after 0 min ", "busload: tests failed in broken");
    assertThat(root.resolve("kernels/target/busload-test.log")).content().isEqualTo("output of kernels\n");
  }

  @Test
  void runTests_full_moduleWithIntegrationTestsStartsAloneAfterEveryOther() throws Exception {
    TestRun.runTests(root, TestRun.plan(root, true), List.of(maven.toString()), 3,
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

    List<String> lines = Files.readAllLines(events);
    assertThat(lines.get(lines.size() - 2)).startsWith("start deploy ");
    assertThat(lines.getLast()).isEqualTo("end deploy");
    assertThat(mostAtOnce(lines)).isEqualTo(3);
  }

  @Test
  void run_noUserOptions_installsOnceThenEveryModulesTests_endsWithTheTimeAndTheFailure() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    int exit = TestRun.run(root, FileTime.from(Instant.now()), 3, false, List.of(maven.toString(), "-B"), List.of(),
        new PrintStream(printed, true, StandardCharsets.UTF_8));

    List<String> lines = Files.readAllLines(events);
    assertThat(lines.subList(0, 2)).containsExactly("start reactor -B -T 3 install -DskipTests", "end reactor");
    assertThat(lines).filteredOn(l -> l.startsWith("start ")).hasSize(6);
    assertThat(exit).isEqualTo(1);
    assertThat(printed.toString(StandardCharsets.UTF_8)).containsPattern("busload: tests FAILED after 0 min \\d+ s\n$");
  }

  @Test
  void run_userOptions_oneReactorVerifyWithThemAsGiven() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    int exit = TestRun.run(root, FileTime.from(Instant.now()), 2, true, List.of(maven.toString()),
        List.of("-pl", "kernels", "-Dtest=ReductionTest"), new PrintStream(printed, true, StandardCharsets.UTF_8));

    assertThat(Files.readAllLines(events)).containsExactly(
        "start kernels -Pfull -T 2 verify -pl kernels -Dtest=ReductionTest", "end kernels");
    assertThat(exit).isZero();
    assertThat(printed.toString(StandardCharsets.UTF_8)).contains(
        "busload: full tests (with the fault, TLS-fault, split-brain and container tests) passed in 0 min ");
  }

  @Test
  void atOnce_notAWholeNumberFromOne_refusedNamingTheVariable() {
    assertThat(TestRun.atOnce("3")).isEqualTo(3);
    for (String bad : List.of("0", "two", "-1", "", "1.5")) {
      assertThatThrownBy(() -> TestRun.atOnce(bad)).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("BUSLOAD_TEST_THREADS must be a whole number from 1 to 999 (modules at a time), not '" + bad
              + "'");
    }
  }

  /** The most module runs that were started and not yet ended at any point of the events. */
  private static int mostAtOnce(List<String> lines) {
    Set<String> running = new HashSet<>();
    int most = 0;
    for (String line : lines) {
      List<String> words = new ArrayList<>(List.of(line.split(" ")));
      if (words.get(0).equals("start")) {
        running.add(words.get(1));
      } else {
        running.remove(words.get(1));
      }
      most = Math.max(most, running.size());
    }
    return most;
  }
}
