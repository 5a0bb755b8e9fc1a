package io.busload.coordinator.api;

import io.busload.coordinator.store.Backup;
import io.busload.coordinator.store.Database;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /api/backup}, the admins' (what {@code ./busload backup FILE} calls): a consistent backup of the whole
 * store ({@link Backup}) taken while agents keep storing results, answered as a zip. It is written first into a
 * file of the data folder's {@code backups/} (mode 600; it holds token hashes and notification secrets) and sent
 * from there, so the answer's status says whether the backup is complete, and deleted once sent.
 *
 * <p>One backup at a time, on a connection of its own ({@code database} is a pool of one apart from the stores'):
 * a backup holds its connection for as long as the copy takes, and must never hold one that results are stored
 * through. A second request meanwhile gets 409.
 */
public final class BackupResource implements ApiResource {
  private static final Logger LOG = LoggerFactory.getLogger(BackupResource.class);
  /** The schema version of the backup sent, for the command line to print without opening the zip. */
  static final String SCHEMA_VERSION_HEADER = "Busload-Schema-Version";

  private final Vertx vertx;
  private final Database database;
  private final Path dataDir;
  private final AtomicBoolean running = new AtomicBoolean();

  /** {@code database}: a pool of its own for backups ({@link Database#apart}). */
  public BackupResource(Vertx vertx, Database database, Path dataDir) {
    this.vertx = vertx;
    this.database = database;
    this.dataDir = dataDir;
  }

  @Override
  public void mount(Mounts api) {
    api.at("/api/backup").get("/").handler(this::backup);
  }

  private void backup(RoutingContext ctx) {
    if (!running.compareAndSet(false, true)) {
      Replies.problem(ctx.response(), 409, "Conflict", "a backup is being taken; ask again when it is done", null);
      return;
    }
    ApiTokens.Caller caller = ctx.get(ApiAuth.CALLER);
    record Written(Path file, Backup.Manifest manifest) {}
    vertx.executeBlocking(() -> {
      Path folder = dataDir.resolve("backups");
      Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      Path file = Files.createTempFile(folder, "rest-", ".zip.part");
      Files.delete(file); // Backup.write makes it, mode 600, itself
      return new Written(file, Backup.write(database, file));
    }, false).onComplete(done -> running.set(false)).onFailure(ctx::fail).onSuccess(written -> {
      LOG.info("backup of schema version {} ({} rows) sent to {}", written.manifest().schemaVersion(),
          written.manifest().rows(), caller == null ? "?" : caller.name());
      ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/zip")
          .putHeader(SCHEMA_VERSION_HEADER, written.manifest().schemaVersion())
          .putHeader("Content-Disposition", "attachment; filename=\"busload-backup.zip\"")
          .sendFile(written.file().toString())
          .onComplete(sent -> vertx.fileSystem().delete(written.file().toString()));
    });
  }
}
