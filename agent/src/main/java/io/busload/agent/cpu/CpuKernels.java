package io.busload.agent.cpu;

import io.busload.agent.device.DeviceException;
import io.busload.kernels.KernelCase;
import io.busload.kernels.KernelSpec;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** The Java twin of each CUDA entry point: the same access pattern over a range of output elements. */
final class CpuKernels {
  private CpuKernels() {}

  /** Computes output elements {@code [from, to)}; one call per thread per launch. */
  @FunctionalInterface
  interface RangeKernel {
    void run(MemorySegment in, MemorySegment out, long from, long to);
  }

  static RangeKernel of(KernelCase kernel) {
    if (kernel.spec().kind() == KernelSpec.Kind.MEMCPY) {
      return (in, out, from, to) -> MemorySegment.copy(in, from * 4, out, from * 4, (to - from) * 4);
    }
    return switch (kernel.spec().entryPoint()) {
      case "busload_stride_copy_f32" -> strideCopy(kernel.param("stride"));
      default -> throw new DeviceException("no CPU implementation of " + kernel.spec().entryPoint());
    };
  }

  private static RangeKernel strideCopy(long stride) {
    return (in, out, from, to) -> {
      for (long i = from; i < to; i++) {
        out.setAtIndex(ValueLayout.JAVA_FLOAT, i, in.getAtIndex(ValueLayout.JAVA_FLOAT, i * stride));
      }
    };
  }
}
