package io.busload.analysis.verdict;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AbTestTest {
  private static final Setting H100 = new Setting("NVIDIA H100 80GB HBM3", "aaaa", "13.0", "0.1.0", "f00d",
      new Conditions(1980.0, 2619.0, false, false));

  private static List<Double> samples(long seed, int n, double level, double sigma) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Double> values = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      values.add(level * (1 + sigma * (random.nextDouble() - 0.5) * 3.46));
    }
    return values;
  }

  /** Baseline a: {@code n} samples around 3e12 on {@link #H100}; candidate b: as many around {@code level}. */
  private static Comparison compare(int n, double sigma, double level, Setting candidate) {
    return compare(n, n, sigma, level, candidate, Thresholds.defaults());
  }

  private static Comparison compare(int baselineSamples, int candidateSamples, double sigma, double level,
      Setting candidate, Thresholds thresholds) {
    return AbTest.compare(Side.of("a", samples(1, baselineSamples, 3e12, sigma), H100),
        Side.of("b", samples(2, candidateSamples, level, sigma), candidate), thresholds);
  }

  @Test
  void compare_fivePercentLower_slower() {
    Comparison c = compare(20, 0.003, 2.85e12, H100);
    assertThat(c.verdict()).isEqualTo(Verdict.SLOWER);
    assertThat(c.relative()).isBetween(-0.055, -0.045);
    assertThat(c.relativeLower()).isLessThan(c.relative());
    assertThat(c.relativeUpper()).isGreaterThan(c.relative()).isNegative();
    assertThat(c.reason()).matches("-5\\.\\d% \\(95% interval -5\\.\\d% to -\\d\\.\\d%, p=<0\\.001\\)");
    assertThat(c.notes()).isEmpty();
  }

  /** A candidate measured in another setting than the baseline: the verdict, and the notes naming what differed. */
  static Stream<Arguments> otherSettings() {
    return Stream.of(
        Arguments.of("slowerAtLowerClock", new Setting(H100.deviceName(), "aaaa", "13.0", "0.1.0", "f00d",
            new Conditions(1755.0, 2619.0, true, false)), 2.7e12, Verdict.SLOWER,
            List.of("slower at a lower SM clock (1755 MHz vs 1980 MHz)", "slower while throttling")),
        Arguments.of("fasterOnOtherDriverAndDevice", new Setting(H100.deviceName(), "bbbb", "13.1", "0.1.0", "f00d",
            H100.conditions()), 3.1e12, Verdict.FASTER,
            List.of("another device of the same model (fingerprint aaaa vs bbbb)", "driver 13.0 → 13.1")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("otherSettings")
  void compare_candidateInAnotherSetting_notesNameWhatDiffers(String name, Setting candidate, double level,
      Verdict verdict, List<String> notes) {
    Comparison c = compare(20, 0.003, level, candidate);
    assertThat(c.verdict()).isEqualTo(verdict);
    assertThat(c.notes()).containsExactlyElementsOf(notes);
  }

  @Test
  void compare_sameLevel_same() {
    Comparison c = compare(30, 0.002, 3e12, H100);
    assertThat(c.verdict()).isEqualTo(Verdict.SAME);
    assertThat(c.relativeLower()).isGreaterThan(-0.01);
    assertThat(c.relativeUpper()).isLessThan(0.01);
  }

  @Test
  void compare_noisyAndFew_unclearWithReason() {
    Comparison c = compare(6, 0.05, 2.97e12, H100);
    assertThat(c.verdict()).isEqualTo(Verdict.UNCLEAR);
    assertThat(c.reason()).contains("more samples would decide");
  }

  @Test
  void compare_smallRealShiftBelowThreshold_unclearOrSameNeverSlower() {
    Comparison c = compare(40, 0.001, 2.994e12, H100);
    assertThat(c.verdict()).isEqualTo(Verdict.SAME);
    Comparison strict = compare(40, 40, 0.001, 2.994e12, H100, Thresholds.withMinShift(0.001));
    assertThat(strict.verdict()).isEqualTo(Verdict.SLOWER);
  }

  @Test
  void compare_tooFewSamples_unclearNamingTheSide() {
    Comparison c = compare(20, 3, 0.003, 2e12, H100, Thresholds.defaults());
    assertThat(c.verdict()).isEqualTo(Verdict.UNCLEAR);
    assertThat(c.reason()).isEqualTo("the candidate has 3 samples; a verdict needs at least 5 on each side");
    assertThat(c.shift()).isNull();
  }

  @Test
  void compare_invalidSide_unclearWithWhy() {
    Comparison c = AbTest.compare(Side.of("a", samples(1, 20, 3e12, 0.003), H100),
        Side.unusable("b", H100, "failed its output check"), Thresholds.defaults());
    assertThat(c.verdict()).isEqualTo(Verdict.UNCLEAR);
    assertThat(c.reason()).isEqualTo("the candidate failed its output check");
  }
}
