package io.busload.agent.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.busload.agent.device.EnergySensor;
import io.busload.agent.device.Workload;
import io.busload.protocol.Energy;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The energy window against a fake energy counter on a fake clock: each batch of launches takes 5 ms of the clock,
 * and the counter reads whatever the script makes of the clock (a counter that steps every 100 ms, as a Hopper GPU's
 * does; one that never moves; one that resets; one too coarse), so every branch runs without a GPU.
 */
class EnergyWindowTest {
  private static final double BATCH_SECONDS = 5e-3;
  private static final int LAUNCHES_PER_BATCH = 7;

  /** A workload whose every batch advances {@link #now} by one batch time. */
  private static final class Clocked implements Workload {
    double now = 100.0;
    int batches;

    @Override
    public Batch time(int launches) {
      batches++;
      now += BATCH_SECONDS;
      return new Batch(BATCH_SECONDS, Hold.HELD);
    }

    @Override
    public List<MemorySegment> download() {
      return List.of();
    }

    @Override
    public void close() {}
  }

  /** A counter in millijoules as a function of the clock; 75 W of power. */
  private static EnergySensor counter(Clocked clock, DoubleUnaryOperator millijoules) {
    return new FakeEnergy("fake counter", () -> (long) millijoules.applyAsDouble(clock.now), () -> 75_000);
  }

  /** The energy a GPU drawing {@code watts} has counted at {@code t}, updated every {@code period} seconds. */
  private static double stepping(double t, double watts, double period) {
    return 1e9 + Math.floor(t / period) * period * watts * 1e3;
  }

  private static EnergyWindow.Outcome measure(Clocked clock, EnergySensor sensor, double target) {
    EnergyWindow window = new EnergyWindow(sensor, () -> clock.now, target, rest -> clock.now += rest);
    return window.measure(clock, LAUNCHES_PER_BATCH, window.idleWatts());
  }

  @Test
  void measure_counterSteppingEvery100ms_wattsJoulesWindowAndLaunchesBetweenTwoSteps() {
    Clocked clock = new Clocked();
    EnergySensor sensor = counter(clock, t -> stepping(t, 300, 0.1));

    EnergyWindow.Outcome outcome = measure(clock, sensor, 1.0);

    Energy e = outcome.energy();
    assertThat(outcome.notRead()).isNull();
    // Opened and closed on steps 100 ms apart: a whole number of steps, at least the target (1.0 s, or 1.1 s where
    // the clock's sum of 5 ms batches lands a hair under 1.0).
    assertThat(e.windowSeconds()).isBetween(1.0 - 1e-9, 1.1 + 1e-9);
    assertThat(e.counterSteps()).isEqualTo((int) Math.round(e.windowSeconds() / 0.1));
    assertThat(e.counterPeriodSeconds()).isCloseTo(0.1, within(1e-9));
    assertThat(e.averageWatts()).isCloseTo(300.0, within(1e-6));
    assertThat(e.joules()).isCloseTo(300.0 * e.windowSeconds(), within(1e-6));
    assertThat(e.idleWatts()).isEqualTo(75.0);
    // The batches of 5 ms between the two steps, each of 7 launches.
    long batches = Math.round(e.windowSeconds() / BATCH_SECONDS);
    assertThat(e.launches()).isEqualTo(batches * LAUNCHES_PER_BATCH);
    // Launches before the first step are not in the window: at most one step (20 batches) more ran.
    assertThat(clock.batches).isBetween((int) batches, (int) batches + 21);
  }

  @Test
  void measure_noCounter_notReadWithTheSensorsReasonAndNoLaunches() {
    Clocked clock = new Clocked();

    EnergyWindow.Outcome outcome = measure(clock, EnergySensor.none("no libnvidia-ml.so.1 on this host"), 1.0);

    assertThat(outcome.energy()).isNull();
    assertThat(outcome.notRead()).isEqualTo("no libnvidia-ml.so.1 on this host");
    assertThat(clock.batches).isZero();
    assertThat(new EnergyWindow(EnergySensor.none("none"), () -> 0, 1.0, rest -> {
      throw new AssertionError("rested with nothing to read");
    }).idleWatts()).isNull();
  }

  @Test
  void measure_counterThatNeverMoves_notReadAfterThreeTargets() {
    Clocked clock = new Clocked();

    EnergyWindow.Outcome outcome = measure(clock, counter(clock, t -> 42_000), 0.5);

    assertThat(outcome.energy()).isNull();
    assertThat(outcome.notRead()).startsWith("the energy counter did not move in 1.50 s of launches");
    assertThat(clock.batches).isEqualTo(301); // gives up on the first batch past 3 x 0.5 s
  }

  /**
   * Counters no window is read from: each a script of the clock (which starts at 100 s), the target asked, and what
   * the refusal says. A reset mid-window; a wrap past 2^63 mJ, where the signed reading turns negative (below the
   * last, so the window is refused, not computed as a negative or huge energy); a counter that steps once a second
   * (the first 0.5 s in) against a 0.25 s target, one step by the time three targets passed.
   */
  static Stream<Arguments> unreadableCounters() {
    double reset = new Clocked().now + 0.55;
    double wrap = new Clocked().now + 0.35;
    DoubleUnaryOperator resetting = t -> t < reset ? stepping(t, 300, 0.1) : stepping(t - reset, 300, 0.1) - 1e9;
    DoubleUnaryOperator wrapping = t -> t < wrap ? Long.MAX_VALUE - 1000.0 : Long.MIN_VALUE + 1000.0;
    DoubleUnaryOperator coarse = t -> stepping(t + 0.5, 300, 1.0);
    return Stream.of(
        arguments(named("reset mid-window", resetting), 1.0,
            List.of("the energy counter went backwards", "reset it, or it wrapped")),
        arguments(named("wrapped at the top of its range", wrapping), 1.0, List.of("went backwards")),
        arguments(named("too coarse for the window", coarse), 0.25,
            List.of("moved 1 time(s) in 0.75 s of launches: too coarse for a 0.25 s window")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("unreadableCounters")
  void measure_counterUnreadable_notReadSayingWhy(DoubleUnaryOperator script, double target, List<String> says) {
    Clocked clock = new Clocked();

    EnergyWindow.Outcome outcome = measure(clock, counter(clock, script), target);

    assertThat(outcome.energy()).isNull();
    assertThat(outcome.notRead()).contains(says);
  }

  @Test
  void idleWatts_sensorReads_readAfterTheGpuRestedTheSettleTime() {
    Clocked clock = new Clocked();
    double[] readAt = {Double.NaN};
    EnergySensor sensor = new FakeEnergy("fake", () -> 0, () -> {
      readAt[0] = clock.now;
      return 121_500;
    });

    Double idle = new EnergyWindow(sensor, () -> clock.now, 1.0, rest -> clock.now += rest).idleWatts();

    assertThat(idle).isEqualTo(121.5);
    assertThat(readAt[0]).isCloseTo(100.0 + EnergyWindow.IDLE_SETTLE_SECONDS, within(1e-9));
  }

  @Test
  void energy_derivedFigures_perUsefulGigabyteAndPerWatt() {
    Energy e = new Energy(300.0, 300.0, 75.0, 1.0, 1000, 10);

    // 1000 launches of 134,217,728 bytes: 134.2 GB for 300 J.
    assertThat(e.joulesPerGigabyte(134_217_728L)).isCloseTo(300.0 / 134.217728, within(1e-9));
    assertThat(e.gigabytesPerSecondPerWatt(3.0e12)).isCloseTo(10.0, within(1e-9));
    assertThat(e.gigabytesPerSecondPerWatt(null)).isNull();
    assertThat(e.joulesPerGigabyte(0)).isNull();
  }
}
