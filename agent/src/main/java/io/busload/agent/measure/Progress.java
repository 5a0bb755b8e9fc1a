package io.busload.agent.measure;

import io.busload.protocol.KernelResult;

/** What the pipeline tells its caller as it goes; called on the device's worker thread. */
public interface Progress {
  /** {@code completed} of {@code total} kernel cases are done; {@code kernel} is about to start. */
  default void starting(String kernel, int completed, int total) {}

  /** One case measured (valid or not). */
  default void measured(KernelResult result, int completed, int total) {}

  Progress NONE = new Progress() {};
}
