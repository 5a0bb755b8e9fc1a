package io.busload.dashboard.coordinator;

import java.time.Instant;
import java.util.UUID;

/**
 * One valid result of a kernel's history ({@code GET /api/history}): what its chart draws, without the samples
 * and fields of the whole result, so a year of a whole fleet stays a small answer.
 *
 * @param model the device's name
 * @param bandwidth bytes per second
 * @param pushed the result came by {@code ./busload push}, not from a fleet agent
 * @param measuredBy the other tool and its version ("BabelStream 5.0") that measured it; null for Busload's own
 */
public record HistoryPoint(UUID resultId, String deviceId, String model, Instant measuredAt, double bandwidth,
    boolean pushed, String measuredBy) {

  /** A fleet result's point (and every point from a coordinator before pushes). */
  public HistoryPoint(UUID resultId, String deviceId, String model, Instant measuredAt, double bandwidth) {
    this(resultId, deviceId, model, measuredAt, bandwidth, false, null);
  }

  /** A point of Busload's own measuring. */
  public HistoryPoint(UUID resultId, String deviceId, String model, Instant measuredAt, double bandwidth,
      boolean pushed) {
    this(resultId, deviceId, model, measuredAt, bandwidth, pushed, null);
  }
}
