package io.busload.agent.cuda.cublas;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The checker every cuBLAS call goes through, as {@code Cuda.check} is for the driver (STYLE.md habit 5):
 * {@code cublasStatus_t} values by name (cublas_api.h; the numbering has been stable since cuBLAS v2).
 */
public final class CublasStatus {
  public static final int SUCCESS = 0;

  private CublasStatus() {}

  /** {@code CUBLAS_STATUS_*} name of a status, or {@code CUBLAS_STATUS_<n> (unknown)} for one we do not know. */
  public static String name(int status) {
    return switch (status) {
      case 0 -> "CUBLAS_STATUS_SUCCESS";
      case 1 -> "CUBLAS_STATUS_NOT_INITIALIZED";
      case 3 -> "CUBLAS_STATUS_ALLOC_FAILED";
      case 7 -> "CUBLAS_STATUS_INVALID_VALUE";
      case 8 -> "CUBLAS_STATUS_ARCH_MISMATCH";
      case 11 -> "CUBLAS_STATUS_MAPPING_ERROR";
      case 13 -> "CUBLAS_STATUS_EXECUTION_FAILED";
      case 14 -> "CUBLAS_STATUS_INTERNAL_ERROR";
      case 15 -> "CUBLAS_STATUS_NOT_SUPPORTED";
      case 16 -> "CUBLAS_STATUS_LICENSE_ERROR";
      default -> "CUBLAS_STATUS_" + status + " (unknown)";
    };
  }

  /**
   * Throws a {@link CublasException} naming the call and its arguments unless {@code status} is
   * CUBLAS_STATUS_SUCCESS, for example {@code CUBLAS_STATUS_INVALID_VALUE: cublasSgemm_v2(m=0, n=4, k=4)}.
   */
  public static void check(int status, String call, Object... arguments) {
    if (status != SUCCESS) {
      String args = Arrays.stream(arguments).map(String::valueOf).collect(Collectors.joining(", "));
      throw new CublasException(name(status) + ": " + call + "(" + args + ")");
    }
  }
}
