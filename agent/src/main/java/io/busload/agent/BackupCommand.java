package io.busload.agent;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.protocol.JsonCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code backup FILE}: a consistent backup of a running coordinator's whole store, fetched from its {@code GET
 * /api/backup} with an admin token. Over REST, so it works from any host that reaches the API and for an external
 * database as well as the embedded one, while sweeps run. The file holds token hashes and notification secrets: it is
 * created with mode 600, and an existing file is never overwritten.
 */
@Command(name = "backup", mixinStandardHelpOptions = true,
    description = {"Write a consistent backup of a running coordinator's store to FILE (mode 600: it holds token"
        + " hashes and notification secrets), while sweeps run: ./busload backup busload-2026-11-27.zip",
        "./busload restore FILE fills a fresh coordinator from it (deploy/README.md, \"Backup and restore\")."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:written", "1:refused (FILE exists): the message says why", "2:wrong usage, or no admin token",
        "3:the coordinator cannot be reached, or failed", "4:the admin token was refused (401), or is not an admin"
        + " token (403)"})
final class BackupCommand implements Callable<Integer> {
  /** A large store takes a while to copy out; the answer starts only once the backup is complete. */
  private static final Duration TIMEOUT = Duration.ofHours(6);

  @Mixin
  TokenCommand.Target target;

  @Parameters(index = "0", paramLabel = "FILE", description = "Where to write the backup (must not exist)")
  Path file;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = target.spec.commandLine().getOut();
    PrintWriter err = target.spec.commandLine().getErr();
    URI base = target.base();
    String token = target.token();
    if (Files.exists(file)) {
      err.println("busload backup: refused: " + file + " exists; give a new file name");
      err.flush();
      return TokenCommand.REFUSED;
    }
    HttpRequest request = HttpRequest.newBuilder(base.resolve("api/backup")).timeout(TIMEOUT)
        .header("Authorization", "Bearer " + token).GET().build();
    HttpResponse<InputStream> response;
    try {
      response = target.client().send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      err.println("busload backup: cannot reach the coordinator at " + base + " (" + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
      err.flush();
      return TokenCommand.UNREACHABLE;
    }
    int status = response.statusCode();
    if (status != 200) {
      String detail;
      try (InputStream body = response.body()) {
        JsonNode json = JsonCodec.MAPPER.readTree(body.readNBytes(64 * 1024));
        detail = json != null && json.hasNonNull("detail") ? json.get("detail").asText() : "answered " + status;
      } catch (IOException e) {
        detail = "answered " + status;
      }
      boolean auth = status == 401 || status == 403;
      err.println("busload backup: the coordinator at " + base + (auth ? " refused the admin token (" : " failed (")
          + status + "): " + detail);
      err.flush();
      return auth ? TokenCommand.UNAUTHORIZED : TokenCommand.UNREACHABLE;
    }
    Path part = file.resolveSibling(file.getFileName() + ".part");
    long bytes;
    try (InputStream body = response.body()) {
      Files.createFile(part, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      try (OutputStream to = Files.newOutputStream(part, StandardOpenOption.WRITE)) {
        bytes = body.transferTo(to);
      }
      Files.move(part, file, StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException e) {
      err.println("busload backup: refused: " + e.getFile() + " exists; give a new file name");
      err.flush();
      return TokenCommand.REFUSED;
    } catch (IOException e) {
      deleteQuietly(part);
      err.println("busload backup: the backup from " + base + " broke off (" + e.getMessage() + "); nothing written");
      err.flush();
      return TokenCommand.UNREACHABLE;
    }
    out.println("busload backup: " + file + " written (" + bytes + " bytes, schema version "
        + response.headers().firstValue("Busload-Schema-Version").orElse("?")
        + "); it holds token hashes and notification secrets: keep it private");
    out.flush();
    return 0;
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException ignored) {
      // the message already says nothing was written; a stray .part is the operator's to remove
    }
  }
}
