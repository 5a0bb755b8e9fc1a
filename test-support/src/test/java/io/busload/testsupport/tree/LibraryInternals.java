package io.busload.testsupport.tree;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Finds main-source lines that reach into another library's insides outside a {@code compat} package: reflection
 * past access checks, an {@code impl} or {@code internal} package of a library the fleet uses, or Vaadin's
 * client-server protocol spoken by hand. Each library's {@code compat} package is where such a use may live, beside
 * a test that fails when the library changes it; anywhere else it would break silently on an upgrade.
 */
final class LibraryInternals {
  /** Reflection that opens what a library keeps private. */
  static final Pattern REFLECTION = Pattern.compile(
      "\\.setAccessible\\(|\\.getDeclared(?:Field|Method|Constructor)s?\\(|privateLookupIn\\(|\\bsun\\.misc\\.Unsafe\\b");
  /** A package a library marks as its own implementation. */
  static final Pattern INTERNAL_PACKAGE = Pattern.compile(
      "\\b(?:io\\.vertx|com\\.hazelcast|com\\.vaadin|io\\.netty|org\\.springframework)(?:\\.\\w+)*\\.(?:impl|internal)\\b");
  /** Vaadin's request types and UIDL messages, which only its own client should write. */
  static final Pattern VAADIN_PROTOCOL = Pattern.compile("[?&]v-r=|\"ui-navigate\"|\"UNLOAD\"");

  private LibraryInternals() {}

  /** Whether {@code file} is main source that the check reads. */
  static boolean checked(String file) {
    return file.contains("/src/main/") && !file.contains("/compat/")
        && (file.endsWith(".java") || file.endsWith(".sh") || file.endsWith(".ts") || file.endsWith(".js"));
  }

  static List<Finding> scan(Path root) {
    return Finding.scan(root, LibraryInternals::checked, (lines, i) -> {
      String line = lines.get(i);
      String code = line.strip();
      if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/*") || code.startsWith("#")) {
        return false; // a comment may name what the code does not do
      }
      return REFLECTION.matcher(line).find() || INTERNAL_PACKAGE.matcher(line).find()
          || VAADIN_PROTOCOL.matcher(line).find();
    });
  }
}
