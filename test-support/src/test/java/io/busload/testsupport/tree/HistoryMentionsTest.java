package io.busload.testsupport.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The checker on planted trees, and then on this checkout, which must have nothing to report. */
class HistoryMentionsTest extends PlantedTreeTest {
  /** Built from parts so that this file itself holds no instance of what it plants. */
  private static final String ISSUE = "iss" + "ue";
  private static final String CAPITAL = "I" + ISSUE.substring(1);
  private static final String ARCH = "ARCHITECTURE" + ".md";
  private static final String SHARED = ".." + "/shared";

  HistoryMentionsTest() {
    super(HistoryMentions::scan);
  }

  @Test
  void scan_plantedMentions_eachListedWithFileAndLine() throws IOException {
    write("agent/src/main/java/A.java", "class A {\n  // kept apart (" + ISSUE + " 12): why\n}\n");
    write("docs/design/x.md", "# X\n\nSince " + CAPITAL + "s 12/13 it holds.\n");
    write("protocol/src/main/java/B.java", "/** Fast split detection (" + ARCH + "). */\nclass B {}\n");
    write("deploy/README.md", "See " + SHARED + "/STYLE.md.\n");
    write(".ci/run", "# " + ISSUE + " #15: nvcc hidden\n");

    assertThat(findings()).containsExactly(
        ".ci/run:1: # " + ISSUE + " #15: nvcc hidden",
        "agent/src/main/java/A.java:2: // kept apart (" + ISSUE + " 12): why",
        "deploy/README.md:1: See " + SHARED + "/STYLE.md.",
        "docs/design/x.md:3: Since " + CAPITAL + "s 12/13 it holds.",
        "protocol/src/main/java/B.java:1: /** Fast split detection (" + ARCH + "). */");
  }

  @Test
  void scan_mentionSplitAcrossTwoLines_listedAtItsFirstLine() throws IOException {
    write("kernels/src/main/java/F.java", "/**\n * one case per host (" + ISSUE + "\n * 14: the peer axis).\n */\n");
    write("docs/design/y.md", "Reflowed by an " + ISSUE + "\n- 7 is a list item, still a mention.\n");
    write("docs/design/z.md", "Open " + ISSUE + "s\nare tracked elsewhere; 14 of them.\n");

    assertThat(findings()).extracting(f -> f.substring(0, f.indexOf(": ")))
        .containsExactly("docs/design/y.md:1", "kernels/src/main/java/F.java:2");
  }

  @Test
  void scan_issueNumberInTestNameOrDisplayName_listed() throws IOException {
    write("coordinator/src/test/java/T.java", """
        class T {
          @Test void of_resultFromBefore%s12_readsItsSentence() {}
          @DisplayName("stored before %s 12") @Test void named() {}
          void check() { assertThat(1).as("port, %s 16").isEqualTo(1); }
        }
        """.formatted(CAPITAL, ISSUE, ISSUE));

    assertThat(findings()).extracting(f -> f.substring(0, f.indexOf(": ")))
        .containsExactly("coordinator/src/test/java/T.java:2", "coordinator/src/test/java/T.java:3",
            "coordinator/src/test/java/T.java:4");
  }

  @Test
  void scan_wordsThatOnlyLookAlike_notListed() throws IOException {
    // Built from pieces, as the mentions above are, so that this file holds none of the look-alikes itself.
    String capital = ISSUE.substring(0, 1).toUpperCase() + ISSUE.substring(1);
    write("a/Text.java", "// t" + ISSUE + " 3 is no " + ISSUE + "; " + ISSUE
        + "s are tracked elsewhere; the 12 stores; " + capital + "rName 7\n// schema V9; \"the " + ISSUE + "r 5\"\n");

    assertThat(findings()).isEmpty();
  }

  @Test
  void scan_resultsRecordsMigrationsAndBuildOutput_notListed() throws IOException {
    String mention = "measured for " + ISSUE + " 16\n";
    write("docs/results/2026-11-25-fleet/README.md", mention);
    write("coordinator/src/main/resources/db/migration/V7__result_sampling.sql", "-- " + mention);
    write("coordinator/target/classes/X.java", mention);
    write("dashboard/node_modules/x/index.js", mention);
    write(".tools/maven/README", mention);
    write("dashboard/src/main/frontend/generated/jar-resources/Flow.js", "// " + mention);
    write("docs/design/ok.md", "nothing to report\n");

    assertThat(findings()).isEmpty();
    // The same text in a file that is checked is found, so the exclusions above are what kept it out.
    write("coordinator/src/main/resources/db/other.sql", "-- " + mention);
    assertThat(findings()).containsExactly("coordinator/src/main/resources/db/other.sql:1: -- " + mention.strip());
  }

  @Test
  void checkout_hasNoIssueNumbersOrOutsideCitations() {
    List<Finding> found = HistoryMentions.scan(SourceTree.root());

    assertThat(found)
        .as("Say what holds now and why, and cite docs/design/ (docs/design/invariants.md) instead of an issue "
            + "number or a file outside the repository; %d lines:%n%s", found.size(),
            found.stream().map(Object::toString).collect(Collectors.joining(System.lineSeparator())))
        .isEmpty();
  }
}
