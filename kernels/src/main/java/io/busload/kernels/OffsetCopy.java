package io.busload.kernels;

import java.util.List;

/**
 * Family {@code offset} (src/main/cuda/copy.cu): {@code out[i] = in[i + offset]} for fp32, a copy whose loads
 * start {@code offset * 4} bytes past a 256-byte boundary. Offset 0 and 32 read 4 sectors per warp request; any
 * other offset straddles one more sector (5), the cost of misalignment. Size = output elements.
 */
public final class OffsetCopy extends CopyFamily {
  public static final String NAME = "offset";
  public static final List<Long> OFFSETS = List.of(0L, 1L, 2L, 4L, 8L, 16L, 31L, 32L);
  public static final KernelSpec OFFSET_COPY_FP32 =
      new KernelSpec("offset-copy-fp32", NAME, List.of(new Axis(OFFSET, OFFSETS)));
  public static final String ENTRY_POINT = "busload_offset_copy_f32";

  public OffsetCopy() {
    super(NAME, List.of(OFFSET_COPY_FP32));
  }

  @Override
  protected CopyProgram build(KernelCase kernelCase, long size) {
    long offset = offset(kernelCase);
    CopyProgram.inputElements(size, 1, offset);
    return CopyProgram.kernel(ElementType.FP32, size, 1, offset, ENTRY_POINT, offset);
  }
}
