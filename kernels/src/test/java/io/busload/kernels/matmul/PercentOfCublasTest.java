package io.busload.kernels.matmul;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PercentOfCublasTest {

  @Test
  void of_naiveTakes80TimesCublas_1point25Percent() {
    List<PercentOfCublas.Row> rows = PercentOfCublas.of(List.of(
        new PercentOfCublas.Timed("memcpy-d2d", "h100 n=4096", true, 1e-4),
        new PercentOfCublas.Timed("matmul-naive", "h100 n=4096", true, 0.2),
        new PercentOfCublas.Timed("matmul-coalesced", "h100 n=4096", true, 0.025),
        new PercentOfCublas.Timed("matmul-cublas", "h100 n=4096", true, 0.0025)));

    assertThat(rows).extracting(PercentOfCublas.Row::kernel)
        .containsExactly("matmul-naive", "matmul-coalesced", "matmul-cublas");
    assertThat(rows.get(0).percent().getAsDouble()).isCloseTo(1.25, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(rows.get(1).percent().getAsDouble()).isCloseTo(10.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(rows.get(2).percent().getAsDouble()).isEqualTo(100.0);
  }

  @Test
  void of_otherGroupOnly_noPercentageWithReason() {
    List<PercentOfCublas.Row> rows = PercentOfCublas.of(List.of(
        new PercentOfCublas.Timed("matmul-naive", "h100 n=2048", true, 0.02),
        new PercentOfCublas.Timed("matmul-cublas", "h100 n=4096", true, 0.0025)));

    assertThat(rows.getFirst().percent()).isEmpty();
    assertThat(rows.getFirst().note()).isEqualTo("no cuBLAS result in this group");
  }

  @Test
  void of_cublasInvalid_noPercentageWithReason() {
    List<PercentOfCublas.Row> rows = PercentOfCublas.of(List.of(
        new PercentOfCublas.Timed("matmul-cublas", "g", false, 0),
        new PercentOfCublas.Timed("matmul-naive", "g", true, 0.2)));

    assertThat(rows.get(1).percent()).isEmpty();
    assertThat(rows.get(1).note()).isEqualTo("cuBLAS result invalid or unavailable");
  }

  @Test
  void format_rows_alignedWithPercentOrReason() {
    List<String> lines = PercentOfCublas.format(PercentOfCublas.of(List.of(
        new PercentOfCublas.Timed("matmul-naive", "h100 n=4096", true, 0.2),
        new PercentOfCublas.Timed("matmul-coalesced", "h100 n=4096", false, 0),
        new PercentOfCublas.Timed("matmul-cublas", "h100 n=4096", true, 0.0025))));

    assertThat(lines).containsExactly(
        "matmul-naive      h100 n=4096    200.000 ms     1.3% of cuBLAS",
        "matmul-coalesced  h100 n=4096             -       - (invalid result)",
        "matmul-cublas     h100 n=4096      2.500 ms   100.0% of cuBLAS");
  }
}
