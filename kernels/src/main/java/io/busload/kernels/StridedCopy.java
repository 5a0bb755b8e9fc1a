package io.busload.kernels;

import java.util.List;
import java.util.Map;

/**
 * {@code out[i] = in[i * stride]} for fp32 (src/main/cuda/stride.cu): reads are coalesced at stride 1 and
 * touch one more sector per lane as the stride grows, up to a sector per lane at stride 8 (32 bytes); stores
 * stay coalesced. The classic coalescing experiment (seeds/coalescing-patterns-a100.txt).
 */
public final class StridedCopy implements Pattern {
  public static final String STRIDE = "stride";
  static final int FLOAT_BYTES = 4;

  @Override
  public long inputElements(long outputElements, Map<String, Long> params) {
    // The last element read is (n - 1) * stride; a whole stride per element keeps the formula obvious.
    return Math.multiplyExact(outputElements, stride(params));
  }

  @Override
  public Traffic traffic(long outputElements, Map<String, Long> params) {
    long bytes = Math.multiplyExact(outputElements, FLOAT_BYTES);
    return new Traffic(bytes, bytes, 0);
  }

  @Override
  public List<Coalescing> coalescing(Map<String, Long> params) {
    long stride = stride(params);
    // Warp 0 of an allocation aligned to 256 bytes, as cuMemAlloc returns.
    WarpSimulator.Request load = WarpSimulator.simulate(lane -> lane * stride * FLOAT_BYTES, FLOAT_BYTES);
    WarpSimulator.Request store = WarpSimulator.simulate(lane -> lane * FLOAT_BYTES, FLOAT_BYTES);
    return List.of(
        new Coalescing("load in", false, load.sectors(), load.lines(), load.requestedBytes()),
        new Coalescing("store out", true, store.sectors(), store.lines(), store.requestedBytes()));
  }

  @Override
  public float expected(FloatView input, long index, Map<String, Long> params) {
    return input.get(index * stride(params));
  }

  static long stride(Map<String, Long> params) {
    Long stride = params.get(STRIDE);
    if (stride == null || stride <= 0) {
      throw new IllegalArgumentException(STRIDE + ": needs a positive value, got " + stride);
    }
    return stride;
  }
}
