package io.busload.kernels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;

/**
 * {@code out[i] = in[i * stride + offset]} for {@code i < n} elements of one type: the program of every copy
 * family (stride.cu, copy.cu) and of the memcpy ceiling. Buffer 0 is the input, buffer 1 the output. A copy
 * must not change a bit, so the check is bit-exact (the tolerance fit for a copy of any type is zero).
 */
public final class CopyProgram implements Program {
  /** Threads per block and elements per thread of stride.cu and copy.cu (BUSLOAD_*_PER_THREAD). */
  public static final int BLOCK = 256;
  public static final int PER_THREAD = 4;

  private final ElementType type;
  private final long n;
  private final long stride;
  private final long offset;
  private final List<Step> steps;
  private final long seed = ThreadLocalRandom.current().nextLong();

  private CopyProgram(ElementType type, long n, long stride, long offset, List<Step> steps) {
    this.type = type;
    this.n = n;
    this.stride = stride;
    this.offset = offset;
    this.steps = List.copyOf(steps);
  }

  /** Input elements: the last read is {@code (n - 1) * stride + offset}; a whole stride per element keeps it plain. */
  static long inputElements(long n, long stride, long offset) {
    return Math.addExact(Math.multiplyExact(n, stride), offset);
  }

  /**
   * A kernel copy: {@code entryPoint(in, out, n, extra...)} with every integer a 64-bit {@code unsigned long
   * long}, one thread per {@link #PER_THREAD} elements.
   */
  static CopyProgram kernel(ElementType type, long n, long stride, long offset, String entryPoint, long... extra) {
    List<Arg> args = new ArrayList<>(List.of(Arg.buf(0), Arg.buf(1), Arg.i64(n)));
    for (long value : extra) {
      args.add(Arg.i64(value));
    }
    Step step = new Step.Kernel(entryPoint, Dim3.blocksFor(n, (long) BLOCK * PER_THREAD), Dim3.of(BLOCK), 0, args);
    return new CopyProgram(type, n, stride, offset, List.of(step));
  }

  /** The driver's device-to-device copy of {@code n} elements. */
  static CopyProgram deviceCopy(ElementType type, long n) {
    return new CopyProgram(type, n, 1, 0, List.of(new Step.DeviceCopy(1, 0, Math.multiplyExact(n, (long) type.bytes()))));
  }

  public long elements() {
    return n;
  }

  @Override
  public List<Buffer> buffers() {
    return List.of(new Buffer("in", type, inputElements(n, stride, offset), Buffer.Role.INPUT),
        new Buffer("out", type, n, Buffer.Role.OUTPUT));
  }

  @Override
  public void fill(int buffer, long first, MemorySegment chunk) {
    RandomFill.fill(type, seed, first, chunk);
  }

  @Override
  public java.util.Optional<DeviceFill> deviceFill(int buffer) {
    return buffer == 0 ? java.util.Optional.of(DeviceFill.random(type, seed)) : java.util.Optional.empty();
  }

  @Override
  public List<Step> steps() {
    return steps;
  }

  @Override
  public Traffic traffic() {
    long bytes = Math.multiplyExact(n, (long) type.bytes());
    return new Traffic(bytes, bytes, 0);
  }

  /** Warp 0 of allocations aligned to 256 bytes, as cuMemAlloc returns; the driver's copy is not ours to model. */
  @Override
  public List<Coalescing> coalescing() {
    if (steps.getFirst() instanceof Step.DeviceCopy) {
      return List.of();
    }
    return coalescing(type, stride, offset);
  }

  static List<Coalescing> coalescing(ElementType type, long stride, long offset) {
    int bytes = type.bytes();
    WarpSimulator.Request load = WarpSimulator.simulate(lane -> (lane * stride + offset) * bytes, bytes);
    WarpSimulator.Request store = WarpSimulator.simulate(lane -> lane * bytes, bytes);
    return List.of(
        new Coalescing("load in", false, load.sectors(), load.lines(), load.requestedBytes()),
        new Coalescing("store out", true, store.sectors(), store.lines(), store.requestedBytes()));
  }

  @Override
  public Check check(List<MemorySegment> host) {
    MemorySegment in = host.get(0);
    MemorySegment out = host.get(1);
    int parts = (int) Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), n / 65536));
    List<Check> checks = IntStream.range(0, parts).parallel().mapToObj(p -> {
      Check.Collector collector = new Check.Collector();
      long from = n * p / parts;
      long to = n * (p + 1) / parts;
      for (long i = from; i < to; i++) {
        long source = i * stride + offset;
        if (!same(in, source, out, i)) {
          collector.mismatch("out[" + i + "]: expected " + describe(in, source) + " (in[" + source + "]), got "
              + describe(out, i));
        }
      }
      collector.checked(to - from);
      return collector.result();
    }).toList();
    return Check.merge(checks);
  }

  private boolean same(MemorySegment in, long source, MemorySegment out, long index) {
    int bytes = type.bytes();
    long a = source * bytes;
    long b = index * bytes;
    return switch (bytes) {
      case 1 -> in.get(ValueLayout.JAVA_BYTE, a) == out.get(ValueLayout.JAVA_BYTE, b);
      case 2 -> in.get(ValueLayout.JAVA_SHORT_UNALIGNED, a) == out.get(ValueLayout.JAVA_SHORT_UNALIGNED, b);
      case 4 -> in.get(ValueLayout.JAVA_INT_UNALIGNED, a) == out.get(ValueLayout.JAVA_INT_UNALIGNED, b);
      case 8 -> in.get(ValueLayout.JAVA_LONG_UNALIGNED, a) == out.get(ValueLayout.JAVA_LONG_UNALIGNED, b);
      default -> MemorySegment.mismatch(in, a, a + bytes, out, b, b + bytes) < 0;
    };
  }

  /** An element in words: its value and bits, or "poison (never written)". */
  String describe(MemorySegment segment, long index) {
    int bytes = type.bytes();
    MemorySegment element = segment.asSlice(index * bytes, bytes);
    boolean poison = true;
    for (long b = 0; b < bytes; b++) {
      poison &= element.get(ValueLayout.JAVA_BYTE, b) == Poison.BYTE;
    }
    if (poison) {
      return "poison (never written)";
    }
    return switch (type) {
      case INT8 -> Byte.toString(element.get(ValueLayout.JAVA_BYTE, 0));
      case FP16 -> {
        short bits = element.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0);
        yield Float.float16ToFloat(bits) + String.format(Locale.ROOT, " (0x%04X)", bits & 0xFFFF);
      }
      case FP32 -> {
        float value = element.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 0);
        yield value + String.format(Locale.ROOT, " (0x%08X)", Float.floatToRawIntBits(value));
      }
      case FP64 -> Double.toString(element.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0));
      case INT32 -> Integer.toString(element.get(ValueLayout.JAVA_INT_UNALIGNED, 0));
      case FLOAT2, FLOAT4 -> {
        List<String> parts = new ArrayList<>();
        for (long c = 0; c < bytes / 4; c++) {
          parts.add(Float.toString(element.get(ValueLayout.JAVA_FLOAT_UNALIGNED, c * 4)));
        }
        yield "(" + String.join(", ", parts) + ")";
      }
    };
  }

  @Override
  public void runOnCpu(List<MemorySegment> buffers, Parallel parallel) {
    MemorySegment in = buffers.get(0);
    MemorySegment out = buffers.get(1);
    int bytes = type.bytes();
    if (stride == 1) {
      // Contiguous: the same bytes as the GPU's loads and stores, moved the way a CPU copies best.
      parallel.forRange(n, (from, to) ->
          MemorySegment.copy(in, (from + offset) * bytes, out, from * bytes, (to - from) * bytes));
      return;
    }
    parallel.forRange(n, (from, to) -> {
      for (long i = from; i < to; i++) {
        long a = (i * stride + offset) * bytes;
        long b = i * bytes;
        switch (bytes) {
          case 1 -> out.set(ValueLayout.JAVA_BYTE, b, in.get(ValueLayout.JAVA_BYTE, a));
          case 2 -> out.set(ValueLayout.JAVA_SHORT_UNALIGNED, b, in.get(ValueLayout.JAVA_SHORT_UNALIGNED, a));
          case 4 -> out.set(ValueLayout.JAVA_INT_UNALIGNED, b, in.get(ValueLayout.JAVA_INT_UNALIGNED, a));
          case 8 -> out.set(ValueLayout.JAVA_LONG_UNALIGNED, b, in.get(ValueLayout.JAVA_LONG_UNALIGNED, a));
          default -> MemorySegment.copy(in, a, out, b, bytes);
        }
      }
    });
  }
}
