package io.busload.testsupport.tree;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Whether the two maps of the modules a reader meets first, docs/design/overview.md and README.md's module table,
 * name every module the root pom.xml builds. A module the maps leave out is one a newcomer finds only by listing
 * folders.
 */
final class ModuleMap {
  static final String OVERVIEW = "docs/design/overview.md";
  static final String README = "README.md";

  private static final Pattern CODE_WORD = Pattern.compile("`([A-Za-z0-9_.-]+)`");

  private ModuleMap() {}

  /** The modules in the root pom.xml's {@code <modules>}, in order. */
  static List<String> modules(Path root) {
    try {
      var factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      var doc = factory.newDocumentBuilder().parse(root.resolve("pom.xml").toFile());
      NodeList lists = doc.getDocumentElement().getElementsByTagName("modules");
      List<String> modules = new ArrayList<>();
      for (int i = 0; i < lists.getLength(); i++) {
        Element list = (Element) lists.item(i);
        if (list.getParentNode() != doc.getDocumentElement()) {
          continue; // a profile's modules are not the build's
        }
        NodeList names = list.getElementsByTagName("module");
        for (int j = 0; j < names.getLength(); j++) {
          modules.add(names.item(j).getTextContent().strip());
        }
      }
      return modules;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException("pom.xml: cannot read <modules>: " + e.getMessage(), e);
    }
  }

  /** Every name written as code ({@code `name`}) anywhere in the overview. */
  static Set<String> inOverview(Path root) {
    Set<String> names = new LinkedHashSet<>();
    for (String line : SourceTree.lines(root.resolve(OVERVIEW))) {
      Matcher m = CODE_WORD.matcher(line);
      while (m.find()) {
        names.add(m.group(1));
      }
    }
    return names;
  }

  /**
   * The first column's code names of README's module table: the table whose header's first cell is "module", up
   * to the first line that is not a table row.
   */
  static Set<String> inReadmeTable(Path root) {
    Set<String> names = new LinkedHashSet<>();
    boolean inTable = false;
    for (String line : SourceTree.lines(root.resolve(README))) {
      String row = line.strip();
      if (!inTable) {
        inTable = row.startsWith("|") && firstCell(row).equals("module");
        continue;
      }
      if (!row.startsWith("|")) {
        break;
      }
      Matcher m = CODE_WORD.matcher(firstCell(row));
      if (m.matches()) {
        names.add(m.group(1));
      }
    }
    if (!inTable) {
      throw new IllegalStateException(README + ": no table whose first header cell is 'module'");
    }
    return names;
  }

  private static String firstCell(String row) {
    String[] cells = row.split("\\|", -1);
    return cells.length > 1 ? cells[1].strip() : "";
  }

  /** One line per module a map leaves out, naming the map; empty when both name them all. */
  static List<String> missing(Path root) {
    Set<String> overview = inOverview(root);
    Set<String> readme = inReadmeTable(root);
    List<String> missing = new ArrayList<>();
    for (String module : modules(root)) {
      if (!overview.contains(module)) {
        missing.add(OVERVIEW + " does not name module `" + module + "`");
      }
      if (!readme.contains(module)) {
        missing.add(README + "'s module table has no row for `" + module + "`");
      }
    }
    return missing;
  }
}
