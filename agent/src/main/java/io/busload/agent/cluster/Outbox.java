package io.busload.agent.cluster;

import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's results on its own disk until the coordinator acks them (docs/design/invariants.md#acks):
 * one JSON file per result id, written atomically (temp file, fsync, rename, fsync of the directory) before
 * the first send, deleted only after an ok ack for that id. A crash at any point leaves either no file (the
 * result was never reported as measured) or a whole one (it is resent on the next start; the coordinator
 * skips an id it has stored already, so a resend is harmless).
 *
 * <p>Every method blocks on the file system: call them from a device worker or {@code executeBlocking}, never
 * from an event loop. Safe for concurrent use (one file per id; the directory is the only shared state).
 */
public final class Outbox {
  private static final Logger LOG = LoggerFactory.getLogger(Outbox.class);
  static final String SUFFIX = ".json";
  static final String TEMP_SUFFIX = ".tmp";
  /** Where unreadable files go, each beside a {@code .reason} file saying why. */
  static final String CORRUPT = "corrupt";

  private final Path dir;

  private Outbox(Path dir) {
    this.dir = dir;
  }

  /** Opens (creating it when missing) the outbox in {@code dir}. */
  public static Outbox open(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create agent outbox " + dir + ": " + e.getMessage(), e);
    }
    return new Outbox(dir);
  }

  /**
   * {@code BUSLOAD_OUTBOX}, else {@code ~/.busload/agent/outbox-<agentId>} (the id made file-name safe: two
   * agents on one host with different ids never share an outbox).
   */
  public static Path directory(Map<String, String> env, String agentId) {
    String configured = env.get("BUSLOAD_OUTBOX");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured.trim());
    }
    String safe = agentId.replaceAll("[^A-Za-z0-9._-]", "_");
    return Path.of(System.getProperty("user.home"), ".busload", "agent", "outbox-" + safe);
  }

  public Path dir() {
    return dir;
  }

  /** Writes {@code result} durably; returns once its file and the directory entry are on disk. */
  public void put(KernelResult result) {
    Path target = file(result.id());
    Path temp = dir.resolve(result.id() + SUFFIX + TEMP_SUFFIX);
    try {
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer bytes = ByteBuffer.wrap(JsonCodec.toJson(result));
        while (bytes.hasRemaining()) {
          channel.write(bytes);
        }
        channel.force(true);
      }
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("the outbox's file system cannot rename atomically: " + dir, e);
      }
      syncDirectory();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write result " + result.id() + " to outbox " + dir + ": "
          + e.getMessage(), e);
    }
  }

  /** Forgets {@code id} (its ok ack arrived). True when a file was there. */
  public boolean remove(UUID id) {
    try {
      boolean removed = Files.deleteIfExists(file(id));
      if (removed) {
        syncDirectory();
      }
      return removed;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete acked result " + id + " from outbox " + dir + ": "
          + e.getMessage(), e);
    }
  }

  public boolean contains(UUID id) {
    return Files.exists(file(id));
  }

  /**
   * Every result still waiting for its ack, oldest file first. A file that does not parse as a result, or
   * whose name is not its id, is moved to {@code corrupt/} with a reason and skipped: one bad file never keeps
   * the others from being sent. Temp files left by a crash mid-write are deleted (their rename never happened,
   * so no send did either).
   */
  public List<KernelResult> pending() {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      for (Path path : stream) {
        String name = path.getFileName().toString();
        if (!Files.isRegularFile(path)) {
          continue;
        }
        if (name.endsWith(TEMP_SUFFIX)) {
          LOG.info("outbox: deleting {} left by an interrupted write", name);
          Files.deleteIfExists(path);
        } else if (name.endsWith(SUFFIX)) {
          files.add(path);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list outbox " + dir + ": " + e.getMessage(), e);
    }
    files.sort(Comparator.comparing(Outbox::modified).thenComparing(Path::toString));
    List<KernelResult> results = new ArrayList<>(files.size());
    for (Path path : files) {
      String name = path.getFileName().toString();
      try {
        KernelResult result = JsonCodec.fromJson(Files.readAllBytes(path), KernelResult.class);
        if (result.id() == null || !name.equals(result.id() + SUFFIX)) {
          quarantine(path, "file name does not match the result id " + result.id());
        } else {
          results.add(result);
        }
      } catch (IllegalArgumentException | NullPointerException e) {
        quarantine(path, e.getMessage());
      } catch (IOException e) {
        quarantine(path, "unreadable: " + e.getMessage());
      }
    }
    return results;
  }

  private void quarantine(Path path, String reason) {
    Path corrupt = dir.resolve(CORRUPT);
    Path name = path.getFileName();
    try {
      Files.createDirectories(corrupt);
      Files.move(path, corrupt.resolve(name), StandardCopyOption.REPLACE_EXISTING);
      Files.writeString(corrupt.resolve(name + ".reason"), reason + System.lineSeparator(), StandardCharsets.UTF_8);
      syncDirectory();
      LOG.error("outbox: {} is not a result and was moved to {}: {}", name, corrupt, reason);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot move corrupt outbox file " + path + " aside: " + e.getMessage(), e);
    }
  }

  private Path file(UUID id) {
    return dir.resolve(id + SUFFIX);
  }

  /** A rename is durable only once the directory itself is synced (POSIX). */
  private void syncDirectory() throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  private static long modified(Path path) {
    try {
      return Files.getLastModifiedTime(path).toMillis();
    } catch (IOException e) {
      return Long.MAX_VALUE;
    }
  }
}
