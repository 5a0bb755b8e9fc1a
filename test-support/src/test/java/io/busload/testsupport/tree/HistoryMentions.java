package io.busload.testsupport.tree;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds text that points a reader somewhere they cannot follow: an issue number (the word issue or issues followed
 * by a number, in prose or inside a test's name), or a citation of a design file outside this repository. A reader of
 * this tree has no issue tracker and no files beside the checkout, so a comment, string, doc or test name must say
 * what holds now and why, and cite the project's own docs/design/ for the reasons.
 *
 * <p>Left out by design, each because rewriting it would be wrong rather than merely unneeded:
 * <ul>
 *   <li>{@code docs/results/}: dated records of what was measured when; their history is their content.
 *   <li>Flyway migrations ({@code db/migration/V*.sql}): Flyway checksums each applied file, comments included,
 *       so editing one fails validation on every database that applied it.
 * </ul>
 * This class's own source does not match: every pattern below is written so that its text is not an instance of
 * itself (a character class or an escaped dot breaks the literal), so no exclusion for the checker is needed.
 */
final class HistoryMentions {
  /** The word, then spaces, '#' or '_' and a number; capitalised also inside an identifier (a test's name). */
  static final Pattern ISSUE_NUMBER = Pattern.compile("(?:(?<![A-Za-z])[Ii]ssues?|Issues?)[ _#]*[0-9]+");
  /**
   * The word ending a line whose next line, after its comment or quote marks, starts with the number: a mention that
   * reflowed prose split in two.
   */
  static final Pattern ISSUE_AT_END = Pattern.compile("(?:(?<![A-Za-z])[Ii]ssues?|Issues?)[ _#]*$");
  static final Pattern NUMBER_AT_START = Pattern.compile("^[\\s*/#>-]*[0-9]+");
  /** A design file that is not in this repository, and the folder beside the checkout it lived in. */
  static final Pattern OUTSIDE_CITATION = Pattern.compile("ARCHITECTURE[.]md|[.][.]/shared\\b");

  private static final Pattern MIGRATION = Pattern.compile(".*/db/migration/V[0-9]+__[^/]*[.]sql");

  private HistoryMentions() {}

  /** Whether {@code file} (relative, '/' separators) is checked at all; see the class comment for what is not. */
  static boolean checked(String file) {
    return !file.startsWith("docs/results/") && !MIGRATION.matcher(file).matches();
  }

  /** Every finding in the text files under {@code root}, in file and line order. */
  static List<Finding> scan(Path root) {
    return Finding.scan(root, HistoryMentions::checked, (lines, i) -> {
      String line = lines.get(i);
      boolean split = i + 1 < lines.size() && find(ISSUE_AT_END, line) && find(NUMBER_AT_START, lines.get(i + 1));
      return find(ISSUE_NUMBER, line) || find(OUTSIDE_CITATION, line) || split;
    });
  }

  private static boolean find(Pattern p, String line) {
    Matcher m = p.matcher(line);
    return m.find();
  }
}
