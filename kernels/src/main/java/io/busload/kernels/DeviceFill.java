package io.busload.kernels;

/**
 * An input a GPU fills itself with {@link #ENTRY_POINT} (fill.cu): seeded random values of one type, element for
 * element what {@link RandomFill#fill} writes on the host for the same seed, so the host's check reads the same input
 * and can recompute any element of it. Filling a multi-GiB input on the host took most of a copy case's host time.
 *
 * @param kind the kernel's element kind: 0 int8, 1 fp16, 2 int32, 3 fp32 (and its vectors), 4 fp64
 * @param seed the seed {@link RandomFill#fill} is given for the same buffer
 */
public record DeviceFill(int kind, long seed) {
  public static final String ENTRY_POINT = "busload_fill_random";

  /** The fill {@link RandomFill#fill}{@code (type, seed, ...)} makes on the host. */
  public static DeviceFill random(ElementType type, long seed) {
    int kind = switch (type) {
      case INT8 -> 0;
      case FP16 -> 1;
      case INT32 -> 2;
      case FP32, FLOAT2, FLOAT4 -> 3;
      case FP64 -> 4;
    };
    return new DeviceFill(kind, seed);
  }
}
