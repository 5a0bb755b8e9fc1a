package io.busload.coordinator.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The REST API's tokens ({@code api_tokens}, V11): name, SHA-256 of the secret, scopes, expiry and revocation. The
 * secret itself never reaches this store. Scopes are kept as their lower-case names; what they allow is the API's
 * business.
 */
public final class ApiTokenStore {
  private static final String COLUMNS = "name, sha256, scopes, created_at, created_by, expires_at, revoked_at";

  private final Database db;

  public ApiTokenStore(Database db) {
    this.db = db;
  }

  /**
   * One token as stored.
   *
   * @param sha256 the SHA-256 of the secret (32 bytes)
   * @param scopes lower-case scope names
   * @param createdBy the name of the token that made it, or the way it came ({@code first start}, {@code tokens file})
   * @param expiresAt null: never
   * @param revokedAt null: not revoked
   */
  public record StoredToken(String name, byte[] sha256, Set<String> scopes, Instant createdAt, String createdBy,
      Instant expiresAt, Instant revokedAt) {}

  /** Stores {@code token} unless its name or its hash is stored already; returns whether it was stored. */
  public boolean insert(StoredToken token) {
    return db.inTransaction(c -> insert(c, token));
  }

  /**
   * Stores every token whose name and hash are both new, in one transaction; returns how many. A name that is stored
   * (even revoked) keeps its row.
   */
  public int insertNew(List<StoredToken> tokens) {
    return db.inTransaction(c -> {
      int stored = 0;
      for (StoredToken token : tokens) {
        stored += insert(c, token) ? 1 : 0;
      }
      return stored;
    });
  }

  /** Stores {@code token} only when the table holds no token at all, revoked ones included. */
  public boolean insertFirst(StoredToken token) {
    return db.inTransaction(c -> {
      // Two coordinators starting on one empty store: the lock makes the second wait and then see the first's row.
      Database.update(c, "LOCK TABLE api_tokens IN SHARE ROW EXCLUSIVE MODE", s -> {});
      if (Database.first(c, "SELECT 1 FROM api_tokens LIMIT 1", s -> {}, rs -> true).isPresent()) {
        return false;
      }
      return insert(c, token);
    });
  }

  private static boolean insert(Connection c, StoredToken token) throws SQLException {
    return Database.update(c, "INSERT INTO api_tokens (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?)"
        + " ON CONFLICT DO NOTHING", s -> {
          s.setString(1, token.name());
          s.setBytes(2, token.sha256());
          s.setArray(3, c.createArrayOf("text", token.scopes().stream().sorted().toArray()));
          s.setObject(4, Database.timestamp(token.createdAt()));
          s.setString(5, token.createdBy());
          s.setObject(6, Database.timestamp(token.expiresAt()));
          s.setObject(7, Database.timestamp(token.revokedAt()));
        }) == 1;
  }

  /** Every token, revoked ones included, by name. */
  public List<StoredToken> all() {
    return db.list("SELECT " + COLUMNS + " FROM api_tokens ORDER BY name", s -> {}, ApiTokenStore::row);
  }

  /** Marks {@code name} revoked at {@code at} (kept when it was revoked earlier); the token as it stands, if any. */
  public Optional<StoredToken> revoke(String name, Instant at) {
    return db.inTransaction(c -> {
      Database.update(c, "UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE name = ?", s -> {
        s.setObject(1, Database.timestamp(at));
        s.setString(2, name);
      });
      return Database.first(c, "SELECT " + COLUMNS + " FROM api_tokens WHERE name = ?", s -> s.setString(1, name),
          ApiTokenStore::row);
    });
  }

  private static StoredToken row(ResultSet rs) throws SQLException {
    return new StoredToken(rs.getString(1), rs.getBytes(2), Set.of((String[]) rs.getArray(3).getArray()),
        Database.instant(rs, 4), rs.getString(5), Database.instant(rs, 6), Database.instant(rs, 7));
  }
}
