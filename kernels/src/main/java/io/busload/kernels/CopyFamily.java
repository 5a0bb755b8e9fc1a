package io.busload.kernels;

import java.util.List;

/**
 * What the copy families share: size = output elements ({@code --option size=N}, alias {@code elements}),
 * parameter ranges, and default sizes by bytes touched. One family per coalescing experiment.
 */
public abstract class CopyFamily extends AbstractFamily {
  public static final String STRIDE = "stride";
  public static final String OFFSET = "offset";
  /** Strides past 1024 elements only repeat stride 32's one sector per lane, with a far larger input. */
  public static final long MAX_STRIDE = 1024;
  /** Offsets past 1024 elements repeat the alignment of a smaller offset. */
  public static final long MAX_OFFSET = 1024;
  /** Largest output elements: keeps every byte count of every copy (up to 1024 x 16 bytes each) in a long. */
  public static final long MAX_SIZE = 1L << 40;
  /** Default bytes touched by one launch on a GPU: 2^26 fp32 in and out, well above H100/H200 L2 (50/60 MB). */
  public static final long GPU_TOUCHED_BYTES = 512L << 20;
  /**
   * Most a default case allocates: float4 at stride 32 allocated 8.6 GB to touch 512 MiB, and filling,
   * uploading and checking it cost seconds of the 90 s suite budget on an H100 host. 4 GiB keeps every fp32
   * case as measured in docs/results and still touches at least 200 MB (four times the L2).
   */
  static final long MAX_DEFAULT_ALLOCATION = 4L << 30;

  /** Default bytes touched on a CPU: 2^20 fp32 in and out, a suite in seconds. */
  public static final long CPU_TOUCHED_BYTES = 8L << 20;

  protected CopyFamily(String name, List<KernelSpec> kernels) {
    super(name, kernels);
  }

  /** Bytes one launch touches by default on a GPU; a family of many cases may ask for less. */
  protected long gpuTouchedBytes() {
    return GPU_TOUCHED_BYTES;
  }

  /** The element type a case moves: fp32 unless the family sweeps types. */
  protected ElementType type(KernelCase kernelCase) {
    return ElementType.FP32;
  }

  /** The program at a validated size. */
  protected abstract CopyProgram build(KernelCase kernelCase, long size);

  @Override
  public final Program program(KernelCase kernelCase, long size) {
    if (!kernelCase.spec().family().equals(name())) {
      throw new IllegalArgumentException("family: " + kernelCase.spec().name() + " is not a kernel of " + name());
    }
    if (size <= 0 || size > MAX_SIZE) {
      throw new IllegalArgumentException("size: must be 1..2^40 output elements, got " + size);
    }
    return build(kernelCase, size);
  }

  /**
   * Output elements so that one launch touches at least {@link #GPU_TOUCHED_BYTES} (or the CPU's), halved until
   * every buffer fits {@link DeviceLimits#defaultBudgetBytes()}: per element it stores its own bytes and loads
   * a whole sector once a stride spreads lanes a sector apart (stride 32 fp32: 4 + 32 bytes).
   */
  @Override
  public long defaultSize(KernelCase kernelCase, DeviceLimits limits) {
    int bytes = type(kernelCase).bytes();
    long stride = kernelCase.spec().hasAxis(STRIDE) ? stride(kernelCase) : 1;
    long touchedPerElement = bytes + Math.max(bytes, Math.min(stride * bytes, WarpSimulator.SECTOR_BYTES));
    long target = limits.gpu() ? gpuTouchedBytes() : CPU_TOUCHED_BYTES;
    long n = Long.highestOneBit(Math.max(1, target / touchedPerElement));
    if (n * touchedPerElement < target) {
      n *= 2;
    }
    while (n > 1 && build(kernelCase, n).deviceBytes() > Math.min(limits.defaultBudgetBytes(), MAX_DEFAULT_ALLOCATION)) {
      n /= 2;
    }
    return n;
  }

  protected static List<Axis> strideAxis(List<Long> strides) {
    return List.of(new Axis(STRIDE, strides));
  }

  static long stride(KernelCase kernelCase) {
    long stride = kernelCase.param(STRIDE);
    if (stride < 1 || stride > MAX_STRIDE) {
      throw new IllegalArgumentException(STRIDE + ": must be 1.." + MAX_STRIDE + " elements, got " + stride);
    }
    return stride;
  }

  static long offset(KernelCase kernelCase) {
    long offset = kernelCase.param(OFFSET);
    if (offset < 0 || offset > MAX_OFFSET) {
      throw new IllegalArgumentException(OFFSET + ": must be 0.." + MAX_OFFSET + " elements, got " + offset);
    }
    return offset;
  }
}
