package io.busload.kernels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Read access to fp32 elements by index, whether they live in memory or are generated. */
@FunctionalInterface
public interface FloatView {
  float get(long index);

  /** fp32 elements of an off-heap (or heap) segment, native byte order as the GPU writes them. */
  static FloatView of(MemorySegment segment) {
    return index -> segment.getAtIndex(ValueLayout.JAVA_FLOAT, index);
  }

  static FloatView of(float[] values) {
    return index -> values[Math.toIntExact(index)];
  }
}
