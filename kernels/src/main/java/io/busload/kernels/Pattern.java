package io.busload.kernels;

import java.util.List;
import java.util.Map;

/**
 * What a kernel family does, stated once for every backend and every model: how big its input is, what it
 * moves, which addresses a warp touches, and what each output element must be. One implementation per
 * family, beside its {@code src/main/cuda/<family>.cu}.
 */
public interface Pattern {
  /** Input fp32 elements needed for {@code outputElements} outputs. */
  long inputElements(long outputElements, Map<String, Long> params);

  /** Useful bytes read and written (and FLOPs) by one launch. */
  Traffic traffic(long outputElements, Map<String, Long> params);

  /** Expected sectors per request for each global access of warp 0; empty when the model is not ours. */
  List<Coalescing> coalescing(Map<String, Long> params);

  /** The reference: what output element {@code index} must hold after one launch. */
  float expected(FloatView input, long index, Map<String, Long> params);
}
