package io.busload.agent.measure;

import io.busload.agent.device.EnergySensor;
import io.busload.agent.device.Workload;
import io.busload.protocol.Energy;
import java.util.function.DoubleConsumer;
import java.util.function.DoubleSupplier;

/**
 * What one case draws: batches of its launches run back to back after the timed samples, with the GPU's energy
 * counter read after each batch. The counter moves in steps tens of milliseconds apart, so a window read from one
 * arbitrary instant to another would be off by up to a step at each end; instead the window opens at the first step
 * seen once the launches run and closes at the first step seen after {@code targetSeconds}, and the energy is the
 * difference between those two readings over the host time between them. A step is seen at most one batch late
 * (one sample target, 5 ms on a GPU), at both ends alike.
 *
 * <p>A counter that never moves, moves only once, or goes backwards (reset with the driver, or wrapped) yields no
 * energy and says why: a reading is absent, never 0.
 */
final class EnergyWindow {
  /** Launches give up after this many window targets when the counter has not stepped twice. */
  static final int GIVE_UP_TARGETS = 3;
  /**
   * The GPU rests this long before its idle power is read. NVML's instantaneous power refreshes about every 100 ms
   * and falls to idle within about 50 ms of the last launch (H200, 580.159.04, docs/results/2026-11-27-h200-energy):
   * read sooner, it can still show the previous case's draw.
   */
  static final double IDLE_SETTLE_SECONDS = 0.15;

  private final EnergySensor sensor;
  private final DoubleSupplier clock;
  private final double targetSeconds;
  private final DoubleConsumer rest;

  /**
   * @param clock host seconds, monotonic
   * @param targetSeconds the least time between the window's two counter steps
   * @param rest waits the given seconds with the GPU idle, before the idle power is read
   */
  EnergyWindow(EnergySensor sensor, DoubleSupplier clock, double targetSeconds, DoubleConsumer rest) {
    if (!(targetSeconds > 0)) {
      throw new IllegalArgumentException("energy window: targetSeconds must be > 0, not " + targetSeconds);
    }
    this.sensor = sensor;
    this.clock = clock;
    this.targetSeconds = targetSeconds;
    this.rest = rest;
  }

  static EnergyWindow startingNow(EnergySensor sensor, double targetSeconds) {
    return new EnergyWindow(sensor, () -> System.nanoTime() / 1e9, targetSeconds, EnergyWindow::sleep);
  }

  private static void sleep(double seconds) {
    try {
      Thread.sleep(java.time.Duration.ofNanos((long) (seconds * 1e9)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The energy, or why there is none. */
  record Outcome(Energy energy, String notRead) {
    static Outcome notRead(String why) {
      return new Outcome(null, why);
    }
  }

  /**
   * The idle power, in watts, after {@link #IDLE_SETTLE_SECONDS} with the GPU idle; null where the sensor does not
   * read or the reading fails.
   */
  Double idleWatts() {
    if (!sensor.reads()) {
      return null;
    }
    rest.accept(IDLE_SETTLE_SECONDS);
    try {
      return sensor.powerMilliwatts() / 1e3;
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * Runs {@code workload} in batches of {@code launchesPerBatch} until the counter has stepped at the window's open
   * and again {@code targetSeconds} or more later, or until {@link #GIVE_UP_TARGETS} targets have passed.
   */
  Outcome measure(Workload workload, int launchesPerBatch, Double idleWatts) {
    if (!sensor.reads()) {
      return Outcome.notRead(sensor.note());
    }
    if (launchesPerBatch <= 0) {
      return Outcome.notRead("no launches to run in the energy window");
    }
    long previous = sensor.totalMillijoules();
    double start = clock.getAsDouble();
    long launches = 0;
    long openMillijoules = 0;
    double openSeconds = Double.NaN;
    long openLaunches = 0;
    int steps = 0;
    while (true) {
      workload.time(launchesPerBatch);
      launches += launchesPerBatch;
      long now = sensor.totalMillijoules();
      double seconds = clock.getAsDouble();
      if (now < previous) {
        return Outcome.notRead("the energy counter went backwards from " + previous + " to " + now
            + " mJ (the driver reset it, or it wrapped)");
      }
      if (now > previous) {
        if (Double.isNaN(openSeconds)) {
          openMillijoules = now;
          openSeconds = seconds;
          openLaunches = launches;
        } else {
          steps++;
          if (seconds - openSeconds >= targetSeconds) {
            double window = seconds - openSeconds;
            double joules = (now - openMillijoules) / 1e3;
            return new Outcome(new Energy(joules, joules / window, idleWatts, window, launches - openLaunches, steps),
                null);
          }
        }
        previous = now;
      }
      if (seconds - start > GIVE_UP_TARGETS * targetSeconds) {
        return Outcome.notRead(Double.isNaN(openSeconds)
            ? String.format("the energy counter did not move in %.2f s of launches", seconds - start)
            : String.format("the energy counter moved %d time(s) in %.2f s of launches: too coarse for a %.2f s window",
                steps + 1, seconds - start, targetSeconds));
      }
    }
  }
}
