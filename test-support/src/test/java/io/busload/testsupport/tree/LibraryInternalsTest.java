package io.busload.testsupport.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The checker on planted trees, and then on this checkout, which must have nothing to report. */
class LibraryInternalsTest extends PlantedTreeTest {
  LibraryInternalsTest() {
    super(LibraryInternals::scan);
  }

  @Test
  void scan_reflectionInternalPackagesAndVaadinProtocolOutsideCompat_eachListed() throws IOException {
    write("protocol/src/main/java/a/Repair.java", """
        class Repair {
          void f(Object bus) throws Exception {
            var field = bus.getClass().getDeclaredField("nodeSelector");
            field.setAccessible(true);
            io.vertx.core.eventbus.impl.clustered.NodeSelector s = null;
          }
        }
        """);
    write("dashboard/src/main/java/b/Warm.java", """
        class Warm {
          String init = "?v-r=init&location=fleet";
          String rpc = "\\"ui-navigate\\"";
        }
        """);
    write("dashboard/src/main/sh/stamp.sh", "cp x com.vaadin.flow.internal.Token\n");

    assertThat(findings()).containsExactly(
        "dashboard/src/main/java/b/Warm.java:2: String init = \"?v-r=init&location=fleet\";",
        "dashboard/src/main/sh/stamp.sh:1: cp x com.vaadin.flow.internal.Token",
        "protocol/src/main/java/a/Repair.java:3: var field = bus.getClass().getDeclaredField(\"nodeSelector\");",
        "protocol/src/main/java/a/Repair.java:4: field.setAccessible(true);",
        "protocol/src/main/java/a/Repair.java:5: io.vertx.core.eventbus.impl.clustered.NodeSelector s = null;");
  }

  @Test
  void scan_compatPackagesCommentsTestsAndPublicApis_notListed() throws IOException {
    write("protocol/src/main/java/io/busload/protocol/compat/vertx/Internals.java", """
        import io.vertx.core.internal.VertxInternal;
        class Internals {}
        """);
    write("agent/src/main/java/c/Doc.java", """
        /**
         * No reflection: nothing here calls setAccessible( or reads io.vertx.core.impl.Anything.
         */
        // nor privateLookupIn(
        class Doc { io.vertx.core.spi.cluster.ClusterManager m; String s = "v-r is a word"; }
        """);
    write("dashboard/src/test/java/d/BrowserTest.java", "class BrowserTest { String s = \"?v-r=init\"; }\n");

    assertThat(findings()).isEmpty();
  }

  @Test
  void checkout_usesNoLibraryInternalsOutsideItsCompatPackages() {
    List<Finding> found = LibraryInternals.scan(SourceTree.root());

    assertThat(found)
        .as("Use the library's public API, or move the use into that library's compat package (for example "
            + "io.busload.protocol.compat.vertx) with a test that fails when the library changes it; %d lines:%n%s",
            found.size(), found.stream().map(Object::toString).collect(Collectors.joining(System.lineSeparator())))
        .isEmpty();
  }
}
