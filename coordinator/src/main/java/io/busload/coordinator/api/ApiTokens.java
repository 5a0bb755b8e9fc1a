package io.busload.coordinator.api;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The REST API's bearer tokens: a file of {@code name:sha256-hex} lines, so whoever reads the
 * file (a backup, a support bundle) learns no token. Lines that are blank or start with {@code #} are skipped.
 *
 * <p>With no file at first start one token named {@code admin} is made and handed over once, as the dashboard
 * hands over its first admin password: to {@code firstTokenFile} (mode 600) when given, else on stdout, never
 * through the logger, whose output is kept and shipped.
 */
public final class ApiTokens {
  public static final String FIRST_NAME = "admin";
  private static final String BEARER = "bearer ";
  private static final HexFormat HEX = HexFormat.of();

  private record Entry(String name, byte[] hash) {}

  private final List<Entry> entries;

  private ApiTokens(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  /** Reads {@code file}; where there is none, creates it holding a new {@code admin} token and hands it over. */
  public static ApiTokens load(Path file, Path firstTokenFile, PrintStream out) throws IOException {
    if (Files.notExists(file)) {
      create(file, firstTokenFile, out);
    }
    List<Entry> entries = new ArrayList<>();
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int colon = line.lastIndexOf(':');
      String hex = colon < 0 ? "" : line.substring(colon + 1).strip().toLowerCase(Locale.ROOT);
      // The line itself stays out of the message: a token pasted by mistake must not reach the log.
      if (colon <= 0 || !hex.matches("[0-9a-f]{64}")) {
        throw new IllegalArgumentException(file + " line " + (i + 1)
            + ": not name:sha256-hex (64 hex digits of the token's SHA-256)");
      }
      entries.add(new Entry(line.substring(0, colon).strip(), HEX.parseHex(hex)));
    }
    return new ApiTokens(entries);
  }

  private static void create(Path file, Path firstTokenFile, PrintStream out) throws IOException {
    byte[] raw = new byte[32];
    new SecureRandom().nextBytes(raw);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
    String line = "# Busload REST API tokens: name:sha256-hex of the token. Add one per script or member.\n"
        + FIRST_NAME + ":" + HEX.formatHex(sha256(token)) + "\n";
    try {
      writePrivate(file, line);
    } catch (FileAlreadyExistsException e) {
      return; // another coordinator on the same directory made it first; its token stands
    }
    if (firstTokenFile != null) {
      Files.deleteIfExists(firstTokenFile);
      writePrivate(firstTokenFile, token + "\n");
    } else {
      out.println("Busload REST API token '" + FIRST_NAME + "' (shown once; send it as Authorization: Bearer ...): "
          + token);
      out.flush();
    }
  }

  private static void writePrivate(Path file, String text) throws IOException {
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(file);
    }
    Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
  }

  /**
   * The name of the token an {@code Authorization} header carries, or empty. Every stored hash is compared, in
   * constant time, whichever matches: how long a refusal takes says nothing about the hashes.
   */
  public Optional<String> check(String authorization) {
    if (authorization == null || authorization.length() <= BEARER.length()
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return Optional.empty();
    }
    byte[] presented = sha256(authorization.substring(BEARER.length()).strip());
    String found = null;
    for (Entry entry : entries) {
      if (MessageDigest.isEqual(entry.hash(), presented) && found == null) {
        found = entry.name();
      }
    }
    return Optional.ofNullable(found);
  }

  public int size() {
    return entries.size();
  }

  public static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  public static String sha256Hex(String token) {
    return HEX.formatHex(sha256(token));
  }
}
