package io.busload.kernels;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ReferenceCheckTest {
  private static final int N = 1000;
  private final RandomFloats input = new RandomFloats(42);
  private final KernelCase stride4 = new KernelCase(Catalog.STRIDE_COPY_FP32, Map.of("stride", 4L));

  private float[] correctOutput() {
    float[] out = new float[N];
    for (int i = 0; i < N; i++) {
      out[i] = input.get(i * 4L);
    }
    return out;
  }

  @Test
  void check_correctOutput_passes() {
    Check check = stride4.check(input, FloatView.of(correctOutput()), N);
    assertThat(check.passed()).isTrue();
    assertThat(check.mismatches()).isEmpty();
    assertThat(check.checked()).isEqualTo(N);
  }

  @Test
  void check_wrongOutput_failsWithFirstMismatches() {
    float[] out = correctOutput();
    out[7] = 0.5f;
    out[900] = Poison.VALUE;
    for (int i = 950; i < N; i++) {
      out[i] = input.get(i); // read at stride 1 instead of 4
    }

    Check check = stride4.check(input, FloatView.of(out), N);

    assertThat(check.passed()).isFalse();
    assertThat(check.mismatchCount()).isEqualTo(52);
    assertThat(check.mismatches()).hasSize(Check.REPORTED);
    assertThat(check.mismatches().get(0)).isEqualTo("out[7]: expected " + input.get(28) + ", got 0.5");
    assertThat(check.mismatches().get(1)).isEqualTo("out[900]: expected " + input.get(3600) + ", got poison (never written)");
    assertThat(check.mismatches().get(2)).startsWith("out[950]: expected ");
  }

  @Test
  void check_poisonedOutput_failsEveryElement() {
    float[] out = new float[N];
    java.util.Arrays.fill(out, Poison.VALUE);
    assertThat(stride4.check(input, FloatView.of(out), N).mismatchCount()).isEqualTo(N);
  }

  @Test
  void randomFloats_anySeed_neverZeroNeverNaNAndNotConstant() {
    RandomFloats r = new RandomFloats(7);
    java.util.Set<Float> distinct = new java.util.HashSet<>();
    for (long i = 0; i < 100_000; i++) {
      float v = r.get(i);
      assertThat(v).isBetween(1.0f, 2.0f).isNotEqualTo(0.0f);
      distinct.add(v);
    }
    assertThat(distinct.size()).isGreaterThan(99_000);
    assertThat(new RandomFloats(8).get(0)).isNotEqualTo(r.get(0));
  }
}
