package io.busload.coordinator.api;

import io.busload.coordinator.logging.LogEvery;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes need a bearer token of the tokens file; reads stay open (viewing is open on a lab's network). The header
 * is never logged or echoed, whatever it holds. Refusals are counted on /metrics and logged at most every 10 s.
 */
final class WriteAuth implements Handler<RoutingContext> {
  private static final Logger LOG = LoggerFactory.getLogger(WriteAuth.class);
  /** The name of the API token a write came with, put in the routing context once it is checked (a push records it). */
  static final String TOKEN_NAME = "busload.token";

  private final ApiTokens tokens;
  private final Counter refused;
  private final LogEvery refusedLog = new LogEvery(Duration.ofSeconds(10));

  WriteAuth(ApiTokens tokens, MeterRegistry metrics) {
    this.tokens = tokens;
    this.refused = Counter.builder("busload_api_writes_refused")
        .description("REST writes refused for want of a valid API token").register(metrics);
  }

  @Override
  public void handle(RoutingContext ctx) {
    Optional<String> name = tokens.check(ctx.request().getHeader(HttpHeaders.AUTHORIZATION));
    if (name.isEmpty()) {
      refused.increment();
      String method = ctx.request().method().name();
      String path = ctx.request().path();
      Object from = ctx.request().remoteAddress();
      refusedLog.count("refused", n -> LOG.warn("{} write(s) refused for want of a valid API token, latest: {} {}"
          + " from {}", n, method, path, from));
      ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"busload\"");
      Replies.problem(ctx.response(), 401, "Unauthorized",
          "writes need an API token: send Authorization: Bearer <token> (tokens file: see the coordinator's settings)",
          "Authorization");
      return;
    }
    LOG.debug("{} {} by token '{}'", ctx.request().method(), ctx.request().path(), name.get());
    ctx.put(TOKEN_NAME, name.get());
    ctx.next();
  }
}
