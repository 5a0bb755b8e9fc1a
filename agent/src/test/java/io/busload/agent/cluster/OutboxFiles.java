package io.busload.agent.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The outbox as the delivery tests look at it: the files on disk, not what {@link Outbox} says it holds. */
final class OutboxFiles {
  private OutboxFiles() {}

  /** Result files waiting in the outbox (not the corrupt folder, not temp files). */
  static Set<String> in(Path dir) {
    try (Stream<Path> list = Files.list(dir)) {
      return list.filter(Files::isRegularFile).map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(Outbox.SUFFIX)).collect(Collectors.toSet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
