package io.busload.dashboard.coordinator;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * A result outside its history's noise band ({@code GET /api/regressions}): a regression or an improvement, with
 * the environment that changed between the baseline and it.
 */
public record Change(UUID id, UUID resultId, String kind, String deviceId, String model, String kernel, String params,
    double bandwidth, double baselineMedian, double noiseBand, double robustZ, double changeFraction,
    Map<String, Diff> environmentDiff, Instant measuredAt) {

  public Change {
    environmentDiff = environmentDiff == null ? Map.of() : Map.copyOf(environmentDiff);
  }

  public boolean regression() {
    return "REGRESSION".equalsIgnoreCase(kind);
  }

  /** One environment field before and after (driver, clocks, agent version...). */
  public record Diff(String before, String after) {}
}
