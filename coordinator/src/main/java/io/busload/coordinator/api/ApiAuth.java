package io.busload.coordinator.api;

import io.busload.coordinator.logging.LogEvery;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every request passes here before any resource sees it (and before a body is read, so a refused write costs no
 * parsing). {@link #required} names the one scope each route needs; a read may come with no token at all (viewing
 * is open on a lab's network, the dashboard and the README rely on it), except the token list, which is the
 * admins'. A token that is sent is always checked: unknown, revoked or expired gets 401, a token short of the scope
 * gets 403 naming it. The header is never logged or echoed, whatever it holds; refusals are counted on /metrics and
 * logged at most every 10 s.
 */
final class ApiAuth implements Handler<RoutingContext> {
  private static final Logger LOG = LoggerFactory.getLogger(ApiAuth.class);
  /** The {@link ApiTokens.Caller} whose token a request carried, once checked; absent for an anonymous read. */
  static final String CALLER = "busload.caller";

  private final ApiTokens tokens;
  private final Counter unauthenticated;
  private final Counter forbidden;
  private final LogEvery refusedLog = new LogEvery(Duration.ofSeconds(10));

  ApiAuth(ApiTokens tokens, MeterRegistry metrics) {
    this.tokens = tokens;
    this.unauthenticated = Counter.builder("busload_api_refused").tag("why", "no_valid_token")
        .description("REST requests refused: no valid API token (401), or a token without the scope (403)")
        .register(metrics);
    this.forbidden = Counter.builder("busload_api_refused").tag("why", "missing_scope")
        .description("REST requests refused: no valid API token (401), or a token without the scope (403)")
        .register(metrics);
  }

  /**
   * The scope a request needs: token management, notification targets (whose settings name where messages go) and
   * backups (which hold both) are admin, reads included; every other read is read; pushes need push; sweeps,
   * schedules and accepted changes need sweep; a write anywhere else needs admin, so a route added without a line
   * here is closed rather than open.
   */
  static Scope required(HttpMethod method, String path) {
    boolean read = method == HttpMethod.GET || method == HttpMethod.HEAD;
    if (under(path, "/api/tokens") || under(path, "/api/notifications") || under(path, "/api/backup")) {
      return Scope.ADMIN;
    }
    if (read) {
      return Scope.READ;
    }
    if (under(path, "/api/pushes")) {
      return Scope.PUSH;
    }
    if (under(path, "/api/sweeps") || under(path, "/api/schedules") || under(path, "/api/accepted-changes")) {
      return Scope.SWEEP;
    }
    return Scope.ADMIN;
  }

  /** Whether a request needing {@code scope} by {@code method} may come with no token. */
  static boolean anonymous(HttpMethod method, Scope scope) {
    return scope == Scope.READ && (method == HttpMethod.GET || method == HttpMethod.HEAD);
  }

  private static boolean under(String path, String prefix) {
    return path.equals(prefix) || path.startsWith(prefix + "/");
  }

  @Override
  public void handle(RoutingContext ctx) {
    HttpMethod method = ctx.request().method();
    String path = ctx.normalizedPath();
    Scope needed = required(method, path);
    String header = ctx.request().getHeader(HttpHeaders.AUTHORIZATION);
    if (header == null && anonymous(method, needed)) {
      ctx.next();
      return;
    }
    switch (tokens.check(header)) {
      case ApiTokens.Valid(ApiTokens.Caller caller) when caller.may(needed) -> {
        LOG.debug("{} {} by token '{}'", method, path, caller.name());
        ctx.put(CALLER, caller);
        ctx.next();
      }
      case ApiTokens.Valid(ApiTokens.Caller caller) -> {
        forbidden.increment();
        Object from = ctx.request().remoteAddress();
        refusedLog.count("scope", n -> LOG.warn("{} request(s) refused for want of a scope, latest: {} {} by token"
            + " '{}' from {} (needs '{}')", n, method, path, caller.name(), from, needed.key()));
        Replies.problem(ctx.response(), 403, "Forbidden", "the API token '" + caller.name() + "' lacks the '"
            + needed.key() + "' scope that " + method + " " + path + " needs (it holds " + caller.scopes().stream()
            .map(Scope::key).sorted().toList() + ")", "Authorization");
      }
      case ApiTokens.Expired(String name, java.time.Instant at) -> unauthorized(ctx, method, path,
          "the API token '" + name + "' expired at " + at + "; ask an admin for a new one (./busload token create)");
      case ApiTokens.Unknown unknown -> unauthorized(ctx, method, path, header == null
          ? method + " " + path + " needs an API token with the '" + needed.key() + "' scope: send Authorization:"
              + " Bearer <token> (./busload token create makes one)"
          : "not a valid API token (unknown or revoked); send Authorization: Bearer <token>");
    }
  }

  private void unauthorized(RoutingContext ctx, HttpMethod method, String path, String detail) {
    unauthenticated.increment();
    Object from = ctx.request().remoteAddress();
    refusedLog.count("token", n -> LOG.warn("{} request(s) refused for want of a valid API token, latest: {} {}"
        + " from {}", n, method, path, from));
    ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"busload\"");
    Replies.problem(ctx.response(), 401, "Unauthorized", detail, "Authorization");
  }
}
