package io.busload.testsupport.tree;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether every citation of a design reason (a markdown file under docs/design/, then '#' and an anchor) leads
 * somewhere: the file exists and declares that anchor ({@code <a id="anchor"></a>}, which no heading edit renames).
 * Code cites the reasons
 * it keeps by that path; a citation that leads nowhere is as bad as one to a file outside the repository.
 */
final class DesignCitations {
  static final Pattern CITATION = Pattern.compile("docs/design/([A-Za-z0-9_-]+[.]md)#([a-z0-9-]+)");
  private static final Pattern ANCHOR = Pattern.compile("<a id=\"([a-z0-9-]+)\"></a>");

  private DesignCitations() {}

  /** One line per citation that leads nowhere, with where it is; empty when all lead somewhere. */
  static List<String> broken(Path root) {
    List<String> broken = new ArrayList<>();
    for (String file : SourceTree.textFiles(root)) {
      if (!HistoryMentions.checked(file)) {
        continue;
      }
      List<String> lines = SourceTree.lines(root.resolve(file));
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = CITATION.matcher(lines.get(i));
        while (m.find()) {
          Path design = root.resolve("docs/design").resolve(m.group(1));
          if (!Files.isRegularFile(design)) {
            broken.add(file + ":" + (i + 1) + ": docs/design/" + m.group(1) + " does not exist");
          } else if (!anchors(design).contains(m.group(2))) {
            broken.add(file + ":" + (i + 1) + ": docs/design/" + m.group(1) + " has no anchor #" + m.group(2));
          }
        }
      }
    }
    return broken;
  }

  static Set<String> anchors(Path design) {
    Set<String> anchors = new HashSet<>();
    for (String line : SourceTree.lines(design)) {
      Matcher m = ANCHOR.matcher(line);
      while (m.find()) {
        anchors.add(m.group(1));
      }
    }
    return anchors;
  }
}
