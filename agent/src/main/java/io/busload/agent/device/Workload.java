package io.busload.agent.device;

import io.busload.kernels.FloatView;

/** One kernel case with its buffers on a device: launch it, time it, read its output back, free it. */
public interface Workload extends AutoCloseable {
  /** Runs {@code launches} launches back to back and returns the seconds they took together, device-timed. */
  double timeBatch(int launches);

  /** The output as the device left it (copied back to the host for a GPU). */
  FloatView readOutput();

  /** Frees every buffer and event. */
  @Override
  void close();
}
