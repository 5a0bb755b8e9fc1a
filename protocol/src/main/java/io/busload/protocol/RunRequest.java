package io.busload.protocol;

import java.util.Map;

/**
 * The coordinator asking one device of one agent to run a suite.
 *
 * @param options suite options by name (for example {@code elements}); empty for the suite's defaults
 */
public record RunRequest(
    int schemaVersion, String runId, String sweepId, String deviceId, String suite, Map<String, String> options)
    implements Protocol.Message {

  public RunRequest {
    options = Map.copyOf(options);
  }
}
