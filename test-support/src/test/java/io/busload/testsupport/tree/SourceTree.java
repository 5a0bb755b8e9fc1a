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
 * The files of a checkout that a person reads: what git tracks, and what it would track (new files not yet added),
 * that is text. Where git cannot answer (a copy without {@code .git}), the folders are walked instead, leaving out
 * build output, fetched tools and generated code ({@link #SKIPPED_FOLDERS}, {@link #GENERATED}), as the
 * repository's {@code .gitignore} does.
 */
final class SourceTree {
  static final Set<String> SKIPPED_FOLDERS = Set.of("target", "node_modules", ".tools", ".busload", ".carry", ".git");
  /** Vaadin's generated frontend: ignored by git, and written by the build, not by a person. */
  static final String GENERATED = "dashboard/src/main/frontend/generated/";

  private SourceTree() {}

  /** The repository root: the nearest folder at or above {@code start} holding {@code pom.xml} and {@code busload}. */
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
    List<String> listed = gitFiles(root);
    List<String> files = new ArrayList<>();
    if (listed != null) {
      for (String f : listed) {
        Path p = root.resolve(f);
        if (Files.isRegularFile(p) && isText(p)) {
          files.add(f);
        }
      }
    } else {
      try (Stream<Path> walk = Files.walk(root)) {
        walk.filter(p -> !skipped(root, p))
            .filter(Files::isRegularFile)
            .filter(SourceTree::isText)
            .map(p -> root.relativize(p).toString().replace('\\', '/'))
            .filter(f -> !f.startsWith(GENERATED))
            .forEach(files::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    files.sort(null);
    return files;
  }

  /** Tracked and untracked-but-not-ignored files, or null where {@code root} is not a git work tree. */
  static List<String> gitFiles(Path root) {
    if (!Files.exists(root.resolve(".git"))) {
      return null;
    }
    try {
      Process git = new ProcessBuilder("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
          .directory(root.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (git.waitFor() != 0) {
        return null;
      }
      List<String> files = new ArrayList<>();
      for (String f : out.split("\0")) {
        if (!f.isEmpty()) {
          files.add(f);
        }
      }
      return files;
    } catch (IOException e) {
      return null; // no git on this machine: walk instead
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while listing files with git", e);
    }
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
