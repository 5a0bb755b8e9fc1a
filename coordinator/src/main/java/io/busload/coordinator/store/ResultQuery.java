package io.busload.coordinator.store;

/**
 * Which results to read, newest first; a null filter matches everything.
 *
 * @param limit at most this many results in all
 */
public record ResultQuery(String sweepId, String deviceId, String kernel, int limit) {

  public ResultQuery {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative: " + limit);
    }
  }
}
