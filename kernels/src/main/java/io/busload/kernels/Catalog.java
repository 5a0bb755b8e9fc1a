package io.busload.kernels;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * Every suite and its kernels, as data. Families register through
 * {@code META-INF/services/io.busload.kernels.Family} (one line each, so engineers adding families never edit
 * this class). Suites: {@code stride} (issue 2), {@code coalescing} (every family) and one per family; each
 * starts with the memcpy ceiling so every result can be set against it.
 */
public final class Catalog {
  /** Suite of every family, ceiling first. */
  public static final String COALESCING = "coalescing";

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

  private static final List<Family> FAMILIES = loadFamilies();
  private static final Map<String, List<KernelSpec>> SUITES = suites();

  private Catalog() {}

  private static List<Family> loadFamilies() {
    List<Family> families = new ArrayList<>();
    for (Family family : ServiceLoader.load(Family.class, Catalog.class.getClassLoader())) {
      families.add(family);
    }
    return List.copyOf(families);
  }

  private static Map<String, List<KernelSpec>> suites() {
    Map<String, List<KernelSpec>> suites = new LinkedHashMap<>();
    // The ceiling first, so a reader meets it before the fractions that refer to it.
    suites.put("stride", List.of(MEMCPY_D2D, STRIDE_COPY_FP32));
    if (!FAMILIES.isEmpty()) {
      List<KernelSpec> all = new ArrayList<>(List.of(MEMCPY_D2D));
      FAMILIES.forEach(f -> all.addAll(f.kernels()));
      suites.put(COALESCING, List.copyOf(all));
      for (Family family : FAMILIES) {
        List<KernelSpec> kernels = new ArrayList<>(List.of(MEMCPY_D2D));
        kernels.addAll(family.kernels());
        suites.putIfAbsent(family.name(), List.copyOf(kernels));
      }
    }
    return java.util.Collections.unmodifiableMap(suites);
  }

  /** Every registered family, in registration order. */
  public static List<Family> families() {
    return FAMILIES;
  }

  /** The family of that name; {@link IllegalArgumentException} starting with {@code family:} otherwise. */
  public static Family family(String name) {
    return FAMILIES.stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow(() ->
        new IllegalArgumentException("family: unknown family '" + name + "'; known: "
            + String.join(", ", FAMILIES.stream().map(Family::name).toList())));
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
