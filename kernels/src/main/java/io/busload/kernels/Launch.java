package io.busload.kernels;

/** Launch geometry of one kernel launch: a 1-D grid of 1-D blocks, no dynamic shared memory. */
public record Launch(long gridX, int blockX) {
  public Launch {
    if (gridX <= 0 || gridX > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("grid x " + gridX + " is outside 1..2^31-1");
    }
  }

  /** One thread per element, {@code block} threads per block. */
  public static Launch oneThreadPerElement(long elements, int block) {
    return forElements(elements, block, 1);
  }

  /** {@code perThread} elements per thread, {@code block} threads per block. */
  public static Launch forElements(long elements, int block, int perThread) {
    long perBlock = (long) block * perThread;
    return new Launch((elements + perBlock - 1) / perBlock, block);
  }
}
