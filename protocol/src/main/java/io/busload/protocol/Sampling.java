package io.busload.protocol;

/**
 * How the samples of one result were timed (the method recorded, not asserted). A GPU sample is "held"
 * when its launches were queued behind the blocking kernel and ran back to back; "unheld" when its batch was too
 * large to hold (or the device has no hold: the CPU), so the host's enqueue path may sit inside the timing; and
 * "re-timed" when the hold timed out before the host had queued the batch, so it was timed again unheld. Warm-up
 * launches, launches per sample and the samples themselves are {@link KernelResult}'s own fields.
 *
 * @param heldSamples samples timed behind the blocking kernel
 * @param unheldSamples samples timed without it from the start
 * @param retimedSamples samples whose hold timed out and that were timed again without it
 * @param stopReason why sampling stopped
 * @param clocks clocks and throttle reasons during sampling, and the samples dropped for throttling
 * @param cache the working set against L2
 * @param othersBusy the other devices of the same agent (their ids, sorted) that were measuring at some time while
 *     these samples were taken (a run on several GPUs at once shares power, host memory and the host's
 *     links); empty when this device had the host to itself, and in results whose agent did not record it
 */
public record Sampling(int heldSamples, int unheldSamples, int retimedSamples, StopReason stopReason, Clocks clocks,
    CacheResidency cache, java.util.List<String> othersBusy) {
  public Sampling {
    if (heldSamples < 0 || unheldSamples < 0 || retimedSamples < 0) {
      throw new IllegalArgumentException("sampling: negative sample count");
    }
    if (stopReason == null || clocks == null || cache == null) {
      throw new IllegalArgumentException("sampling: stopReason, clocks and cache are required");
    }
    othersBusy = othersBusy == null ? java.util.List.of() : java.util.List.copyOf(othersBusy);
  }

  /** Samples taken with the host to itself: nothing else of this agent measured meanwhile. */
  public Sampling(int heldSamples, int unheldSamples, int retimedSamples, StopReason stopReason, Clocks clocks,
      CacheResidency cache) {
    this(heldSamples, unheldSamples, retimedSamples, stopReason, clocks, cache, java.util.List.of());
  }

  /** The same samples, known to have been taken while {@code others} measured too. */
  public Sampling withOthersBusy(java.util.List<String> others) {
    return new Sampling(heldSamples, unheldSamples, retimedSamples, stopReason, clocks, cache, others);
  }

  /** Samples timed in all, dropped ones included. */
  public int timedSamples() {
    return heldSamples + unheldSamples + retimedSamples;
  }
}
