package io.busload.analysis.changepoint;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * E-Divisive on each arrival: the values since the last change (at most {@code window} of them) are tested for
 * their best split, with at least {@code minBefore} values before it and {@code minAfter} after. A change found
 * restarts the baseline at it (the values before are dropped), so each change is announced once, at the arrival
 * that made it certain: {@code minAfter - 1} values after the change at the earliest.
 *
 * <p>One instance per series; not thread-safe.
 */
public final class OnlineDetector {

  /**
   * @param window most values kept since the last change (older ones drop out)
   * @param minBefore fewest values of the old level before a change can be tested
   * @param minAfter fewest values of the new level: the least detection delay is {@code minAfter - 1}
   */
  public record Settings(int window, int minBefore, int minAfter, EDivisive.Settings test) {
    public Settings {
      if (minBefore < 2 || minAfter < 2) {
        throw new IllegalArgumentException("minBefore and minAfter must be at least 2");
      }
      if (window < minBefore + minAfter) {
        throw new IllegalArgumentException("window " + window + " is shorter than minBefore + minAfter");
      }
    }

    /** The settings the evaluation in docs/results/2026-11-24-change-points chose (its README says why). */
    public static Settings defaults() {
      return new Settings(60, 8, 6, EDivisive.Settings.defaults());
    }
  }

  private final Settings settings;
  private final EDivisive test;
  private final Deque<Double> values = new ArrayDeque<>();
  /** The series index of the first value held. */
  private long first;
  private long count;

  public OnlineDetector(Settings settings) {
    this.settings = settings;
    this.test = new EDivisive(settings.test());
  }

  public Settings settings() {
    return settings;
  }

  /** Values seen so far; the next value's index in the series. */
  public long count() {
    return count;
  }

  /** Values held since the last change (or restart). */
  public int held() {
    return values.size();
  }

  /** Adds the next value of the series; a change point (index in the whole series) when this value makes one certain. */
  public Optional<ChangePoint> add(double value) {
    values.addLast(value);
    count++;
    if (values.size() > settings.window()) {
      values.removeFirst();
      first++;
    }
    if (values.size() < settings.minBefore() + settings.minAfter()) {
      return Optional.empty();
    }
    double[] held = values.stream().mapToDouble(Double::doubleValue).toArray();
    Optional<ChangePoint> change = test.test(held, settings.minBefore(), settings.minAfter()).map(c -> c.shifted(first));
    change.ifPresent(c -> restartAt(c.index()));
    return change;
  }

  /**
   * Forgets the values before series index {@code index}: the baseline restarts there (a change found, or one an
   * operator accepted). An index at or past the next value forgets everything.
   */
  public void restartAt(long index) {
    while (first < index && !values.isEmpty()) {
      values.removeFirst();
      first++;
    }
    if (values.isEmpty()) {
      first = count;
    }
  }
}
