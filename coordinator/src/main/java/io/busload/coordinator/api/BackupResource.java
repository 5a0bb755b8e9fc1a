package io.busload.coordinator.api;

import io.busload.coordinator.store.Backup;
import io.busload.coordinator.store.Database;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /api/backup}, the admins' (what {@code ./busload backup FILE} calls): a consistent backup of the whole
 * store ({@link Backup}) taken while agents keep storing results, answered as a zip. It is written first into a
 * file of the data folder's {@code backups/} (mode 600; it holds token hashes and notification secrets) and sent
 * from there, so the answer's status says whether the backup is complete, and deleted once sent.
 */
public record BackupResource(Vertx vertx, Database database, Path dataDir) implements ApiResource {
  private static final Logger LOG = LoggerFactory.getLogger(BackupResource.class);
  /** The schema version of the backup sent, for the command line to print without opening the zip. */
  static final String SCHEMA_VERSION_HEADER = "Busload-Schema-Version";

  @Override
  public void mount(Mounts api) {
    api.at("/api/backup").get("/").handler(this::backup);
  }

  private void backup(RoutingContext ctx) {
    ApiTokens.Caller caller = ctx.get(ApiAuth.CALLER);
    record Written(Path file, Backup.Manifest manifest) {}
    vertx.executeBlocking(() -> {
      Path folder = dataDir.resolve("backups");
      Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      Path file = Files.createTempFile(folder, "rest-", ".zip.part");
      Files.delete(file); // Backup.write makes it, mode 600, itself
      return new Written(file, Backup.write(database, file));
    }, false).onFailure(ctx::fail).onSuccess(written -> {
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
