package io.busload.agent.device;

import java.lang.foreign.MemorySegment;
import java.util.List;

/** One program with its buffers on a device: run its steps, time them, read every buffer back, free it. */
public interface Workload extends AutoCloseable {
  /**
   * How a batch was timed: held behind a blocking kernel so the GPU ran it back to back, unheld (too
   * large to hold, or a device with no hold: the host queued launches while the timer ran), or re-timed unheld
   * because the hold timed out before the host had queued the batch.
   */
  enum Hold { HELD, UNHELD, RETIMED }

  /** One timed batch: the seconds all its launches took together, device-timed, and how it was held. */
  record Batch(double seconds, Hold hold) {}

  /** Runs the program's steps {@code launches} times back to back and times them. */
  Batch time(int launches);

  /** The seconds of {@link #time}, for callers that need no more. */
  default double timeBatch(int launches) {
    return time(launches).seconds();
  }

  /**
   * The most launches a batch may have and still be held (4 KiB copies calibrated to 1,460 launches a
   * sample were all timed unheld, so the host's enqueue rate, not the link, set their time). Samples are kept to
   * it; such a sample may last less than the sample target. No limit where nothing is held.
   */
  default int heldLaunchLimit() {
    return Integer.MAX_VALUE;
  }

  /** Host copies of every buffer, in program order: inputs as filled, outputs and scratch as the device left them. */
  List<MemorySegment> download();

  /**
   * Host copies of every buffer as {@link #download} gives them, except that outputs and scratch are read into host
   * memory of their own, so the copies {@link #download} returned keep what they held: the check after the timed
   * launches compares the two. Empty where this backend cannot keep both (its outputs live in host memory, or it has
   * no second copy); the caller then downloads again.
   */
  default java.util.Optional<List<MemorySegment>> downloadApart() {
    return java.util.Optional.empty();
  }

  /** Frees every buffer and event. */
  @Override
  void close();
}
