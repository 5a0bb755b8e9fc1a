package io.busload.analysis.changepoint;

import io.busload.analysis.stats.Robust;
import java.util.Arrays;
import java.util.Optional;

/**
 * Is one new value outside its history's noise band? The coordinator's regression check.
 *
 * <p>Over the last {@link #HISTORY} values (at least {@link #MIN_HISTORY}), take the median {@code m} and the
 * MAD; {@code sigma = 1.4826 * MAD}. The band is {@code max(3.5 * sigma, 1% of m)}: 3.5 robust sigmas is the usual
 * outlier cut (Iglewicz and Hoaglin), and the 1% floor keeps a history that happened to be nearly identical from
 * flagging changes no one could act on. Medians, so one bad value in the past cannot move the baseline.
 */
public final class RobustZScore {
  public static final int HISTORY = 30;
  public static final int MIN_HISTORY = 5;
  public static final double Z_CUT = 3.5;
  public static final double MIN_RELATIVE_BAND = 0.01;

  /**
   * A value outside the band.
   *
   * @param count history values the band was made from
   */
  public record Alarm(double value, double median, double mad, double band, double z, int count) {
    public double delta() {
      return value - median;
    }

    public double relativeShift() {
      return median == 0 ? 0 : delta() / Math.abs(median);
    }
  }

  private RobustZScore() {}

  /** {@code history} newest first (only its first {@link #HISTORY} count); empty within the band or too short. */
  public static Optional<Alarm> check(double value, double[] history) {
    if (history.length < MIN_HISTORY) {
      return Optional.empty();
    }
    double[] values = Arrays.copyOf(history, Math.min(HISTORY, history.length));
    double median = Robust.median(values);
    double mad = Robust.mad(values, median);
    double sigma = Robust.MAD_TO_SIGMA * mad;
    double band = Math.max(Z_CUT * sigma, MIN_RELATIVE_BAND * Math.abs(median));
    double delta = value - median;
    if (Math.abs(delta) <= band) {
      return Optional.empty();
    }
    // JSON has no infinity: a zero-MAD history reports the largest finite z.
    double z = sigma > 0 ? delta / sigma : Math.copySign(Double.MAX_VALUE, delta);
    return Optional.of(new Alarm(value, median, mad, band, z, values.length));
  }
}
