package io.busload.coordinator.api;

import io.busload.coordinator.store.ApiTokenStore;
import io.busload.coordinator.store.ApiTokenStore.StoredToken;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The REST API's bearer tokens as every coordinator of one store sees them: the {@code api_tokens} table, read again
 * every {@link #REFRESH} (and at once after a change made here), so a token revoked through any coordinator is
 * refused by all within seconds, with no restart. Only SHA-256 hashes are kept and compared; a request's token is
 * compared with every hash in constant time, whichever matches, so how long a refusal takes says nothing about them.
 *
 * <p>At start, each {@code name:sha256-hex} line of the tokens file whose name and hash are new to the store is
 * imported as an admin token: a tokens file keeps working, and it is the way back in when every admin token is
 * lost. With no token at all, one admin token named {@code admin} is made and handed over once, as
 * the dashboard hands over its first password: to {@code firstTokenFile} (mode 600) when given, else on stdout,
 * never through the logger, whose output is kept and shipped.
 */
public final class ApiTokens {
  private static final Logger LOG = LoggerFactory.getLogger(ApiTokens.class);
  public static final String FIRST_NAME = "admin";
  /** How stale the copy of the table may be: how long a revoked token may still be taken by another coordinator. */
  static final Duration REFRESH = Duration.ofSeconds(2);
  private static final String BEARER = "bearer ";
  private static final HexFormat HEX = HexFormat.of();
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Who a request's token says it is. */
  record Caller(String name, Set<Scope> scopes) {
    boolean may(Scope scope) {
      return scope.grantedBy(scopes);
    }
  }

  /** What a request's {@code Authorization} header amounts to. */
  sealed interface Presented permits Valid, Expired, Unknown {}

  record Valid(Caller caller) implements Presented {}

  record Expired(String name, Instant at) implements Presented {}

  /** No token, a header that is not a bearer token, or a token that is not (or no longer) in the store. */
  record Unknown() implements Presented {}

  private record Entry(String name, byte[] hash, Set<Scope> scopes, Instant expiresAt) {}

  private final ApiTokenStore store;
  private final Clock clock;
  private volatile List<Entry> entries = List.of();
  private Vertx vertx;
  private long timer = -1;
  private boolean refreshing;

  private ApiTokens(ApiTokenStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /**
   * Imports the tokens file, makes the first admin token where the store holds none, and reads the table. Blocks:
   * call it on a worker.
   */
  public static ApiTokens open(ApiTokenStore store, Path tokensFile, Path firstTokenFile, PrintStream out,
      Clock clock) throws IOException {
    ApiTokens tokens = new ApiTokens(store, clock);
    tokens.importFile(tokensFile);
    tokens.makeFirst(firstTokenFile, out);
    tokens.refresh();
    return tokens;
  }

  /** Reads the table again every {@link #REFRESH}, on a worker, until {@link #stop()}. */
  public void start(Vertx vertx) {
    this.vertx = vertx;
    timer = vertx.setPeriodic(REFRESH.toMillis(), id -> {
      if (refreshing) {
        return;
      }
      refreshing = true;
      refreshed().onComplete(done -> refreshing = false);
    });
  }

  public void stop() {
    if (vertx != null && timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  /** Reads the table now, on a worker; a failure keeps the copy as it was and is logged. */
  Future<Void> refreshed() {
    return vertx.<Void>executeBlocking(() -> {
      refresh();
      return null;
    }, false).onFailure(e -> LOG.warn("cannot read the API tokens from the store; the copy of {} stays: {}",
        clock.instant(), e.getMessage()));
  }

  private void refresh() {
    List<Entry> read = new ArrayList<>();
    for (StoredToken token : store.all()) {
      if (token.revokedAt() == null) {
        read.add(new Entry(token.name(), token.sha256(), scopes(token.scopes()), token.expiresAt()));
      }
    }
    entries = List.copyOf(read);
  }

  static Set<Scope> scopes(Set<String> keys) {
    Set<Scope> scopes = EnumSet.noneOf(Scope.class);
    keys.forEach(key -> scopes.add(Scope.valueOf(key.toUpperCase(Locale.ROOT))));
    return scopes;
  }

  private void importFile(Path file) throws IOException {
    if (file == null || Files.notExists(file)) {
      return;
    }
    List<StoredToken> read = new ArrayList<>();
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    Instant now = clock.instant();
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
      read.add(new StoredToken(line.substring(0, colon).strip(), HEX.parseHex(hex), Set.of(Scope.ADMIN.key()), now,
          "tokens file", null, null));
    }
    int imported = store.insertNew(read);
    if (imported > 0) {
      LOG.info("imported {} API token(s) from {} as admin tokens; manage them with ./busload token", imported, file);
    }
  }

  private void makeFirst(Path firstTokenFile, PrintStream out) throws IOException {
    String secret = newSecret();
    if (!store.insertFirst(new StoredToken(FIRST_NAME, sha256(secret), Set.of(Scope.ADMIN.key()), clock.instant(),
        "first start", null, null))) {
      return; // the store holds tokens (perhaps another coordinator's first one); nothing to hand over
    }
    if (firstTokenFile != null) {
      Files.deleteIfExists(firstTokenFile);
      writePrivate(firstTokenFile, secret + "\n");
      LOG.info("made the first API token '{}' (admin); handed over in {}", FIRST_NAME, firstTokenFile);
    } else {
      out.println("Busload REST API token '" + FIRST_NAME + "' (admin; shown once; send it as Authorization:"
          + " Bearer ...): " + secret);
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

  /** A new secret: 32 random bytes, base64url without padding (43 characters). */
  static String newSecret() {
    byte[] raw = new byte[32];
    RANDOM.nextBytes(raw);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
  }

  /** What the {@code Authorization} header {@code authorization} (null: none) amounts to now. */
  Presented check(String authorization) {
    if (authorization == null || authorization.length() <= BEARER.length()
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return new Unknown();
    }
    byte[] presented = sha256(authorization.substring(BEARER.length()).strip());
    Entry found = null;
    for (Entry entry : entries) {
      if (MessageDigest.isEqual(entry.hash(), presented) && found == null) {
        found = entry;
      }
    }
    if (found == null) {
      return new Unknown();
    }
    if (found.expiresAt() != null && !clock.instant().isBefore(found.expiresAt())) {
      return new Expired(found.name(), found.expiresAt());
    }
    return new Valid(new Caller(found.name(), found.scopes()));
  }

  /** How many tokens may be used (not revoked; expired ones included), as last read. */
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
