package io.busload.kernels.families;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import io.busload.kernels.Arg;
import io.busload.kernels.Buffer;
import io.busload.kernels.Check;
import io.busload.kernels.Coalescing;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Dim3;
import io.busload.kernels.ElementType;
import io.busload.kernels.KernelCase;
import io.busload.kernels.Parallel;
import io.busload.kernels.Program;
import io.busload.kernels.Step;
import io.busload.kernels.Traffic;
import io.busload.kernels.VariantFamily;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * Square fp32 transpose {@code out[c][r] = in[r][c]} (src/main/cuda/transpose.cu): the copy
 * with the same tiles (upper bound), naive (coalesced loads, one sector per lane on stores), tiled through a
 * 32 x 32 shared tile (32-way bank conflicts on its column reads) and tiled + padded (33 floats per tile row).
 * Size: the side {@code n} of the matrix, a multiple of 32 (8192 on a GPU: 256 MiB per matrix).
 */
public final class Transpose extends VariantFamily<Transpose.Variant, Transpose.Case> {
  public static final String NAME = "transpose";
  public static final int TILE = 32;
  public static final int ROWS = 8;
  /** Largest side: the grid's y dimension (n / 32) stays far below 65535 and n * n fits the int args' math. */
  public static final long MAX_N = 65_536;

  /** A row of the family's table, with the floats per row of its shared tile (0 without one). */
  public record Variant(String kernel, String entryPoint, int tilePitch) implements VariantFamily.Kernel {
    public static final Variant COPY = new Variant("transpose-copy", "busload_transpose_copy", 0);
    public static final Variant NAIVE = new Variant("transpose-naive", "busload_transpose_naive", 0);
    public static final Variant TILED = new Variant("transpose-tiled", "busload_transpose_tiled", TILE);
    public static final Variant PADDED = new Variant("transpose-padded", "busload_transpose_padded", TILE + 1);
    public static final List<Variant> ALL = List.of(COPY, NAIVE, TILED, PADDED);

    /** Static shared memory of the kernel in bytes (the launch passes no dynamic shared memory). */
    public int staticSharedBytes() {
      return tilePitch * TILE * Float.BYTES;
    }

    /**
     * Lanes that hit the same shared memory bank (32 banks of 4 bytes) when a warp reads a column of the tile in
     * the store phase ({@code tile[lane][j]}): 32 for the unpadded tile, 1 with padding, 0 without a tile.
     */
    public int bankConflictWays() {
      if (tilePitch == 0) {
        return 0;
      }
      int[] perBank = new int[32];
      for (int lane = 0; lane < 32; lane++) {
        perBank[(lane * tilePitch) % 32]++;
      }
      return Arrays.stream(perBank).max().orElseThrow();
    }
  }

  public Transpose() {
    super(NAME, Variant.ALL);
  }

  /** 8192 on a GPU (two 256 MiB matrices), 4096 on a CPU; halved while two matrices exceed the budget. */
  @Override
  public long defaultSize(KernelCase kernelCase, DeviceLimits limits) {
    return Families.fit(limits, 8192, 4096, 2, TILE, n -> 2 * n * n * Float.BYTES);
  }

  @Override
  protected Case program(Variant variant, long size) {
    return new Case(variant, Families.require("size", size, TILE, MAX_N, TILE));
  }

  /** One variant at side {@code n}. Buffers: 0 {@code in}, 1 {@code out}, both n x n row-major. */
  public record Case(Variant variant, long n) implements Program {
    private static final int IN = 0;
    private static final int OUT = 1;

    @Override
    public List<Buffer> buffers() {
      return Families.inAndOut(ElementType.FP32, n * n, n * n);
    }

    @Override
    public void fill(int buffer, long first, MemorySegment chunk) {
      Families.fillInput(buffer, IN, first, chunk);
    }

    @Override
    public List<Step> steps() {
      int tiles = (int) (n / TILE);
      return List.of(new Step.Kernel(variant.entryPoint(), Dim3.of(tiles, tiles), Dim3.of(TILE, ROWS), 0,
          List.of(Arg.buf(IN), Arg.buf(OUT), Arg.i32((int) n))));
    }

    /** Every element read once and written once; no arithmetic. */
    @Override
    public Traffic traffic() {
      long bytes = n * n * Float.BYTES;
      return new Traffic(bytes, bytes, 0);
    }

    /**
     * Warp 0 of block (0, 0): threadIdx.y = 0, lanes are threadIdx.x = column 0..31 of row 0. It loads row 0
     * (4 sectors); the naive store writes column 0 of out, lanes n * 4 bytes apart (32 sectors); the copy and
     * the tiled stores write row 0 of out (4 sectors).
     */
    @Override
    public List<Coalescing> coalescing() {
      Coalescing load = Families.warp("load in", false, lane -> lane * Float.BYTES, Float.BYTES);
      Coalescing store = variant.equals(Variant.NAIVE)
          ? Families.warp("store out", true, lane -> lane * n * Float.BYTES, Float.BYTES)
          : Families.warp("store out", true, lane -> lane * Float.BYTES, Float.BYTES);
      return List.of(load, store);
    }

    /** Bit for bit: {@code out[r][c] = in[c][r]} (copy: {@code in[r][c]}), against the host copy of the input. */
    @Override
    public Check check(List<MemorySegment> host) {
      MemorySegment out = host.get(OUT);
      MemorySegment in = host.get(IN);
      boolean copy = variant.equals(Variant.COPY);
      return Check.inParts(n, n, (from, to, collector) -> {
        for (long r = from; r < to; r++) {
          for (long c = 0; c < n; c++) {
            float expected = in.getAtIndex(JAVA_FLOAT, copy ? r * n + c : c * n + r);
            float actual = out.getAtIndex(JAVA_FLOAT, r * n + c);
            if (!Families.same(expected, actual)) {
              long row = r;
              long column = c;
              collector.mismatch(() -> "out[" + row + "][" + column + "]: expected " + expected + ", got "
                  + Families.describe(actual));
            }
          }
        }
        collector.checked((to - from) * n);
      });
    }

    /**
     * The GPU's pattern per thread block row: copy and naive walk each input row (naive writing down a column
     * of out); tiled and padded move 32 x 32 tiles through a local tile of the kernel's pitch.
     */
    @Override
    public void runOnCpu(List<MemorySegment> buffers, Parallel parallel) {
      MemorySegment in = buffers.get(IN);
      MemorySegment out = buffers.get(OUT);
      if (variant.equals(Variant.COPY)) {
        parallel.forRange(n, (from, to) -> MemorySegment.copy(
            in, from * n * Float.BYTES, out, from * n * Float.BYTES, (to - from) * n * Float.BYTES));
      } else if (variant.equals(Variant.NAIVE)) {
        parallel.forRange(n, (from, to) -> {
          for (long r = from; r < to; r++) {
            for (long c = 0; c < n; c++) {
              out.setAtIndex(JAVA_FLOAT, c * n + r, in.getAtIndex(JAVA_FLOAT, r * n + c));
            }
          }
        });
      } else {
        parallel.forRange(n / TILE, (from, to) -> {
          int pitch = variant.tilePitch();
          float[] tile = new float[TILE * pitch];
          for (long tileRow = from; tileRow < to; tileRow++) {
            for (long tileCol = 0; tileCol < n / TILE; tileCol++) {
              long r0 = tileRow * TILE;
              long c0 = tileCol * TILE;
              for (int y = 0; y < TILE; y++) {
                for (int x = 0; x < TILE; x++) {
                  tile[y * pitch + x] = in.getAtIndex(JAVA_FLOAT, (r0 + y) * n + c0 + x);
                }
              }
              for (int y = 0; y < TILE; y++) {
                for (int x = 0; x < TILE; x++) {
                  out.setAtIndex(JAVA_FLOAT, (c0 + y) * n + r0 + x, tile[x * pitch + y]);
                }
              }
            }
          }
        });
      }
    }
  }
}
