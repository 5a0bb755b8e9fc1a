package io.busload.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code ./busload test} prints about skipped tests, from reports as Surefire and Failsafe write them. */
class TestReportTest {
  @TempDir Path root;

  private Path report(String module, String kind, String name, String body) throws Exception {
    Path dir = Files.createDirectories(root.resolve(module + "/target/" + kind + "-reports"));
    return Files.writeString(dir.resolve("TEST-" + name + ".xml"), """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuite name="%s" tests="3">%s</testsuite>
        """.formatted(name, body));
  }

  @Test
  void skipped_groupedByReason_mostFirst_onlyThisRunsReports() throws Exception {
    FileTime start = FileTime.from(Instant.now().minusSeconds(60));
    report("deploy", "failsafe", "a.FaultsIT", """
        <testcase name="one"><skipped message="needs root and iproute2 (ip netns)"/></testcase>
        <testcase name="two"><skipped message="needs root and iproute2 (ip netns)"/></testcase>
        <testcase name="three"><skipped><![CDATA[org.opentest4j.TestAbortedException: Assumption failed: no GPU
        \tat org.junit.jupiter.api.Assumptions.throwAssumptionFailed(Assumptions.java:340)]]></skipped></testcase>""");
    report("agent", "surefire", "b.OtherTest", """
        <testcase name="four"><skipped/></testcase><testcase name="passed"/>""");
    Path old = report("coordinator", "surefire", "c.OldTest", """
        <testcase name="five"><skipped message="from an earlier run"/></testcase>""");
    Files.setLastModifiedTime(old, FileTime.from(Instant.now().minusSeconds(3600)));

    List<String> lines = TestReport.skipped(TestReport.reports(root, start));

    assertThat(lines).containsExactly("skipped 2 test(s) because: needs root and iproute2 (ip netns)",
        "skipped 1 test(s) because: (no reason given)",
        "skipped 1 test(s) because: Assumption failed: no GPU");
  }
}
