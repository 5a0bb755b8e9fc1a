package io.busload.testsupport.tree;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** One line a tree check reports, printed as a compiler prints a location so that an editor can jump to it. */
record Finding(String file, int line, String text) {
  @Override
  public String toString() {
    return file + ":" + line + ": " + text.strip();
  }

  /** Whether line {@code i} of a file's {@code lines} is one to report (it may read the next line too). */
  interface Rule {
    boolean flags(List<String> lines, int i);
  }

  /** Every line {@code rule} flags in the text files under {@code root} that {@code checked} takes, in order. */
  static List<Finding> scan(Path root, Predicate<String> checked, Rule rule) {
    List<Finding> findings = new ArrayList<>();
    for (String file : SourceTree.textFiles(root)) {
      if (checked.test(file)) {
        List<String> lines = SourceTree.lines(root.resolve(file));
        for (int i = 0; i < lines.size(); i++) {
          if (rule.flags(lines, i)) {
            findings.add(new Finding(file, i + 1, lines.get(i)));
          }
        }
      }
    }
    return findings;
  }
}
