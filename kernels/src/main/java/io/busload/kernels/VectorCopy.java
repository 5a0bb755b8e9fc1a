package io.busload.kernels;

import java.util.List;
import java.util.Map;

/**
 * Family {@code vector} (src/main/cuda/copy.cu): a contiguous copy moving 4, 8 or 16 bytes per lane per access,
 * four accesses in flight per thread. The fastest is the suite's copy kernel; the target is at least 95%
 * of the memcpy ceiling measured in the same run. Default sizes copy the same bytes as the ceiling.
 * Size = output elements of the kernel's type (float, float2 or float4).
 */
public final class VectorCopy extends CopyFamily {
  public static final String NAME = "vector";
  static final Map<String, ElementType> TYPES =
      Map.of("float", ElementType.FP32, "float2", ElementType.FLOAT2, "float4", ElementType.FLOAT4);
  private static final List<KernelSpec> KERNELS = List.of("float", "float2", "float4").stream()
      .map(t -> new KernelSpec("vector-copy-" + t, NAME, List.of())).toList();

  public VectorCopy() {
    super(NAME, KERNELS);
  }

  @Override
  protected ElementType type(KernelCase kernelCase) {
    return TYPES.get(kernelCase.spec().name().substring("vector-copy-".length()));
  }

  @Override
  protected CopyProgram build(KernelCase kernelCase, long size) {
    ElementType type = type(kernelCase);
    Math.multiplyExact(size, (long) type.bytes());
    return CopyProgram.kernel(type, size, 1, 0, "busload_vector_copy_" + TypedCopy.SUFFIX.get(type));
  }
}
