package io.busload.kernels;

import java.util.List;
import java.util.Map;

/**
 * Family {@code types} (src/main/cuda/copy.cu): {@code out[i] = in[i * stride]} for int8, fp16, fp32, fp64,
 * float2 and float4, one access per lane. At stride 1 a warp request covers 32 x the element size (int8: one
 * sector; float4: sixteen); a stride spreads the lanes until each needs a sector of its own. Size = output
 * elements of the kernel's type.
 */
public final class TypedCopy extends CopyFamily {
  public static final String NAME = "types";
  public static final List<Long> STRIDES = List.of(1L, 2L, 4L, 8L, 16L, 32L);
  /**
   * 256 MiB touched (five H100 L2s) instead of 512: its 36 cases spent 42 of the suite's 95 s on an H100
   * host filling, uploading and checking inputs (the coalescing suite's 90 s budget).
   */
  @Override
  protected long gpuTouchedBytes() {
    return 256L << 20;
  }

  /** Entry point suffix of each type in copy.cu. */
  static final Map<ElementType, String> SUFFIX = Map.of(ElementType.INT8, "i8", ElementType.FP16, "f16",
      ElementType.FP32, "f32", ElementType.FP64, "f64", ElementType.FLOAT2, "f32x2", ElementType.FLOAT4, "f32x4");
  static final List<ElementType> TYPES = List.of(ElementType.INT8, ElementType.FP16, ElementType.FP32,
      ElementType.FP64, ElementType.FLOAT2, ElementType.FLOAT4);
  private static final List<KernelSpec> KERNELS = TYPES.stream()
      .map(t -> new KernelSpec("typed-copy-" + t.label(), NAME, strideAxis(STRIDES))).toList();

  public TypedCopy() {
    super(NAME, KERNELS);
  }

  @Override
  protected ElementType type(KernelCase kernelCase) {
    return ElementType.ofLabel(kernelCase.spec().name().substring("typed-copy-".length()));
  }

  public static String entryPoint(ElementType type) {
    return "busload_typed_copy_" + SUFFIX.get(type);
  }

  @Override
  protected CopyProgram build(KernelCase kernelCase, long size) {
    ElementType type = type(kernelCase);
    long stride = stride(kernelCase);
    Math.multiplyExact(CopyProgram.inputElements(size, stride, 0), (long) type.bytes());
    return CopyProgram.kernel(type, size, stride, 0, entryPoint(type), stride);
  }
}
