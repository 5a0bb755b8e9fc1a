package io.busload.kernels;

import java.util.List;
import java.util.Objects;

/**
 * One thing a timed "launch" of a {@link Program} does on the device, in order, on the default stream.
 * Buffer references are indexes into {@link Program#buffers()}.
 */
public sealed interface Step {

  /** A fatbin entry point ({@code extern "C"} in {@code src/main/cuda/<family>.cu}). */
  record Kernel(String entryPoint, Dim3 grid, Dim3 block, int sharedBytes, List<Arg> args) implements Step {
    public Kernel {
      Objects.requireNonNull(entryPoint, "entryPoint");
      Objects.requireNonNull(grid, "grid");
      Objects.requireNonNull(block, "block");
      args = List.copyOf(args);
      if (sharedBytes < 0) {
        throw new IllegalArgumentException(entryPoint + ": negative dynamic shared memory " + sharedBytes);
      }
    }
  }

  /** {@code cuMemcpyDtoDAsync} of {@code bytes} from buffer {@code srcBuffer} to {@code dstBuffer}: the ceiling. */
  record DeviceCopy(int dstBuffer, int srcBuffer, long bytes) implements Step {}

  /**
   * Row-major {@code C = A x B} with A m x k, B k x n, C m x n, fp32, through cuBLAS (the library reference).
   * A CPU device reports it unavailable.
   */
  record Sgemm(int m, int n, int k, int a, int b, int c) implements Step {}

  /**
   * A copy engine's copy of {@code bytes} from buffer {@code srcBuffer} to {@code dstBuffer}, wherever each lives
   * ({@link Buffer.Memory}): host to device, device to host, or to and from a peer GPU. The backend
   * picks the driver call from the two buffers' memories.
   */
  record Copy(int dstBuffer, int srcBuffer, long bytes) implements Step {
    public Copy {
      if (bytes <= 0) {
        throw new IllegalArgumentException("bytes: a copy moves at least one byte, got " + bytes);
      }
    }
  }

  /**
   * Steps that run at the same time, each on a stream of its own, and all finish before the next step starts: the
   * two directions of a link at once, which one stream would serialise. Not nested.
   */
  record Concurrent(List<Step> steps) implements Step {
    public Concurrent {
      steps = List.copyOf(steps);
      if (steps.size() < 2) {
        throw new IllegalArgumentException("steps: running at once needs at least two steps, got " + steps.size());
      }
      if (steps.stream().anyMatch(s -> s instanceof Concurrent)) {
        throw new IllegalArgumentException("steps: concurrent steps do not nest");
      }
    }
  }

  /** {@code cuMemsetD32}: {@code count} 32-bit words of {@code buffer} set to {@code value}, e.g. zero an accumulator. */
  record Memset32(int buffer, int value, long count) implements Step {}
}
