package io.busload.testsupport.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The module-map check on planted checkouts, and then on this one, which must have nothing missing. */
class ModuleMapTest {
  @TempDir Path tree;

  private void checkout(String overview, String readme) throws IOException {
    Files.writeString(tree.resolve("busload"), "#!/bin/bash\n");
    Files.writeString(tree.resolve("pom.xml"), """
        <project>
          <modules><module>kernels</module><module>simulator</module></modules>
          <profiles><profile><modules><module>extra</module></modules></profile></profiles>
        </project>
        """);
    Files.createDirectories(tree.resolve("docs/design"));
    Files.writeString(tree.resolve("docs/design/overview.md"), overview);
    Files.writeString(tree.resolve("README.md"), readme);
  }

  private static final String FULL_TABLE = """
      # X

      | module | what it is |
      | --- | --- |
      | `kernels` | the kernels |
      | `simulator` | a fleet in one JVM |

      Later, `extra` appears in prose.
      """;

  @Test
  void missing_everyModuleInBothMaps_empty() throws IOException {
    checkout("`kernels` runs below `simulator`.\n", FULL_TABLE);

    assertThat(ModuleMap.modules(tree)).containsExactly("kernels", "simulator");
    assertThat(ModuleMap.missing(tree)).isEmpty();
  }

  @Test
  void missing_moduleLeftOutOfOverview_named() throws IOException {
    checkout("Only `kernels` here; the simulator in plain words does not count.\n", FULL_TABLE);

    assertThat(ModuleMap.missing(tree)).containsExactly("docs/design/overview.md does not name module `simulator`");
  }

  @Test
  void missing_moduleOnlyInReadmeProseNotItsTable_named() throws IOException {
    checkout("`kernels`, `simulator`\n", """
        | module | what it is |
        | --- | --- |
        | `kernels` | the kernels |

        `simulator` is described in a later section.
        """);

    assertThat(ModuleMap.missing(tree)).containsExactly("README.md's module table has no row for `simulator`");
  }

  @Test
  void inReadmeTable_noModuleTable_failsNamingWhatItLookedFor() throws IOException {
    checkout("`kernels`, `simulator`\n", "# no table\n");

    assertThatThrownBy(() -> ModuleMap.inReadmeTable(tree))
        .hasMessage("README.md: no table whose first header cell is 'module'");
  }

  @Test
  void checkout_everyModuleInOverviewAndReadmeTable() {
    Path root = SourceTree.root();
    List<String> missing = ModuleMap.missing(root);

    assertThat(ModuleMap.modules(root)).as("the root pom.xml's modules").contains("kernels", "deploy");
    assertThat(missing).as("the maps a reader meets first must name every module the build has").isEmpty();
  }
}
