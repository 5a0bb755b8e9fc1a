package io.busload.protocol;

import java.util.Map;
import java.util.TreeMap;

/**
 * The coordinator asking one device of one agent to run a suite.
 *
 * @param options suite options by name (for example {@code elements}); empty for the suite's defaults. One more
 *     name is a run option, not a suite option: {@link #PROFILE}
 */
public record RunRequest(
    int schemaVersion, String runId, String sweepId, String deviceId, String suite, Map<String, String> options)
    implements Protocol.Message {
  /**
   * {@code profile=true}: the agent also counts hardware counters under Nsight Compute and sends them in each
   * result's {@code counters}; an agent without ncu (or asked for a device ncu cannot profile) refuses the run.
   */
  public static final String PROFILE = "profile";

  public RunRequest {
    options = Map.copyOf(options);
  }

  /** Whether the run is to be profiled; {@link IllegalArgumentException} for a value other than true or false. */
  public boolean profile() {
    return profile(options);
  }

  /** The options the suite reads: all of them but {@link #PROFILE}. */
  public Map<String, String> suiteOptions() {
    return suiteOptions(options);
  }

  public static boolean profile(Map<String, String> options) {
    String value = options.get(PROFILE);
    if (value == null || value.isBlank() || value.trim().equalsIgnoreCase("false")) {
      return false;
    }
    if (value.trim().equalsIgnoreCase("true")) {
      return true;
    }
    throw new IllegalArgumentException(PROFILE + ": must be true or false, got '" + value + "'");
  }

  public static Map<String, String> suiteOptions(Map<String, String> options) {
    Map<String, String> suite = new TreeMap<>(options);
    suite.remove(PROFILE);
    return suite;
  }
}
