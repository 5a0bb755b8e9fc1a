package io.busload.protocol;

/**
 * The energy one case drew, read from the GPU's own total-energy counter (NVML, Volta and later) over a window of
 * back-to-back launches run after the timed samples, so the bandwidth figure is unchanged. The counter moves in
 * coarse steps (tens of milliseconds), so the window opens and closes on two of its steps, and {@code windowSeconds}
 * is the host time between them. A result whose energy was not read carries no {@code Energy} at all: printers then
 * say "not read", never 0.
 *
 * @param joules energy the whole GPU drew between the window's two counter steps
 * @param averageWatts {@code joules / windowSeconds}
 * @param idleWatts the GPU's power (NVML, instantaneous where the driver gives it) once the case's buffers were
 *     prepared and before its first launch; null where the reading failed
 * @param windowSeconds host seconds between the counter step that opened the window and the one that closed it
 * @param launches launches of the case that completed inside the window
 * @param counterSteps times the counter moved within the window; {@code windowSeconds / counterSteps} is its
 *     update period as seen here
 */
public record Energy(double joules, double averageWatts, Double idleWatts, double windowSeconds, long launches,
    int counterSteps) {
  public Energy {
    if (!(joules >= 0) || !(windowSeconds > 0) || !(averageWatts >= 0) || launches <= 0 || counterSteps <= 0) {
      throw new IllegalArgumentException("energy: joules >= 0, windowSeconds > 0, averageWatts >= 0, launches > 0"
          + " and counterSteps > 0 required, not " + joules + " J, " + windowSeconds + " s, " + averageWatts
          + " W, " + launches + " launches, " + counterSteps + " steps");
    }
    if (idleWatts != null && !(idleWatts >= 0)) {
      throw new IllegalArgumentException("energy: idleWatts must be >= 0, not " + idleWatts);
    }
  }

  /** Joules per useful gigabyte (1e9 bytes) moved, given the useful bytes of one launch; null without bytes. */
  public Double joulesPerGigabyte(long bytesPerLaunch) {
    if (bytesPerLaunch <= 0) {
      return null;
    }
    return joules / (launches * (double) bytesPerLaunch / 1e9);
  }

  /** Gigabytes (1e9 bytes) per second per watt, given the result's bandwidth in bytes per second; null without it. */
  public Double gigabytesPerSecondPerWatt(Double bandwidth) {
    if (bandwidth == null || !(averageWatts > 0)) {
      return null;
    }
    return bandwidth / 1e9 / averageWatts;
  }

  /** Seconds between counter updates as seen in the window. */
  public double counterPeriodSeconds() {
    return windowSeconds / counterSteps;
  }
}
