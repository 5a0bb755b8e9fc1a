package io.busload.kernels;

/** The element types a buffer can hold, as the CUDA sources name them; {@link #label()} is the name results use. */
public enum ElementType {
  INT8("int8", 1),
  FP16("fp16", 2),
  FP32("fp32", 4),
  FP64("fp64", 8),
  /** CUDA's {@code float2}: two fp32, 8-byte aligned, one 64-bit access per lane. */
  FLOAT2("float2", 8),
  /** CUDA's {@code float4}: four fp32, 16-byte aligned, one 128-bit access per lane. */
  FLOAT4("float4", 16),
  INT32("int32", 4);

  private final String label;
  private final int bytes;

  ElementType(String label, int bytes) {
    this.label = label;
    this.bytes = bytes;
  }

  /** Lowercase name as kernel names and params carry it ({@code float4}). */
  public String label() {
    return label;
  }

  /** Size of one element in bytes. */
  public int bytes() {
    return bytes;
  }

  /** The type with this label; {@link IllegalArgumentException} naming the known ones otherwise. */
  public static ElementType ofLabel(String label) {
    for (ElementType type : values()) {
      if (type.label.equals(label)) {
        return type;
      }
    }
    throw new IllegalArgumentException("type: unknown element type '" + label + "'; known: int8, fp16, fp32, fp64, "
        + "float2, float4, int32");
  }

  @Override
  public String toString() {
    return label;
  }
}
