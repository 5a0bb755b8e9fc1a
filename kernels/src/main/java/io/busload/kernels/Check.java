package io.busload.kernels;

import java.util.List;

/**
 * Outcome of comparing a device's output with the CPU reference.
 *
 * @param mismatches the first few, as {@code out[i]: expected X, got Y}
 * @param mismatchCount every mismatching element
 */
public record Check(long checked, long mismatchCount, List<String> mismatches) {
  /** How many mismatches a check reports in words; the count says how many there were. */
  public static final int REPORTED = 5;

  public Check {
    mismatches = List.copyOf(mismatches);
  }

  public boolean passed() {
    return mismatchCount == 0;
  }
}
