package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.store.ApiTokenStore;
import io.busload.coordinator.store.ApiTokenStore.StoredToken;
import io.busload.protocol.JsonCodec;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@code /api/tokens}, the admins' (what {@code ./busload token} calls): {@code POST} makes a token and answers its
 * secret, the only time it is ever shown; {@code GET} lists tokens without secrets or hashes; {@code DELETE
 * /api/tokens/NAME} revokes one. A change is read back into {@link ApiTokens} at once here, and by every other
 * coordinator of the store within {@link ApiTokens#REFRESH}.
 */
public record TokenResource(Vertx vertx, ApiTokenStore store, ApiTokens tokens, Clock clock) implements ApiResource {
  /** Names go into logs and into pushes' records: short, and nothing that could forge a log line. */
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,63}");

  @Override
  public void mount(Mounts api) {
    api.collection("/api/tokens", this::create, this::list).delete("/:id").handler(this::revoke);
  }

  /** A token as listed: never its secret, never its hash. {@code expired} is as of the answer. */
  record TokenView(String name, List<String> scopes, Instant createdAt, String createdBy, Instant expiresAt,
      boolean expired, Instant revokedAt) {
    static TokenView of(StoredToken token, Instant now) {
      return new TokenView(token.name(), token.scopes().stream().sorted().toList(), token.createdAt(),
          token.createdBy(), token.expiresAt(), token.expiresAt() != null && !now.isBefore(token.expiresAt()),
          token.revokedAt());
    }
  }

  /** A token just made, with its secret: the one answer that holds it. */
  record Created(String name, List<String> scopes, Instant createdAt, String createdBy, Instant expiresAt,
      String token) {}

  private void create(RoutingContext ctx) {
    ApiTokens.Caller caller = ctx.get(ApiAuth.CALLER);
    JsonNode body;
    try {
      byte[] bytes = Requests.bodyBytes(ctx);
      body = bytes == null ? null : JsonCodec.MAPPER.readTree(bytes);
    } catch (IOException e) {
      throw new BadInput("body", "not JSON: " + e.getMessage().lines().findFirst().orElse(""));
    }
    if (body == null || !body.isObject()) {
      throw new BadInput("body", "a JSON object {\"name\", \"scopes\": [\"read\"|\"push\"|\"sweep\"|\"admin\"],"
          + " \"expiresAt\" (optional)}");
    }
    JsonNode nameNode = body.get("name");
    if (nameNode == null || !nameNode.isTextual() || !NAME.matcher(nameNode.asText()).matches()) {
      throw new BadInput("name", "1 to 64 letters, digits and . _ @ - (starting with a letter or digit), such as"
          + " ci-push");
    }
    JsonNode scopesNode = body.get("scopes");
    if (scopesNode == null || !scopesNode.isArray() || scopesNode.isEmpty()) {
      throw new BadInput("scopes", "a non-empty list of read, push, sweep, admin");
    }
    Set<Scope> scopes = EnumSet.noneOf(Scope.class);
    for (JsonNode scope : scopesNode) {
      scopes.add(Scope.parse("scopes", scope.isTextual() ? scope.asText() : scope.toString()));
    }
    Instant now = clock.instant();
    Instant expiresAt = null;
    JsonNode expires = body.get("expiresAt");
    if (expires != null && !expires.isNull()) {
      try {
        expiresAt = Instant.parse(expires.asText());
      } catch (DateTimeParseException e) {
        throw new BadInput("expiresAt", "not an ISO-8601 instant such as 2027-01-01T00:00:00Z: '" + expires.asText()
            + "'");
      }
      if (!expiresAt.isAfter(now)) {
        throw new BadInput("expiresAt", expiresAt + " is not in the future (now " + now + ")");
      }
    }
    String secret = ApiTokens.newSecret();
    StoredToken token = new StoredToken(nameNode.asText(), ApiTokens.sha256(secret),
        scopes.stream().map(Scope::key).collect(Collectors.toSet()), now, caller.name(), expiresAt, null);
    blocking(() -> store.insert(token)).compose(stored -> {
      if (!stored) {
        throw new NameTaken(token.name());
      }
      return tokens.refreshed().otherwise((Void) null);
    }).onSuccess(done -> {
      ctx.response().putHeader(HttpHeaders.LOCATION, "/api/tokens");
      json(ctx.response(), 201, new Created(token.name(), token.scopes().stream().sorted().toList(), now,
          caller.name(), token.expiresAt(), secret));
    }).onFailure(e -> {
      if (e instanceof NameTaken taken) {
        Replies.problem(ctx.response(), 409, "Conflict", "a token named '" + taken.getMessage() + "' exists (or"
            + " existed: a revoked name is not given again); choose another name", "name");
      } else {
        ctx.fail(e);
      }
    });
  }

  private static final class NameTaken extends RuntimeException {
    NameTaken(String name) {
      super(name, null, false, false);
    }
  }

  private void list(RoutingContext ctx) {
    blocking(store::all).onSuccess(all -> {
      Instant now = clock.instant();
      json(ctx.response(), 200, all.stream().map(t -> TokenView.of(t, now)).toList());
    }).onFailure(ctx::fail);
  }

  private void revoke(RoutingContext ctx) {
    String name = Requests.pathId(ctx);
    Instant now = clock.instant();
    blocking(() -> store.revoke(name, now)).compose(found -> tokens.refreshed().otherwise((Void) null)
        .map(refreshed -> found)).onSuccess(found -> {
          if (found.isPresent()) {
            json(ctx.response(), 200, TokenView.of(found.get(), now));
          } else {
            Replies.notFound(ctx, "token", name);
          }
        }).onFailure(ctx::fail);
  }

  private <T> Future<T> blocking(Callable<T> work) {
    return vertx.executeBlocking(work, false);
  }
}
