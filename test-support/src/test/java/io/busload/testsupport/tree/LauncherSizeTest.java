package io.busload.testsupport.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The launcher finds Java, Maven and Node and dispatches; what it runs lives in Java (deploy's launcher package) or in
 * scripts beside what they prepare. Kept under 150 lines so that logic has to go there.
 */
class LauncherSizeTest {
  @Test
  void launcher_thisCheckout_under150Lines() throws IOException {
    List<String> lines = Files.readAllLines(SourceTree.root().resolve("busload"));

    assertThat(lines.size()).as("lines of ./busload (move logic into Java or a script it calls)").isLessThan(150);
  }
}
