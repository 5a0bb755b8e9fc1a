package io.busload.kernels;

import java.util.List;

/**
 * The ceiling (docs/design/ceilings.md): the driver's device-to-device copy ({@code cuMemcpyDtoDAsync}) of
 * fp32 elements, at a default size moving the same bytes as the fp32 stride-1 copy, timed first in every suite.
 * Not registered as a family of its own: {@link Catalog} puts it at the head of each suite. Size = elements.
 */
public final class MemcpyCeiling extends CopyFamily {
  public static final String NAME = "memcpy";
  public static final KernelSpec MEMCPY_D2D = new KernelSpec("memcpy-d2d", NAME, List.of());

  public MemcpyCeiling() {
    super(NAME, List.of(MEMCPY_D2D));
  }

  @Override
  protected CopyProgram build(KernelCase kernelCase, long size) {
    Math.multiplyExact(size, 4L);
    return CopyProgram.deviceCopy(ElementType.FP32, size);
  }
}
