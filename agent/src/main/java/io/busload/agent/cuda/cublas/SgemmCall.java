package io.busload.agent.cuda.cublas;

/**
 * The arguments of one {@code cublasSgemm_v2} call that computes a row-major product.
 *
 * <p>cuBLAS is column-major: it reads an {@code r x c} matrix stored row-major as the column-major {@code c x r}
 * matrix, its transpose. So row-major {@code C(m x n) = A(m x k) x B(k x n)} is column-major
 * {@code C^T(n x m) = B^T(n x k) x A^T(k x m)}: no transposes, the operands swapped, {@code m} and {@code n}
 * swapped, and each leading dimension the row length of the row-major matrix
 * ({@code sgemm(N, N, n, m, k, 1, B, n, A, k, 0, C, n)}).
 *
 * @param transa {@code cublasOperation_t} of the first operand ({@link #OP_N} here)
 * @param first which of the caller's matrices cuBLAS gets as its {@code A}
 * @param second which of the caller's matrices cuBLAS gets as its {@code B}
 */
public record SgemmCall(int transa, int transb, int m, int n, int k, Operand first, int lda, Operand second, int ldb,
    int ldc) {
  /** {@code CUBLAS_OP_N}: use the operand as stored. */
  public static final int OP_N = 0;

  /** A matrix of the caller's row-major product {@code C = A x B}. */
  public enum Operand { A, B }

  /** The call computing row-major {@code C(m x n) = A(m x k) x B(k x n)}, each matrix dense (no padding). */
  public static SgemmCall rowMajor(int m, int n, int k) {
    if (m <= 0 || n <= 0 || k <= 0) {
      throw new IllegalArgumentException("sgemm: m, n and k must be positive, got m=" + m + ", n=" + n + ", k=" + k);
    }
    return new SgemmCall(OP_N, OP_N, n, m, k, Operand.B, n, Operand.A, k, n);
  }
}
