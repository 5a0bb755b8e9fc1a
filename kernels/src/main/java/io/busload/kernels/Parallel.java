package io.busload.kernels;

/**
 * How {@link Program#runOnCpu} spreads work over the CPU backend's threads: it splits {@code [0, count)} into
 * one contiguous range per thread and returns when every range is done.
 */
public interface Parallel {
  /** Work on elements {@code [from, to)}. */
  @FunctionalInterface
  interface Range {
    void run(long from, long to);
  }

  int threads();

  void forRange(long count, Range range);

  /** The calling thread alone, for tests and references. */
  static Parallel serial() {
    return new Parallel() {
      @Override
      public int threads() {
        return 1;
      }

      @Override
      public void forRange(long count, Range range) {
        range.run(0, count);
      }
    };
  }
}
