package io.busload.kernels;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Every suite and its kernels, as data; the only place a kernel is declared. */
public final class Catalog {
  /** Strides from coalesced (1) to a sector per lane (8) and beyond, where DRAM granularity shows (16, 32). */
  public static final List<Long> STRIDES = List.of(1L, 2L, 4L, 8L, 16L, 32L);

  /** Driver device-to-device copy of the stride-1 copy's bytes: the ceiling timed in every run. */
  public static final KernelSpec MEMCPY_D2D = new KernelSpec(
      "memcpy-d2d", "memcpy", KernelSpec.Kind.MEMCPY, null, List.of(), List.of(), 0, 0, new DeviceCopy());

  public static final KernelSpec STRIDE_COPY_FP32 = new KernelSpec(
      "stride-copy-fp32", "stride", KernelSpec.Kind.KERNEL, "busload_stride_copy_f32",
      List.of(new Axis(StridedCopy.STRIDE, STRIDES)),
      List.of(KernelSpec.Arg.INPUT, KernelSpec.Arg.OUTPUT, KernelSpec.Arg.ELEMENTS,
          KernelSpec.Arg.param(StridedCopy.STRIDE)),
      256, 4, new StridedCopy());

  private static final Map<String, List<KernelSpec>> SUITES = suites();

  private Catalog() {}

  private static Map<String, List<KernelSpec>> suites() {
    Map<String, List<KernelSpec>> suites = new LinkedHashMap<>();
    // The ceiling first, so a reader meets it before the fractions that refer to it.
    suites.put("stride", List.of(MEMCPY_D2D, STRIDE_COPY_FP32));
    return java.util.Collections.unmodifiableMap(suites);
  }

  /** Names of every suite, in catalog order. */
  public static Set<String> suiteNames() {
    return SUITES.keySet();
  }

  /** The kernels of a suite, ceiling first; {@link IllegalArgumentException} naming the known ones otherwise. */
  public static List<KernelSpec> suite(String name) {
    List<KernelSpec> kernels = SUITES.get(name);
    if (kernels == null) {
      throw new IllegalArgumentException("unknown suite '" + name + "'; known: " + String.join(", ", SUITES.keySet()));
    }
    return kernels;
  }

  /** Every case of a suite: each kernel at each point of its axes, in order. */
  public static List<KernelCase> cases(String suite) {
    return suite(suite).stream().flatMap(k -> k.cases().stream()).toList();
  }
}
