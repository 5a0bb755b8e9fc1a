package io.busload.protocol;

import java.util.ArrayList;
import java.util.List;

/**
 * The GPU's clocks and throttle reasons as read after every sample (NVML), and what was done about
 * throttling: samples taken while the GPU throttled are dropped and counted (nvbench's rule), and a result left with
 * too few clean samples is flagged. Where nothing was read the figures are null, never a guess.
 *
 * @param reading whether the clocks were read, could not be read on this host, or do not exist on this device
 * @param note where they were read from ({@code NVML 12.580.82}), or why they were not
 * @param smMinMHz lowest SM clock over the samples' readings; null unless read
 * @param smMaxMHz highest SM clock; null unless read
 * @param memMinMHz lowest memory clock; null unless read
 * @param memMaxMHz highest memory clock; null unless read
 * @param throttleReasons every NVML throttle reason bit seen in any reading, OR-ed; null unless read
 * @param throttledSamplesDropped samples dropped because a throttling reason was active when read (0 unless read)
 * @param tooFewCleanSamples fewer clean samples than the stopping rule's minimum were left: the figures stand on
 *     what there was, and this flag says not to trust them as a steady clock's
 */
public record Clocks(Reading reading, String note, Integer smMinMHz, Integer smMaxMHz, Integer memMinMHz,
    Integer memMaxMHz, Long throttleReasons, int throttledSamplesDropped, boolean tooFewCleanSamples) {

  /** Whether clocks were read. */
  public enum Reading {
    /** Read through NVML after every sample. */
    READ,
    /** A GPU whose clocks could not be read here (no {@code libnvidia-ml.so.1}, an NVML error): {@code note} says why. */
    NOT_READ,
    /** A device without GPU clocks (the CPU backend). */
    UNAVAILABLE
  }

  /**
   * Throttle reason bits that are not throttling: GPU idle (0x1), an applications clocks setting (0x2) and a
   * display clock setting (0x100); the same bits {@code nvidia-smi}'s reading treated so.
   */
  public static final long BENIGN_REASONS = 0x1L | 0x2L | 0x100L;

  private static final String[] REASON_NAMES = {"gpu idle", "applications clocks setting", "sw power cap",
      "hw slowdown", "sync boost", "sw thermal slowdown", "hw thermal slowdown", "hw power brake slowdown",
      "display clock setting"};

  public Clocks {
    if (reading == null) {
      throw new IllegalArgumentException("clocks.reading: missing");
    }
    if (reading != Reading.READ && (smMinMHz != null || smMaxMHz != null || memMinMHz != null || memMaxMHz != null
        || throttleReasons != null || throttledSamplesDropped != 0)) {
      throw new IllegalArgumentException("clocks: figures given though reading is " + reading);
    }
    if (throttledSamplesDropped < 0) {
      throw new IllegalArgumentException("clocks.throttledSamplesDropped: negative");
    }
  }

  /** A device without GPU clocks. */
  public static Clocks unavailable(String why) {
    return new Clocks(Reading.UNAVAILABLE, why, null, null, null, null, null, 0, false);
  }

  /** A GPU whose clocks could not be read here, and why. */
  public static Clocks notRead(String why) {
    return new Clocks(Reading.NOT_READ, why, null, null, null, null, null, 0, false);
  }

  /** Whether {@code reasons} hold a throttling bit (anything but idle and clock settings). */
  public static boolean throttling(long reasons) {
    return (reasons & ~BENIGN_REASONS) != 0;
  }

  /** NVML's names of the bits set in {@code reasons}, lowest bit first; unknown bits as hex. */
  public static List<String> reasonNames(long reasons) {
    List<String> names = new ArrayList<>();
    for (int bit = 0; bit < 64; bit++) {
      if ((reasons & (1L << bit)) != 0) {
        names.add(bit < REASON_NAMES.length ? REASON_NAMES[bit] : "0x" + Long.toHexString(1L << bit));
      }
    }
    return names;
  }
}
