package io.busload.testsupport;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * What one class logs while a test runs, for tests that assert a line a component writes (a refusal, a held lane, a
 * view let go). Read while the component may still log from its own threads: the appender adds under its own lock
 * (logback's {@code AppenderBase.doAppend} is synchronized), so every read copies under that lock; reading the list
 * directly threw {@code ConcurrentModificationException} once (ApiAuthTest).
 */
public final class LogCapture implements AutoCloseable {
  private final Logger logger;
  private final Level levelBefore;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private LogCapture(Class<?> source, Level level) {
    logger = (Logger) LoggerFactory.getLogger(source);
    levelBefore = logger.getLevel();
    if (level != null) {
      logger.setLevel(level);
    }
    appender.start();
    logger.addAppender(appender);
  }

  /** Captures {@code source}'s logger at the level the test configuration gives it. */
  public static LogCapture of(Class<?> source) {
    return new LogCapture(source, null);
  }

  /** Captures {@code source}'s logger with DEBUG on until {@link #close}, which puts its level back. */
  public static LogCapture atDebug(Class<?> source) {
    return new LogCapture(source, Level.DEBUG);
  }

  /** The events so far, copied under the appender's lock. */
  public List<ILoggingEvent> events() {
    synchronized (appender) {
      return List.copyOf(appender.list);
    }
  }

  /** The formatted messages so far, copied under the appender's lock. */
  public List<String> messages() {
    return events().stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    logger.setLevel(levelBefore);
  }
}
