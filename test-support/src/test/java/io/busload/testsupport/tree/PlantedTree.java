package io.busload.testsupport.tree;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A checkout planted file by file in a test's folder, so that a tree check is seen to catch what it must. */
final class PlantedTree {
  private PlantedTree() {}

  /** Writes {@code text} at {@code file} (a path relative to {@code tree}), making its folders. */
  static void write(Path tree, String file, String text) throws IOException {
    Path p = tree.resolve(file);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }

  /** The findings as the check prints them. */
  static List<String> printed(List<Finding> findings) {
    return findings.stream().map(Finding::toString).toList();
  }
}
