package io.busload.testsupport.tree;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The files of a checkout that a person reads: everything under the root except build output and fetched tools
 * ({@code target}, {@code node_modules}, {@code .tools}, {@code .busload}, {@code .carry}, {@code .git}) and files
 * that are not text. Walked rather than asked of git, so that a file not yet added is checked too and the checks
 * run in a copy without {@code .git}.
 */
final class SourceTree {
  static final Set<String> SKIPPED_FOLDERS = Set.of("target", "node_modules", ".tools", ".busload", ".carry", ".git");

  private SourceTree() {}

  /** The repository root: the nearest folder at or above {@code start} holding both {@code pom.xml} and {@code busload}. */
  static Path root(Path start) {
    for (Path p = start.toAbsolutePath().normalize(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("pom.xml")) && Files.isRegularFile(p.resolve("busload"))) {
        return p;
      }
    }
    throw new IllegalStateException("no Busload checkout (pom.xml beside ./busload) at or above " + start);
  }

  /** The root of the checkout these tests run in (Maven runs a module's tests in the module's folder). */
  static Path root() {
    return root(Path.of(System.getProperty("user.dir")));
  }

  /** Every text file under {@code root}, as paths relative to it with '/' separators, sorted. */
  static List<String> textFiles(Path root) {
    List<String> files = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(root)) {
      walk.filter(p -> !skipped(root, p))
          .filter(Files::isRegularFile)
          .filter(SourceTree::isText)
          .forEach(p -> files.add(root.relativize(p).toString().replace('\\', '/')));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    files.sort(null);
    return files;
  }

  private static boolean skipped(Path root, Path p) {
    for (Path part : root.relativize(p)) {
      if (SKIPPED_FOLDERS.contains(part.toString())) {
        return true;
      }
    }
    return false;
  }

  /** Text: readable as UTF-8 and free of NUL in its first 8 KiB (images, fatbins and archives are not). */
  private static boolean isText(Path p) {
    try (var in = Files.newInputStream(p)) {
      byte[] head = in.readNBytes(8192);
      for (byte b : head) {
        if (b == 0) {
          return false;
        }
      }
      StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(head, 0, utf8Prefix(head)));
      return true;
    } catch (java.nio.charset.CharacterCodingException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The length of {@code head} without a multi-byte character cut at its end. */
  private static int utf8Prefix(byte[] head) {
    int n = head.length;
    for (int back = 1; back <= 3 && n - back >= 0; back++) {
      int b = head[n - back] & 0xff;
      if (b >= 0xc0) {
        return n - back;
      }
      if (b < 0x80) {
        break;
      }
    }
    return n;
  }

  static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(file.toString(), e);
    }
  }
}
