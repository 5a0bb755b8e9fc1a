package io.busload.coordinator.store;

import java.time.Instant;

/**
 * Which results to read, newest first; a null filter matches everything.
 *
 * @param model the device's name ("NVIDIA H100 80GB HBM3"), matching every device of that model
 * @param params the kernel's parameters as {@link Params#text} writes them ({@code elements=1024;stride=4})
 * @param from measured at or after (inclusive)
 * @param to measured before (exclusive)
 * @param limit at most this many results in all
 */
public record ResultQuery(String sweepId, String deviceId, String model, String kernel, String params, Instant from,
    Instant to, int limit) {

  public ResultQuery {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative: " + limit);
    }
  }

  public ResultQuery(String sweepId, String deviceId, String kernel, int limit) {
    this(sweepId, deviceId, null, kernel, null, null, null, limit);
  }
}
