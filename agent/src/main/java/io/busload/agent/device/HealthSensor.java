package io.busload.agent.device;

import io.busload.protocol.HealthCounters;
import java.util.List;

/**
 * A GPU's error counters and XID events (NVML), read when a run begins and after each of its cases. Every query is
 * read-only: nothing is cleared or set. A counter the GPU or NVML cannot give is null in {@link HealthCounters},
 * never 0; a device with no NVML at all does not {@link #reads()}.
 */
public interface HealthSensor {
  /** Whether {@link #read()} and {@link #watchXids()} ask NVML here. */
  boolean reads();

  /** Where readings come from ({@code NVML, driver 580.82.07}), or why there are none. */
  String note();

  /** The counters now; a query that fails or is not supported leaves its field null. Never throws. */
  HealthCounters read();

  /** Starts watching XID critical errors (an NVML event set), until the watch is closed. Never throws. */
  XidWatch watchXids();

  /** XID events seen since the watch began; polled without waiting, on the device's worker. */
  interface XidWatch extends AutoCloseable {
    /** Whether XID events are watched; false where NVML or the GPU cannot (then {@link #poll} gives nothing). */
    boolean watching();

    /** XID numbers reported since the last poll, in order; empty when none. */
    List<Long> poll();

    /** Frees the event set. */
    @Override
    void close();
  }

  /** A watch that watches nothing. */
  XidWatch NOT_WATCHING = new XidWatch() {
    @Override
    public boolean watching() {
      return false;
    }

    @Override
    public List<Long> poll() {
      return List.of();
    }

    @Override
    public void close() {}
  };

  /** A sensor that reads nothing, for the reason given. */
  static HealthSensor none(String why) {
    return new Unread(why);
  }
}
