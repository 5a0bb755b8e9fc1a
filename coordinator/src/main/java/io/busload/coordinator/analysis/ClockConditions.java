package io.busload.coordinator.analysis;

import io.busload.analysis.verdict.Conditions;
import io.busload.protocol.Clocks;
import io.busload.protocol.KernelResult;

/**
 * A result's {@link Conditions} for the verdicts, from its typed clocks (a result says how it was measured
 * in typed fields, never in prose a printer did not compute). Only a result whose agent reported no typed clocks has
 * none;
 * for it, and only for it, the clocks are read back out of its method sentence ({@link Conditions#fromMethod}).
 */
public final class ClockConditions {
  private ClockConditions() {}

  /** The conditions of a result at hand. */
  public static Conditions of(KernelResult r) {
    return of(r.sampling() == null ? null : r.sampling().clocks(), r.method());
  }

  /**
   * The conditions of a result with typed {@code clocks} (null: stored without them) and {@code method}.
   *
   * <p>Clocks read during sampling give the midpoint of the lowest and highest reading of each clock, as the prose's
   * before and after readings gave their mean, and throttling where any reading held a throttling reason. Clocks not
   * read, or a device without them, give no figures: a figure from elsewhere would be a guess. Whether other processes
   * shared the GPU is in no typed field (the agent's nvidia-smi readings before and after say it in words only), so
   * that one still comes from the method.
   */
  public static Conditions of(Clocks clocks, String method) {
    if (clocks == null) {
      return Conditions.fromMethod(method);
    }
    return Conditions.fromClocks(clocks.reading() == Clocks.Reading.READ, clocks.smMinMHz(), clocks.smMaxMHz(),
        clocks.memMinMHz(), clocks.memMaxMHz(),
        clocks.throttleReasons() != null && Clocks.throttling(clocks.throttleReasons()), method);
  }
}
