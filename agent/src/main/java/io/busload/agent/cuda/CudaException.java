package io.busload.agent.cuda;

import io.busload.agent.device.DeviceException;

/** A driver call returned an error: {@code CUDA_ERROR_X: cuCall(arguments)}. */
public final class CudaException extends DeviceException {
  private final int result;

  public CudaException(int result, String message) {
    super(message);
    this.result = result;
  }

  public int result() {
    return result;
  }
}
