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
import io.busload.kernels.RandomFloats;
import io.busload.kernels.Step;
import io.busload.kernels.Traffic;
import io.busload.kernels.VariantFamily;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The seed's particle update in three layouts (src/main/cuda/particles.cu;
 * seeds/coalescing-patterns-a100.txt): 8 fp32 fields per particle ({@link #FIELDS}), one launch moves every
 * particle in place, {@code x = fma(vx, dt, x)} for x, y, z. AoS puts a particle's fields together (lanes 32
 * bytes apart: a sector per lane), SoA puts each field together (4 sectors per warp request), AoSoA groups
 * 32 particles per chunk (4 sectors, a particle's fields within 1 KiB).
 * Size: the particle count, a multiple of 32 (2^23 on a GPU: a 256 MiB buffer).
 */
public final class Particles extends VariantFamily<Particles.Variant, Particles.Case> {
  public static final String NAME = "particles";
  public static final List<String> FIELDS = List.of("x", "y", "z", "vx", "vy", "vz", "mass", "charge");
  /** Particles per AoSoA chunk: one warp. */
  public static final int CHUNK = 32;
  public static final int BLOCK = 256;
  /** Time step of every launch, exactly representable so the reference is unambiguous. */
  public static final float DT = 0x1p-6f;
  static final int F = 8;

  /** A row of the family's table: the kernel of one layout. */
  public record Variant(String kernel, String entryPoint, Layout layout) implements VariantFamily.Kernel {
    public static final List<Variant> ALL = List.of(
        new Variant("particles-aos", "busload_particles_aos", Layout.AOS),
        new Variant("particles-soa", "busload_particles_soa", Layout.SOA),
        new Variant("particles-aosoa", "busload_particles_aosoa", Layout.AOSOA));

    /** The row of {@code layout}. */
    public static Variant of(Layout layout) {
      return ALL.stream().filter(v -> v.layout == layout).findFirst().orElseThrow();
    }
  }

  /** Where a particle's fields lie in the buffer: each layout has its own offset arithmetic. */
  public enum Layout {
    AOS,
    SOA,
    AOSOA;

    /** Element index of field {@code f} of particle {@code i} among {@code n} particles. */
    public long offset(long i, int f, long n) {
      return switch (this) {
        case AOS -> i * F + f;
        case SOA -> f * n + i;
        case AOSOA -> (i / CHUNK) * (CHUNK * F) + (long) f * CHUNK + i % CHUNK;
      };
    }

    /** The inverse of {@link #offset}: the particle stored at element {@code e} (no array per element: fills). */
    long particle(long e, long n) {
      return switch (this) {
        case AOS -> e / F;
        case SOA -> e % n;
        case AOSOA -> (e / (CHUNK * F)) * CHUNK + e % CHUNK;
      };
    }

    /** The inverse of {@link #offset}: the field stored at element {@code e}. */
    int field(long e, long n) {
      return (int) switch (this) {
        case AOS -> e % F;
        case SOA -> e / n;
        case AOSOA -> (e % (CHUNK * F)) / CHUNK;
      };
    }
  }

  public Particles() {
    super(NAME, Variant.ALL);
  }

  /** 2^23 particles on a GPU (256 MiB, 302 MB touched), 2^22 on a CPU; halved while over the budget. */
  @Override
  public long defaultSize(KernelCase kernelCase, DeviceLimits limits) {
    // 2^23 particles x 8 floats = 256 MiB: four times the H200 L2, half the host work of 2^24 (90 s budget).
    return Families.fit(limits, 1L << 23, 1L << 22, 2, CHUNK, n -> n * F * Float.BYTES);
  }

  @Override
  protected Case program(Variant variant, long size) {
    return new Case(variant.layout(), Families.require("size", size, CHUNK, 1L << 36, CHUNK));
  }

  /** The initial value of field {@code f} of particle {@code i}: uniform in [1, 2), whatever the layout. */
  static float initial(long i, int f) {
    return new RandomFloats(Families.SEED).get(i * F + f);
  }

  /** One layout at {@code n} particles. Buffer 0 {@code particles}: 8 n floats, updated in place. */
  public record Case(Layout layout, long n) implements Program {
    @Override
    public List<Buffer> buffers() {
      // In place: an INPUT (filled, never poisoned); a launch that writes nothing leaves x != fma(vx, dt, x).
      return List.of(new Buffer("particles", ElementType.FP32, n * F, Buffer.Role.INOUT));
    }

    @Override
    public void fill(int buffer, long first, MemorySegment chunk) {
      Families.requireInput(buffer, 0);
      long count = chunk.byteSize() / Float.BYTES;
      for (long k = 0; k < count; k++) {
        long e = first + k;
        chunk.setAtIndex(JAVA_FLOAT, k, initial(layout.particle(e, n), layout.field(e, n)));
      }
    }

    @Override
    public List<Step> steps() {
      return List.of(new Step.Kernel(Variant.of(layout).entryPoint(), Dim3.blocksFor(n, BLOCK), Dim3.of(BLOCK), 0,
          List.of(Arg.buf(0), Arg.i64(n), new Arg.F32(DT))));
    }

    /** Reads x, y, z, vx, vy, vz (24 bytes), writes x, y, z (12 bytes), 3 FMAs (6 FLOPs) per particle. */
    @Override
    public Traffic traffic() {
      return new Traffic(n * 6 * Float.BYTES, n * 3 * Float.BYTES, n * 6);
    }

    /** Warp 0: lanes are particles 0..31; six field loads, then three field stores. */
    @Override
    public List<Coalescing> coalescing() {
      List<Coalescing> model = new ArrayList<>();
      for (int f = 0; f < 6; f++) {
        int field = f;
        model.add(Families.warp("load " + FIELDS.get(f), false, lane -> layout.offset(lane, field, n) * Float.BYTES,
            Float.BYTES));
      }
      for (int f = 0; f < 3; f++) {
        int field = f;
        model.add(Families.warp("store " + FIELDS.get(f), true, lane -> layout.offset(lane, field, n) * Float.BYTES,
            Float.BYTES));
      }
      return model;
    }

    /** Bit for bit: positions are {@code fma(v, DT, p)} of the initial values, every other field unchanged. */
    @Override
    public Check check(List<MemorySegment> host) {
      MemorySegment p = host.get(0);
      return Check.inParts(n, F, (from, to, collector) -> {
        for (long i = from; i < to; i++) {
          for (int f = 0; f < F; f++) {
            float expected = f < 3 ? Math.fma(initial(i, f + 3), DT, initial(i, f)) : initial(i, f);
            float actual = p.getAtIndex(JAVA_FLOAT, layout.offset(i, f, n));
            if (!Families.same(expected, actual)) {
              long particle = i;
              int field = f;
              collector.mismatch(() -> FIELDS.get(field) + "[" + particle + "]: expected " + expected + ", got "
                  + Families.describe(actual));
            }
          }
        }
        collector.checked((to - from) * F);
      });
    }

    /**
     * After {@code launches} updates each position is {@code p + launches v DT} up to one rounding of the fma per
     * launch, each at most {@code u |p_k|} with the position growing monotonically (v > 0), so within
     * {@code launches u (|p| + launches |v| DT)}; velocities and the rest unchanged, bit for bit. A particle some
     * launch skipped for good lags by {@code launches v DT}, far beyond that. One launch: the exact check.
     */
    @Override
    public Check checkAfter(List<MemorySegment> host, long launches) {
      if (launches <= 1) {
        return check(host);
      }
      MemorySegment p = host.get(0);
      return Check.inParts(n, F, (from, to, collector) -> {
        for (long i = from; i < to; i++) {
          for (int f = 0; f < F; f++) {
            float actual = p.getAtIndex(JAVA_FLOAT, layout.offset(i, f, n));
            if (f >= 3) {
              float expected = initial(i, f);
              if (!Families.same(expected, actual)) {
                collector.mismatch(FIELDS.get(f) + "[" + i + "]: expected " + expected + " (unchanged), got "
                    + Families.describe(actual));
              }
              continue;
            }
            double start = initial(i, f);
            double moved = (double) launches * initial(i, f + 3) * DT;
            double expected = start + moved;
            double bound = launches * 0x1p-24 * (Math.abs(start) + Math.abs(moved)) * (1 + 0x1p-20);
            if (!(Math.abs(actual - expected) <= bound)) {
              int field = f;
              long particle = i;
              collector.mismatch(() -> FIELDS.get(field) + "[" + particle + "]: expected " + expected + " +- " + bound
                  + " after " + launches + " launches, got " + Families.describe(actual));
            }
          }
        }
        collector.checked((to - from) * F);
      });
    }

    /** One particle at a time, as a GPU thread does, through the layout's offsets. */
    @Override
    public void runOnCpu(List<MemorySegment> buffers, Parallel parallel) {
      MemorySegment p = buffers.get(0);
      parallel.forRange(n, (from, to) -> {
        for (long i = from; i < to; i++) {
          for (int f = 0; f < 3; f++) {
            long pos = layout.offset(i, f, n);
            float v = p.getAtIndex(JAVA_FLOAT, layout.offset(i, f + 3, n));
            p.setAtIndex(JAVA_FLOAT, pos, Math.fma(v, DT, p.getAtIndex(JAVA_FLOAT, pos)));
          }
        }
      });
    }
  }
}
