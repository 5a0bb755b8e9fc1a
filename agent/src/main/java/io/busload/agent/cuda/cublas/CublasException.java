package io.busload.agent.cuda.cublas;

import io.busload.agent.device.DeviceException;

/**
 * A cuBLAS call returned an error: {@code CUBLAS_STATUS_X: cublasCall(arguments)}. A {@link DeviceException},
 * so the one case fails with this message and the agent carries on, as for a driver error.
 */
public final class CublasException extends DeviceException {
  private final int status;

  public CublasException(int status, String message) {
    super(message);
    this.status = status;
  }

  /** The {@code cublasStatus_t} value. */
  public int status() {
    return status;
  }
}
