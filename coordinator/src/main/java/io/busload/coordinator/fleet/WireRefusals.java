package io.busload.coordinator.fleet;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import io.busload.protocol.compat.vertx.VertxWire;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryContext;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Counts the event-bus frames that Vert.x refuses before any consumer of the coordinator sees them (so
 * that every refused message is counted), under address {@value #ADDRESS} in {@code busload_messages_refused_total}.
 *
 * <p>Vert.x reads each frame in its own inbound connection and offers no hook there. It refuses a frame it cannot
 * take in one of three ways, and each is watched where it surfaces, for this coordinator's Vert.x only (the names
 * and texts of Vert.x's implementation that this relies on are kept in {@link VertxWire}, with their test):
 * <ul>
 *   <li>a wire version from the future or a codec name nobody registered, with a reply address: Vert.x replies
 *       with a {@link ReplyFailure#ERROR} failure, seen by an outbound interceptor;</li>
 *   <li>the same without a reply address: Vert.x logs one ERROR line per frame, seen (and replaced by the
 *       rate-limited line of {@link Refusals}, so a flood of bad frames cannot flood the log) by a Logback
 *       turbo filter;</li>
 *   <li>a frame whose inner lengths lie: reading it throws, and Vert.x hands the exception to the Vert.x
 *       exception handler.</li>
 * </ul>
 * A fuzz test (EventBusFuzzTest) sends each kind and checks the counts, so a Vert.x upgrade that changes any of
 * these paths fails it rather than leaving frames uncounted.
 */
public final class WireRefusals implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WireRefusals.class);
  /** The metric's address label for frames refused before any address's consumer. */
  public static final String ADDRESS = "event-bus-wire";

  private final Vertx vertx;
  private final Refusals refusals;
  private final Handler<DeliveryContext<Object>> replies = this::onOutbound;
  private final Handler<Throwable> previousExceptionHandler;
  private final LoggerContext logback;
  private final TurboFilter logged;

  private WireRefusals(Vertx vertx, Refusals refusals) {
    this.vertx = vertx;
    this.refusals = refusals;
    vertx.eventBus().addOutboundInterceptor(replies);
    previousExceptionHandler = vertx.exceptionHandler();
    vertx.exceptionHandler(this::onException);
    ILoggerFactory factory = LoggerFactory.getILoggerFactory();
    if (factory instanceof LoggerContext context) {
      logback = context;
      logged = new VertxReaderFilter();
      logged.start();
      context.addTurboFilter(logged);
    } else {
      logback = null;
      logged = null;
      LOG.warn("logging is not Logback ({}): frames Vert.x refuses without a reply address are logged by Vert.x"
          + " but not counted", factory.getClass().getName());
    }
  }

  /** Starts counting for the coordinator living in {@code vertx}; {@link #close()} stops it. */
  public static WireRefusals install(Vertx vertx, Refusals refusals) {
    return new WireRefusals(vertx, refusals);
  }

  private void onOutbound(DeliveryContext<Object> delivery) {
    try {
      if (delivery.body() instanceof ReplyException failure && failure.failureType() == ReplyFailure.ERROR) {
        Refusals.Reason reason = reasonOf(failure.getMessage());
        if (reason != null) {
          refusals.count(ADDRESS, reason, failure.getMessage());
        }
      }
    } finally {
      delivery.next();
    }
  }

  private void onException(Throwable failure) {
    if (VertxWire.readingFrame(failure)) {
      refusals.count(ADDRESS, Refusals.Reason.BAD_FRAME, failure.toString());
    } else if (previousExceptionHandler != null) {
      previousExceptionHandler.handle(failure);
    } else {
      LOG.error("unhandled exception", failure);
    }
  }

  static Refusals.Reason reasonOf(String text) {
    if (text == null) {
      return null;
    }
    if (text.startsWith(VertxWire.WIRE_VERSION_TEXT)) {
      return Refusals.Reason.WIRE_VERSION;
    }
    if (text.startsWith(VertxWire.UNKNOWN_CODEC_TEXT)) {
      return Refusals.Reason.UNKNOWN_CODEC;
    }
    return null;
  }

  /** Vert.x's ERROR line for a refused frame, on this coordinator's event loop: counted, and not logged again. */
  private final class VertxReaderFilter extends TurboFilter {
    @Override
    public FilterReply decide(Marker marker, ch.qos.logback.classic.Logger logger, Level level, String format,
        Object[] params, Throwable t) {
      if (level != Level.ERROR || format == null || !VertxWire.MESSAGE_READER.equals(logger.getName())) {
        return FilterReply.NEUTRAL;
      }
      Context context = Vertx.currentContext();
      if (context == null || context.owner() != vertx) {
        return FilterReply.NEUTRAL;
      }
      Refusals.Reason reason = reasonOf(format);
      if (reason == null) {
        return FilterReply.NEUTRAL;
      }
      refusals.count(ADDRESS, reason, format);
      return FilterReply.DENY;
    }
  }

  @Override
  public void close() {
    vertx.eventBus().removeOutboundInterceptor(replies);
    vertx.exceptionHandler(previousExceptionHandler);
    if (logback != null) {
      logback.getTurboFilterList().remove(logged);
    }
  }
}
