package io.busload.kernels;

/** A CUDA launch dimension (grid or block); every component at least 1. */
public record Dim3(int x, int y, int z) {
  public Dim3 {
    if (x < 1 || y < 1 || z < 1) {
      throw new IllegalArgumentException("dim3 components must be at least 1, got (" + x + ", " + y + ", " + z + ")");
    }
  }

  public static Dim3 of(int x) {
    return new Dim3(x, 1, 1);
  }

  public static Dim3 of(int x, int y) {
    return new Dim3(x, y, 1);
  }

  /** 1-D grid covering {@code work} items with {@code perBlock} items per block; "grid: ..." if it exceeds 2^31-1. */
  public static Dim3 blocksFor(long work, long perBlock) {
    long blocks = (work + perBlock - 1) / perBlock;
    if (blocks < 1 || blocks > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("grid: " + blocks + " blocks for " + work + " items is outside 1..2^31-1");
    }
    return of((int) blocks);
  }

  public long count() {
    return (long) x * y * z;
  }

  @Override
  public String toString() {
    return y == 1 && z == 1 ? Integer.toString(x) : x + "x" + y + (z == 1 ? "" : "x" + z);
  }
}
