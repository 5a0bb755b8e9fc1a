package io.busload.agent.cuda.cublas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The row-major to column-major mapping, run through a column-major GEMM written like the BLAS reference. */
class SgemmCallTest {

  @Test
  void rowMajor_square_swapsOperandsAndSizes() {
    assertThat(SgemmCall.rowMajor(4096, 4096, 4096)).isEqualTo(new SgemmCall(SgemmCall.OP_N, SgemmCall.OP_N,
        4096, 4096, 4096, SgemmCall.Operand.B, 4096, SgemmCall.Operand.A, 4096, 4096));
  }

  @Test
  void rowMajor_rectangular_columnMajorCallEqualsRowMajorProduct() {
    for (int[] size : new int[][] {{3, 5, 7}, {7, 3, 5}, {5, 7, 3}, {1, 9, 4}, {16, 1, 2}}) {
      int m = size[0];
      int n = size[1];
      int k = size[2];
      Random random = new Random(m * 1000L + n * 100L + k);
      float[] a = randomMatrix(random, m * k);
      float[] b = randomMatrix(random, k * n);

      SgemmCall call = SgemmCall.rowMajor(m, n, k);
      float[] c = new float[m * n];
      columnMajorGemm(call, call.first() == SgemmCall.Operand.A ? a : b, call.second() == SgemmCall.Operand.A ? a : b, c);

      float[] expected = rowMajorProduct(a, b, m, n, k);
      assertThat(c).as("m=%d n=%d k=%d", m, n, k).containsExactly(expected);
    }
  }

  @Test
  void rowMajor_zeroSize_refused() {
    assertThatThrownBy(() -> SgemmCall.rowMajor(4, 0, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sgemm: m, n and k must be positive, got m=4, n=0, k=4");
  }

  /** sgemm's definition (alpha 1, beta 0, no transposes): C[i + j ldc] = sum_p A[i + p lda] B[p + j ldb]. */
  private static void columnMajorGemm(SgemmCall call, float[] a, float[] b, float[] c) {
    assertThat(call.transa()).isEqualTo(SgemmCall.OP_N);
    assertThat(call.transb()).isEqualTo(SgemmCall.OP_N);
    assertThat(call.lda()).isGreaterThanOrEqualTo(call.m());
    assertThat(call.ldb()).isGreaterThanOrEqualTo(call.k());
    assertThat(call.ldc()).isGreaterThanOrEqualTo(call.m());
    for (int j = 0; j < call.n(); j++) {
      for (int i = 0; i < call.m(); i++) {
        float sum = 0;
        for (int p = 0; p < call.k(); p++) {
          sum += a[i + p * call.lda()] * b[p + j * call.ldb()];
        }
        c[i + j * call.ldc()] = sum;
      }
    }
  }

  private static float[] rowMajorProduct(float[] a, float[] b, int m, int n, int k) {
    float[] c = new float[m * n];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        float sum = 0;
        for (int p = 0; p < k; p++) {
          sum += a[i * k + p] * b[p * n + j];
        }
        c[i * n + j] = sum;
      }
    }
    return c;
  }

  private static float[] randomMatrix(Random random, int elements) {
    float[] values = new float[elements];
    for (int i = 0; i < elements; i++) {
      values[i] = 1 + random.nextFloat();
    }
    return values;
  }
}
