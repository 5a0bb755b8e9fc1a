package io.busload.agent.measure;

import io.busload.agent.device.ClockSensor;
import io.busload.agent.device.DeviceException;
import io.busload.agent.device.Workload;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.Sampling;
import io.busload.protocol.StopReason;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes one case's samples until its {@link StoppingRule} says stop: times each batch, counts how it was
 * held, reads the clocks after it and drops it when the GPU was throttling (nvbench's rule), and records all of that
 * as a {@link Sampling}. A clock reading that fails after the sensor worked stops the reading, not the measurement:
 * the result then says the clocks were not read, and why.
 */
final class Sampler {
  private static final Logger LOG = LoggerFactory.getLogger(Sampler.class);

  /**
   * What sampling gave.
   *
   * @param samples seconds per launch of the clean samples, in measuring order; every timed one when none was clean
   */
  record Sampled(List<Double> samples, Sampling sampling) {
    /** The same samples, taken while {@code others} measured too. */
    Sampled beside(List<String> others) {
      return new Sampled(samples, sampling.withOthersBusy(others));
    }
  }

  private final StoppingRule rule;
  private final ClockSensor sensor;
  /** Seconds since sampling began; a parameter so that tests decide when the time cap is reached. */
  private final DoubleSupplier clock;

  Sampler(StoppingRule rule, ClockSensor sensor, DoubleSupplier clock) {
    this.rule = rule;
    this.sensor = sensor;
    this.clock = clock;
  }

  /** A sampler timing by the wall clock from now. */
  static Sampler startingNow(StoppingRule rule, ClockSensor sensor) {
    long start = System.nanoTime();
    return new Sampler(rule, sensor, () -> (System.nanoTime() - start) / 1e9);
  }

  Sampled sample(Workload workload, int launches, CacheResidency cache) {
    List<Double> clean = new ArrayList<>();
    boolean reading = sensor.availability() == Clocks.Reading.READ;
    List<Double> all = new ArrayList<>();
    int[] holds = new int[Workload.Hold.values().length];
    ClockRange clocks = new ClockRange(sensor);
    StopReason stop;
    do {
      Workload.Batch batch = workload.time(launches);
      holds[batch.hold().ordinal()]++;
      double perLaunch = batch.seconds() / launches;
      all.add(perLaunch);
      boolean throttled = clocks.readThrottling();
      if (reading && !clocks.reading()) {
        // The sensor failed: nothing is known about any sample's clocks any more, so none stays dropped.
        reading = false;
        clean = new ArrayList<>(all);
      } else if (!throttled) {
        clean.add(perLaunch);
      }
      stop = rule.stop(clean, all.size(), clock.getAsDouble());
    } while (stop == null);
    boolean tooFew = clean.size() < rule.minSamples() && clocks.dropped() > 0;
    Sampling sampling = new Sampling(holds[Workload.Hold.HELD.ordinal()], holds[Workload.Hold.UNHELD.ordinal()],
        holds[Workload.Hold.RETIMED.ordinal()], stop, clocks.summary(tooFew), cache);
    return new Sampled(clean.isEmpty() ? all : clean, sampling);
  }

  /** The clocks read after each sample: lowest and highest, every reason seen, samples dropped. */
  private static final class ClockRange {
    private final ClockSensor sensor;
    private Clocks.Reading reading;
    private String note;
    private int smMin = Integer.MAX_VALUE;
    private int smMax = Integer.MIN_VALUE;
    private int memMin = Integer.MAX_VALUE;
    private int memMax = Integer.MIN_VALUE;
    private long reasons;
    private int dropped;
    private int reads;

    ClockRange(ClockSensor sensor) {
      this.sensor = sensor;
      this.reading = sensor.availability();
      this.note = sensor.note();
    }

    /** Reads the clocks once; whether the GPU was throttling. False when nothing is read. */
    boolean readThrottling() {
      if (reading != Clocks.Reading.READ) {
        return false;
      }
      ClockSensor.Reading now;
      try {
        now = sensor.read();
      } catch (DeviceException e) {
        LOG.warn("clocks not read any more: {}", e.getMessage());
        reading = Clocks.Reading.NOT_READ;
        note = "reading failed after " + reads + " readings: " + e.getMessage();
        return false;
      }
      reads++;
      smMin = Math.min(smMin, now.smMHz());
      smMax = Math.max(smMax, now.smMHz());
      memMin = Math.min(memMin, now.memMHz());
      memMax = Math.max(memMax, now.memMHz());
      reasons |= now.throttleReasons();
      if (now.throttling()) {
        dropped++;
        return true;
      }
      return false;
    }

    /** Whether readings still come (false once one failed, or when there never were any). */
    boolean reading() {
      return reading == Clocks.Reading.READ;
    }

    int dropped() {
      return reading == Clocks.Reading.READ ? dropped : 0;
    }

    Clocks summary(boolean tooFewClean) {
      if (reading != Clocks.Reading.READ) {
        // A failed reading keeps nothing of the readings before it: a partial range would claim the whole case.
        return new Clocks(reading, note, null, null, null, null, null, 0, false);
      }
      return new Clocks(reading, note, smMin, smMax, memMin, memMax, reasons, dropped, tooFewClean);
    }
  }
}
