package io.busload.simulator.membership;

import java.util.List;
import java.util.function.ToDoubleFunction;
import org.apache.commons.math3.stat.regression.SimpleRegression;

/**
 * A power law {@code y = a * N^b} fitted by least squares on log y against log N: b near 1 is linear growth, near 2
 * quadratic (what a full mesh predicts for connections and heartbeat traffic of the whole cluster).
 *
 * @param r2 coefficient of determination of the log-log line
 */
public record Fit(String metric, String unit, double a, double b, double r2, int points) {

  /** The fitted value at {@code n} members. */
  public double at(double n) {
    return a * Math.pow(n, b);
  }

  static Fit of(String metric, String unit, List<SizeFigures> sizes, ToDoubleFunction<SizeFigures> y) {
    SimpleRegression regression = new SimpleRegression();
    int points = 0;
    for (SizeFigures s : sizes) {
      double v = y.applyAsDouble(s);
      if (v > 0 && Double.isFinite(v)) {
        regression.addData(Math.log(s.members()), Math.log(v));
        points++;
      }
    }
    if (points < 2) {
      return new Fit(metric, unit, Double.NaN, Double.NaN, Double.NaN, points);
    }
    return new Fit(metric, unit, Math.exp(regression.getIntercept()), regression.getSlope(), regression.getRSquare(),
        points);
  }

  /** Every cost the membership run measures, fitted. */
  static List<Fit> all(List<SizeFigures> sizes) {
    return List.of(
        of("connections (cluster)", "connections", sizes, SizeFigures::connections),
        of("heartbeat traffic (cluster)", "B/s", sizes, SizeFigures::bytesPerSecond),
        of("heartbeat traffic per member", "B/s", sizes, SizeFigures::bytesPerSecondPerMember),
        of("CPU (cluster)", "cores", sizes, SizeFigures::cpuCores),
        of("CPU per member", "cores", sizes, SizeFigures::cpuCoresPerMember),
        of("data member CPU", "cores", sizes, SizeFigures::seedCpuCores),
        of("RSS per member", "B", sizes, s -> s.rssBytesMedian()),
        of("heap per member", "B", sizes, s -> s.heapBytesMedian()),
        of("join", "s", sizes, SizeFigures::joinSeconds),
        of("join seen by all", "s", sizes, SizeFigures::joinSeenByAllSeconds),
        of("departure seen (max)", "s", sizes, SizeFigures::departureSeenMaxSeconds));
  }
}
