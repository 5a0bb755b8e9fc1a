package io.busload.kernels;

import java.util.List;

/**
 * Family {@code stride} (src/main/cuda/stride.cu): {@code out[i] = in[i * stride]} for fp32. Reads are coalesced
 * at stride 1 and touch one more sector per lane as the stride grows, up to a sector per lane at stride 8;
 * stores stay coalesced. Strides 3 and 5 show it is the spread of the lanes, not powers of two, that costs.
 * Size = output elements. Suite {@code stride} is this family and the memcpy ceiling.
 */
public final class StridedCopy extends CopyFamily {
  public static final String NAME = "stride";
  public static final List<Long> STRIDES = List.of(1L, 2L, 3L, 4L, 5L, 8L, 16L, 32L);
  public static final KernelSpec STRIDE_COPY_FP32 = new KernelSpec("stride-copy-fp32", NAME, strideAxis(STRIDES));
  public static final String ENTRY_POINT = "busload_stride_copy_f32";

  public StridedCopy() {
    super(NAME, List.of(STRIDE_COPY_FP32));
  }

  @Override
  protected CopyProgram build(KernelCase kernelCase, long size) {
    long stride = stride(kernelCase);
    CopyProgram.inputElements(size, stride, 0);
    return CopyProgram.kernel(ElementType.FP32, size, stride, 0, ENTRY_POINT, stride);
  }
}
