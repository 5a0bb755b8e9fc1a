package io.busload.agent.cuda.cublas;

/**
 * No usable cuBLAS on this host: no {@code libcublas.so.*} where we looked, or one that does not load or lacks a
 * symbol we call. The message is the reason a reference result reports, for example
 * {@code no libcublas.so.* found in [/usr/local/cuda/lib64, ...]}; the agent carries on without the reference.
 */
public final class CublasUnavailableException extends RuntimeException {
  public CublasUnavailableException(String message) {
    super(message);
  }

  public CublasUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
