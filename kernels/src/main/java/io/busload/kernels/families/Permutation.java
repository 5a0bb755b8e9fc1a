package io.busload.kernels.families;

/**
 * A random permutation of {@code [0, n)} as a pure function of (seed, index): a 4-round Feistel network on the
 * smallest even number of bits covering n, with cycle walking back into range (at most 4 rounds on average).
 * Backends fill index buffers in chunks, in parallel, in any order, and the check recomputes any index without
 * a host copy: a shuffled array could do neither.
 */
record Permutation(long n, long seed) {
  private static final int ROUNDS = 4;

  Permutation {
    if (n < 1) {
      throw new IllegalArgumentException("size: a permutation needs at least one element, got " + n);
    }
  }

  /** The image of {@code i}, for {@code 0 <= i < n}. */
  long apply(long i) {
    long y = encrypt(i);
    while (y >= n) {
      y = encrypt(y);
    }
    return y;
  }

  private int halfBits() {
    int bits = Math.max(2, 64 - Long.numberOfLeadingZeros(n - 1));
    return (bits + 1) / 2;
  }

  /** A bijection of {@code [0, 4^halfBits)}. */
  private long encrypt(long x) {
    int half = halfBits();
    long mask = (1L << half) - 1;
    long left = x >>> half;
    long right = x & mask;
    for (int round = 0; round < ROUNDS; round++) {
      long next = left ^ (Families.mix(seed + round * 0x632BE59BD9B4E019L + right * 0x9E3779B97F4A7C15L) & mask);
      left = right;
      right = next;
    }
    return (left << half) | right;
  }
}
