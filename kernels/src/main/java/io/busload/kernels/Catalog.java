package io.busload.kernels;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every suite and its kernels, as data. Families register through
 * {@code META-INF/services/io.busload.kernels.Family} (one line each, so engineers adding families never edit
 * this class). Suites: {@code coalescing} (every family), one per family ({@code stride}, the first, of the strided
 * copy), each
 * starting with the memcpy ceiling so every result can be set against it.
 */
public final class Catalog {
  /** Suite of every family, ceiling first. */
  public static final String COALESCING = "coalescing";
  /** The ceiling timed first in every suite. */
  public static final MemcpyCeiling CEILING = new MemcpyCeiling();
  public static final KernelSpec MEMCPY_D2D = MemcpyCeiling.MEMCPY_D2D;

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
    List<KernelSpec> all = new ArrayList<>(List.of(MEMCPY_D2D));
    // Families that are not measurements (the faults) have their own suite only.
    FAMILIES.stream().filter(Family::inCoalescingSuite).forEach(f -> all.addAll(f.kernels()));
    suites.put(COALESCING, List.copyOf(all));
    for (Family family : FAMILIES) {
      List<KernelSpec> kernels = new ArrayList<>(List.of(MEMCPY_D2D));
      kernels.addAll(family.kernels());
      suites.putIfAbsent(family.name(), List.copyOf(kernels));
    }
    return java.util.Collections.unmodifiableMap(suites);
  }

  /** Every registered family, in registration order (the ceiling is not one of them). */
  public static List<Family> families() {
    return FAMILIES;
  }

  /** The family of that name (or the ceiling's, {@code memcpy}); {@code family: unknown family ...} otherwise. */
  public static Family family(String name) {
    if (name.equals(CEILING.name())) {
      return CEILING;
    }
    return FAMILIES.stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow(() ->
        new IllegalArgumentException("family: unknown family '" + name + "'; known: "
            + String.join(", ", FAMILIES.stream().map(Family::name).toList())));
  }

  /** The family that builds a case's programs. */
  public static Family familyOf(KernelCase kernelCase) {
    return family(kernelCase.spec().family());
  }

  /** Names of every suite, in catalog order. */
  public static Set<String> suiteNames() {
    return SUITES.keySet();
  }

  /** Every axis name of every family, for validating options without a suite. */
  public static Set<String> axisNames() {
    Set<String> names = new TreeSet<>();
    FAMILIES.forEach(f -> f.kernels().forEach(k -> k.axes().forEach(a -> names.add(a.name()))));
    CEILING.kernels().forEach(k -> k.axes().forEach(a -> names.add(a.name())));
    return names;
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

  /**
   * The cases of a suite with the options' axis values in place of the catalog's (a kernel without that
   * axis keeps its one case); {@code stride: no kernel of suite ...} when no kernel of the suite has it.
   */
  public static List<KernelCase> cases(String suite, SuiteOptions options) {
    List<KernelSpec> kernels = suite(suite);
    for (String axis : options.axes().keySet()) {
      if (kernels.stream().noneMatch(k -> k.hasAxis(axis))) {
        throw new IllegalArgumentException(axis + ": no kernel of suite '" + suite + "' has this axis");
      }
    }
    List<KernelCase> cases = new ArrayList<>();
    for (KernelSpec kernel : kernels) {
      List<Axis> sweep = kernel.axes().stream()
          .map(a -> options.axes().containsKey(a.name()) ? new Axis(a.name(), options.axes().get(a.name())) : a)
          .toList();
      cases.addAll(kernel.cases(sweep));
    }
    return cases;
  }
}
