package io.busload.kernels.families;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import io.busload.kernels.AbstractFamily;
import io.busload.kernels.Arg;
import io.busload.kernels.Axis;
import io.busload.kernels.Buffer;
import io.busload.kernels.Buffer.Memory;
import io.busload.kernels.Buffer.Role;
import io.busload.kernels.Check;
import io.busload.kernels.Coalescing;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Dim3;
import io.busload.kernels.ElementType;
import io.busload.kernels.KernelCase;
import io.busload.kernels.KernelSpec;
import io.busload.kernels.Parallel;
import io.busload.kernels.Program;
import io.busload.kernels.Sizes;
import io.busload.kernels.Step;
import io.busload.kernels.SuiteOptions;
import io.busload.kernels.Traffic;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;

/**
 * The links of a host (src/main/cuda/interconnect.cu): host to device, device to host and both at once,
 * from pinned and pageable memory by the copy engines ({@code ce}) and from mapped pinned memory by SM loads and
 * stores ({@code sm}, zero-copy); and to and from the other GPUs of the host with peer access, one direction
 * (this GPU writes to the peer) and both. Suite {@code interconnect} only: links are not memory coalescing.
 *
 * <p>Axes: {@code bytes} moved in each direction, 4 KiB to 1 GiB in steps of 4 for the host links (the curve from
 * latency to bandwidth), 256 MiB for a pair; {@code peer}, the other GPU of a pair by its host index, where the
 * catalog's -1 means every other GPU of the host (the GPU x GPU matrix, row = this GPU). The {@code size} option
 * does not apply: sizes come from the {@code bytes} axis.
 *
 * <p>Bytes are counted from this device's side of the link: those it sends (read here, written across) plus those
 * it receives, so a bandwidth is the link's, and both at once count both directions. Each copy is checked bit for
 * bit against its source after it lands. On a CPU every buffer is host memory and the copies are memory copies
 * between threads; there is no pair, and the peer cases say so.
 */
public final class Interconnect extends AbstractFamily {
  public static final String NAME = "interconnect";
  public static final int BLOCK = 256;
  /** 16-byte words per thread per pass, as {@code BUSLOAD_LINK_PER_THREAD}. */
  public static final int PER_THREAD = 4;
  /** Blocks of an SM copy in each direction: enough 16-byte loads in flight to cover a link's microseconds. */
  public static final int MAX_BLOCKS = 1024;
  /** 4 KiB, 16 KiB, ..., 1 GiB. */
  public static final List<Long> HOST_BYTES = LongStream.iterate(4096, b -> b <= 1L << 30, b -> b * 4).boxed().toList();
  /** One size per pair: a matrix cell, well above any latency. */
  public static final List<Long> PEER_BYTES = List.of(256L << 20);
  /** The largest {@code bytes}: 1 GiB in each direction. */
  public static final long MAX_BYTES = 1L << 30;
  /** The peer axis value meaning every other GPU of the host. */
  public static final long EVERY_PEER = -1;

  /** Which way bytes cross the link, seen from the device that runs the case. */
  public enum Direction { H2D, D2H, BIDIR, WRITE }

  /**
   * A row of the family's table.
   *
   * @param memory where the host or peer side lives
   * @param sm whether SM loads and stores move the bytes (false: the copy engines)
   */
  public record Variant(String kernel, Direction direction, Memory memory, boolean sm) {
    public boolean peer() {
      return memory == Memory.PEER;
    }

    public String entryPoint() {
      return !sm ? null : direction == Direction.BIDIR ? "busload_interconnect_copy2_v4" : "busload_interconnect_copy_v4";
    }
  }

  public static final List<Variant> VARIANTS = List.of(
      new Variant("h2d-ce-pinned", Direction.H2D, Memory.PINNED, false),
      new Variant("d2h-ce-pinned", Direction.D2H, Memory.PINNED, false),
      new Variant("bidir-ce-pinned", Direction.BIDIR, Memory.PINNED, false),
      new Variant("h2d-ce-pageable", Direction.H2D, Memory.PAGEABLE, false),
      new Variant("d2h-ce-pageable", Direction.D2H, Memory.PAGEABLE, false),
      new Variant("bidir-ce-pageable", Direction.BIDIR, Memory.PAGEABLE, false),
      new Variant("h2d-sm-mapped", Direction.H2D, Memory.MAPPED, true),
      new Variant("d2h-sm-mapped", Direction.D2H, Memory.MAPPED, true),
      new Variant("bidir-sm-mapped", Direction.BIDIR, Memory.MAPPED, true),
      new Variant("p2p-ce-write", Direction.WRITE, Memory.PEER, false),
      new Variant("p2p-ce-bidir", Direction.BIDIR, Memory.PEER, false),
      new Variant("p2p-sm-write", Direction.WRITE, Memory.PEER, true),
      new Variant("p2p-sm-bidir", Direction.BIDIR, Memory.PEER, true));

  public Interconnect() {
    super(NAME, VARIANTS.stream().map(v -> new KernelSpec(v.kernel(), NAME, v.peer()
        ? List.of(new Axis(SuiteOptions.PEER, List.of(EVERY_PEER)), new Axis(SuiteOptions.BYTES, PEER_BYTES))
        : List.of(new Axis(SuiteOptions.BYTES, HOST_BYTES)))).toList(), Suites.OWN_ONLY);
  }

  /** The row of a case; {@code kernel: ...} when the case is not this family's. */
  public static Variant variant(String kernel) {
    return VARIANTS.stream().filter(v -> v.kernel().equals(kernel)).findFirst().orElseThrow(() ->
        new IllegalArgumentException("kernel: '" + kernel + "' is not a kernel of " + NAME));
  }

  /** Every other GPU of the host for {@code peer=-1}, when there is one; otherwise the case as given. */
  @Override
  public List<KernelCase> casesOn(KernelCase kernelCase, DeviceLimits limits) {
    if (!kernelCase.params().containsKey(SuiteOptions.PEER) || kernelCase.param(SuiteOptions.PEER) != EVERY_PEER
        || limits.hostDevices() < 2) {
      return List.of(kernelCase);
    }
    List<KernelCase> cases = new ArrayList<>();
    for (int other = 0; other < limits.hostDevices(); other++) {
      if (other != limits.ordinal()) {
        var params = new java.util.TreeMap<>(kernelCase.params());
        params.put(SuiteOptions.PEER, (long) other);
        cases.add(new KernelCase(kernelCase.spec(), params));
      }
    }
    return cases;
  }

  /** The case's own {@code bytes}: the size of an interconnect case is not the device's to choose. */
  @Override
  public long defaultSize(KernelCase kernelCase, DeviceLimits limits) {
    return kernelCase.param(SuiteOptions.BYTES);
  }

  @Override
  public Program program(KernelCase kernelCase, long size) {
    Variant variant = variant(kernelCase.spec().name());
    long bytes = kernelCase.param(SuiteOptions.BYTES);
    if (size != bytes) {
      throw new IllegalArgumentException(SuiteOptions.SIZE + ": suite " + NAME + " takes its sizes from the "
          + SuiteOptions.BYTES + " axis (for example bytes=4096,1048576), not from size=" + size);
    }
    // A Java buffer view of pinned memory ends at 2 GiB; the issue asks for 1 GiB.
    Families.require(SuiteOptions.BYTES, bytes, 16, MAX_BYTES, 16);
    int peer = variant.peer() ? (int) kernelCase.param(SuiteOptions.PEER) : -1;
    return new Case(variant, bytes, peer);
  }

  /**
   * One link case. Buffers for one direction: 0 {@code src}, 1 {@code dst}; for both: 0 {@code src0}, 1
   * {@code dst0} (into this device, or to the peer for a pair), 2 {@code src1}, 3 {@code dst1} (out of it, or back
   * from the peer). All fp32, {@code bytes / 4} elements.
   *
   * @param peer the other GPU by host index, -1 for every other (only when the host has none) or no pair
   */
  public record Case(Variant variant, long bytes, int peer) implements Program {
    private long elements() {
      return bytes / Float.BYTES;
    }

    private long words() {
      return bytes / 16;
    }

    private boolean both() {
      return variant.direction() == Direction.BIDIR;
    }

    /** Where the source and destination of a one-way copy live; for both ways, of the first of the two. */
    private Memory[] ends() {
      Memory local = Memory.DEVICE;
      Memory far = variant.memory();
      return switch (variant.direction()) {
        case H2D, BIDIR -> variant.peer() ? new Memory[] {local, far} : new Memory[] {far, local};
        case D2H, WRITE -> new Memory[] {local, far};
      };
    }

    @Override
    public List<Buffer> buffers() {
      Memory[] ends = ends();
      if (!both()) {
        return List.of(new Buffer("src", ElementType.FP32, elements(), Role.INPUT, ends[0]),
            new Buffer("dst", ElementType.FP32, elements(), Role.OUTPUT, ends[1]));
      }
      return List.of(new Buffer("src0", ElementType.FP32, elements(), Role.INPUT, ends[0]),
          new Buffer("dst0", ElementType.FP32, elements(), Role.OUTPUT, ends[1]),
          new Buffer("src1", ElementType.FP32, elements(), Role.INPUT, ends[1]),
          new Buffer("dst1", ElementType.FP32, elements(), Role.OUTPUT, ends[0]));
    }

    @Override
    public int peerDevice() {
      return variant.peer() ? peer : -1;
    }

    @Override
    public Optional<String> skipReason(DeviceLimits limits) {
      if (variant.peer()) {
        String self = limits.name(limits.ordinal());
        if (peer != EVERY_PEER && (peer < 0 || peer >= limits.hostDevices() || !limits.gpu())) {
          return Optional.of("peer: device " + (limits.gpu() ? limits.name(peer) : "cuda:" + peer)
              + " does not exist; this host has " + (limits.hostDevices() == 1 ? "only " + self
                  : limits.name(0) + ".." + limits.name(limits.hostDevices() - 1)));
        }
        if (peer == EVERY_PEER || limits.hostDevices() < 2) {
          return Optional.of("peer: no GPU pair on this host: " + self + " is its only " + limits.kind() + " device");
        }
        if (peer == limits.ordinal()) {
          return Optional.of("peer: " + self + " is the device running the case; a pair needs another GPU");
        }
      }
      return Program.super.skipReason(limits);
    }

    /** Only this device's memory counts against what it has free; host and peer memory are elsewhere. */
    @Override
    public long deviceBytes() {
      return buffers().stream().filter(b -> b.memory() == Memory.DEVICE).mapToLong(Buffer::bytes).sum();
    }

    @Override
    public void fill(int buffer, long first, MemorySegment chunk) {
      if (buffer != 0 && !(both() && buffer == 2)) {
        throw new IllegalArgumentException("buffer: " + buffer + " is not an input");
      }
      Families.input(buffer).fill(chunk, first, chunk.byteSize() / Float.BYTES);
    }

    @Override
    public List<Step> steps() {
      if (variant.sm()) {
        int blocks = (int) Math.min(MAX_BLOCKS, Dim3.blocksFor(words(), (long) BLOCK * PER_THREAD).x());
        return List.of(both()
            ? new Step.Kernel(variant.entryPoint(), Dim3.of(2 * blocks), Dim3.of(BLOCK), 0,
                List.of(Arg.buf(1), Arg.buf(0), Arg.buf(3), Arg.buf(2), Arg.i64(words())))
            : new Step.Kernel(variant.entryPoint(), Dim3.of(blocks), Dim3.of(BLOCK), 0,
                List.of(Arg.buf(1), Arg.buf(0), Arg.i64(words()))));
      }
      return List.of(both()
          ? new Step.Concurrent(List.of(new Step.Copy(1, 0, bytes), new Step.Copy(3, 2, bytes)))
          : new Step.Copy(1, 0, bytes));
    }

    /** Received (written here) and sent (read here): see the class comment. */
    @Override
    public Traffic traffic() {
      return switch (variant.direction()) {
        case H2D -> new Traffic(0, bytes, 0);
        case D2H, WRITE -> new Traffic(bytes, 0, 0);
        case BIDIR -> new Traffic(bytes, bytes, 0);
      };
    }

    @Override
    public int linkDirections() {
      return both() ? 2 : 1;
    }

    @Override
    public String bytesCounted() {
      return "bytes crossing the link (sent + received by this device"
          + (both() ? ", both directions added" : "") + ")";
    }

    /** The SM kernels load and store 16 consecutive bytes per lane; the copy engines are not ours to model. */
    @Override
    public List<Coalescing> coalescing() {
      if (!variant.sm()) {
        return List.of();
      }
      return List.of(Families.warp("load src", false, lane -> lane * 16L, 16),
          Families.warp("store dst", true, lane -> lane * 16L, 16));
    }

    /** Every destination equals its source bit for bit. */
    @Override
    public Check check(List<MemorySegment> host) {
      Check.Collector collector = new Check.Collector();
      compare(host.get(0), host.get(1), buffers().get(1).name(), collector);
      if (both()) {
        compare(host.get(2), host.get(3), buffers().get(3).name(), collector);
      }
      return collector.result();
    }

    private void compare(MemorySegment src, MemorySegment dst, String name, Check.Collector collector) {
      long elements = elements();
      long at = src.asSlice(0, bytes).mismatch(dst.asSlice(0, bytes));
      for (long i = at < 0 ? elements : at / Float.BYTES; i < elements; i++) {
        float expected = src.getAtIndex(JAVA_FLOAT, i);
        float actual = dst.getAtIndex(JAVA_FLOAT, i);
        if (!Families.same(expected, actual)) {
          collector.mismatch(name + "[" + i + "]: expected " + expected + ", got " + Families.describe(actual));
        }
      }
      collector.checked(elements);
    }

    /** Memory copies between threads: each thread moves one contiguous part (both ways: half the threads each). */
    @Override
    public void runOnCpu(List<MemorySegment> buffers, Parallel parallel) {
      long words = words();
      int pairs = both() ? 2 : 1;
      parallel.forRange(pairs * words, (from, to) -> {
        for (long w = from; w < to; ) {
          int pair = (int) (w / words);
          long end = Math.min(to, (pair + 1) * words);
          long offset = (w - pair * words) * 16;
          MemorySegment.copy(buffers.get(2 * pair), offset, buffers.get(2 * pair + 1), offset, (end - w) * 16);
          w = end;
        }
      });
    }

    @Override
    public String toString() {
      return variant.kernel() + " " + Sizes.bytes(bytes) + (variant.peer() ? " peer " + peer : "");
    }
  }
}
