package io.busload.protocol;

import java.util.List;
import java.util.regex.Pattern;

/**
 * What became of one case: measured, or why it has no speed. Typed, so that no reader tells a skipped
 * case from a failed one by the words its method starts with.
 */
public enum ResultStatus {
  /** The output passed its check and the samples were timed: the only status with a bandwidth. */
  MEASURED,
  /** The output did not match the reference; {@code mismatches} holds the first ones. */
  CHECK_FAILED,
  /** A device call failed (a CUDA error, memory the device does not have, a lost device); the error is in mismatches. */
  DEVICE_FAILED,
  /** Not run on this device: a default size that does not fit, a size its family cannot take. */
  SKIPPED,
  /** Cannot run on this device at all (cuBLAS on a CPU, no cuBLAS library on the host). */
  UNAVAILABLE;

  /** Measurement's last mismatch line after a failed check, in every agent version so far. */
  private static final Pattern CHECK_SUMMARY = Pattern.compile("\\d+ of \\d+ elements differ");

  /** Whether the case failed (a check or a device call), as opposed to measured or not run here. */
  public boolean failed() {
    return this == CHECK_FAILED || this == DEVICE_FAILED;
  }

  /** Whether the case was not run here (skipped or unavailable): neither a speed nor a failure. */
  public boolean notRun() {
    return this == SKIPPED || this == UNAVAILABLE;
  }

  /**
   * The status of a result written before this field existed (older agents, stored JSON, pushed files): the only
   * place the method's words still decide, because nothing else was recorded then.
   */
  public static ResultStatus legacy(boolean valid, String method, List<String> mismatches) {
    if (valid) {
      return MEASURED;
    }
    if (method != null && method.startsWith("skipped: ")) {
      return SKIPPED;
    }
    if (method != null && method.startsWith("unavailable: ")) {
      return UNAVAILABLE;
    }
    return mismatches != null && !mismatches.isEmpty() && CHECK_SUMMARY.matcher(mismatches.getLast()).matches()
        ? CHECK_FAILED : DEVICE_FAILED;
  }
}
