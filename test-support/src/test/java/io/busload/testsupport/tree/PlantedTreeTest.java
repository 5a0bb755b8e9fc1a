package io.busload.testsupport.tree;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the tests of a tree check share: a checkout planted file by file in a temporary folder, and what the check
 * prints for it, so that each check is seen to catch what it must before it is trusted on this checkout.
 */
abstract class PlantedTreeTest {
  @TempDir Path tree;
  private final Function<Path, List<?>> check;

  /** {@code check} reads a checkout's root and lists what it finds there, each printed as it reports it. */
  PlantedTreeTest(Function<Path, List<?>> check) {
    this.check = check;
  }

  /** Every planted tree is a checkout: these two files mark its root, as {@link SourceTree#root} looks for it. */
  @BeforeEach
  void checkout() throws IOException {
    write("pom.xml", "<project/>");
    write("busload", "#!/bin/bash\n");
  }

  /** Writes {@code text} at {@code file}, a path relative to the planted tree, making its folders. */
  void write(String file, String text) throws IOException {
    Path p = tree.resolve(file);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }

  /** What the check finds in the planted tree, as it prints each finding. */
  List<String> findings() {
    return check.apply(tree).stream().map(Object::toString).toList();
  }
}
