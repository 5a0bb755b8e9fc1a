package io.busload.kernels;

/**
 * One argument of a CUDA entry point, in the order of its C signature. Integers are passed with exactly the
 * width given: {@link I32} for {@code int}/{@code unsigned}, {@link I64} for {@code long long}/{@code size_t}.
 */
public sealed interface Arg {
  /** The device pointer of {@link Program#buffers()} entry {@code index}. */
  record Buf(int index) implements Arg {}

  record I32(int value) implements Arg {}

  record I64(long value) implements Arg {}

  record F32(float value) implements Arg {}

  record F64(double value) implements Arg {}

  static Arg buf(int index) {
    return new Buf(index);
  }

  static Arg i32(int value) {
    return new I32(value);
  }

  static Arg i64(long value) {
    return new I64(value);
  }
}
