package io.busload.agent.cuda.cublas;

import io.busload.agent.device.DeviceException;

/**
 * A cuBLAS call returned an error: {@code CUBLAS_STATUS_X: cublasCall(arguments)}. A {@link DeviceException},
 * so the one case fails with this message and the agent carries on, as for a driver error. The status is in the
 * message only: unlike a driver error's, no cuBLAS status makes the agent reset its context.
 */
public final class CublasException extends DeviceException {
  public CublasException(String message) {
    super(message);
  }
}
