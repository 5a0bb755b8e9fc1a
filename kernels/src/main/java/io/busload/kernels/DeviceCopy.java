package io.busload.kernels;

import java.util.List;
import java.util.Map;

/**
 * The ceiling: a driver device-to-device copy of as many bytes as the stride-1 copy reads, so each run times
 * what this GPU's copy engine path reaches beside the kernels (ARCHITECTURE.md: two ceilings).
 */
public final class DeviceCopy implements Pattern {

  @Override
  public long inputElements(long outputElements, Map<String, Long> params) {
    return outputElements;
  }

  @Override
  public Traffic traffic(long outputElements, Map<String, Long> params) {
    long bytes = Math.multiplyExact(outputElements, StridedCopy.FLOAT_BYTES);
    return new Traffic(bytes, bytes, 0);
  }

  /** The driver picks how it copies; there is no warp of ours to simulate. */
  @Override
  public List<Coalescing> coalescing(Map<String, Long> params) {
    return List.of();
  }

  @Override
  public float expected(FloatView input, long index, Map<String, Long> params) {
    return input.get(index);
  }
}
