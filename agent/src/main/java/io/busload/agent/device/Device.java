package io.busload.agent.device;

import io.busload.kernels.KernelCase;
import io.busload.kernels.RandomFloats;
import io.busload.protocol.DeviceInfo;

/**
 * A device that runs the catalog's kernels. Every method blocks until the device has finished, and must be
 * called on the device's own {@link DeviceWorker} thread only (JCuda's context is bound to it).
 */
public interface Device extends AutoCloseable {
  DeviceInfo info();

  /** Short id as the command line names it: {@code cpu} or {@code cuda:0}. */
  String shortId();

  /** Output elements per kernel when the suite options do not say: well above L2 on a GPU, seconds on a CPU. */
  long defaultElements();

  /** How long one timed sample should last, so launch overhead stays outside the number. */
  double sampleTargetSeconds();

  /** Per kernel, stop sampling after this long even if the spread has not settled. */
  double timeCapSeconds();

  /** How a sample is timed, in words for the result's method ("between one CUDA event pair"). */
  String timerDescription();

  /** Binds this thread to the device (context, module); called once, first, on the worker thread. */
  void attach();

  /**
   * Allocates input and output for one kernel case, fills the input from {@code input} and poisons the
   * output. The returned workload owns the memory until closed.
   */
  Workload prepare(KernelCase kernel, long outputElements, RandomFloats input);

  @Override
  void close();
}
