package io.busload.testsupport.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The design-citation check on a planted checkout, and then on this one, where every citation must lead somewhere. */
class DesignCitationsTest extends PlantedTreeTest {
  /** Built from parts so that this file itself cites nothing. */
  private static final String DESIGN = "docs/" + "design/";

  DesignCitationsTest() {
    super(DesignCitations::broken);
  }

  @Test
  void broken_missingFileAndMissingAnchor_eachNamedWithLine() throws IOException {
    write(DESIGN + "invariants.md", "<a id=\"acks\"></a>\n## Results are kept until acked\n");
    write("agent/src/main/java/A.java", """
        // kept until acked (%1$sinvariants.md#acks)
        // one run a time (%1$sinvariants.md#one-run-per-device)
        // reasons (%1$selsewhere.md#why)
        """.formatted(DESIGN));

    assertThat(findings()).containsExactly(
        "agent/src/main/java/A.java:2: " + DESIGN + "invariants.md has no anchor #one-run-per-device",
        "agent/src/main/java/A.java:3: " + DESIGN + "elsewhere.md does not exist");
  }

  @Test
  void checkout_everyDesignCitationLeadsToAnAnchor() {
    Path root = SourceTree.root();

    assertThat(DesignCitations.anchors(root.resolve("docs/design/invariants.md"))).contains("acks", "platform");
    assertThat(DesignCitations.broken(root)).isEmpty();
  }
}
