package io.busload.agent.cuda.nvml;

/** NVML cannot be used on this host (not installed, not loadable, a symbol or the GPU missing); says why. */
final class NvmlUnavailableException extends RuntimeException {
  NvmlUnavailableException(String message) {
    super(message);
  }

  NvmlUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
