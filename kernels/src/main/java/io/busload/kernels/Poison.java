package io.busload.kernels;

/**
 * What output buffers hold before the checked launch. Programs' outputs are poisoned byte-wise with
 * {@link #BYTE}: all-ones is a NaN in fp16, fp32 and fp64 and -1 in integers, values our random inputs never
 * hold, so an element a kernel never wrote cannot pass its check.
 */
public final class Poison {
  /** A quiet NaN with a recognisable payload (the fp32 poison). */
  public static final int BITS = 0x7FBADBAD;
  public static final float VALUE = Float.intBitsToFloat(BITS);
  /** Every byte of a program's OUTPUT buffers before the checked launch. */
  public static final byte BYTE = (byte) 0xFF;

  private Poison() {}
}
