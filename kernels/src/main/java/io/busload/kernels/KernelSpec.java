package io.busload.kernels;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One entry of the catalog: a kernel's stable name, its {@link Family} and the axes a suite sweeps. Everything
 * that depends on a size (buffers, launch geometry, traffic, reference) is in the family's {@link Program}.
 *
 * @param name stable kernel name, as results and the dashboard name it ({@code stride-copy-fp32})
 * @param family the {@link Family#name()} that builds its programs ({@code src/main/cuda/<family>.cu})
 * @param axes parameter axes swept in order; every combination is one measured result
 */
public record KernelSpec(String name, String family, List<Axis> axes) {

  public KernelSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(family, "family");
    axes = List.copyOf(axes);
  }

  /** Every combination of the axes, first axis slowest; one empty combination when there are none. */
  public List<KernelCase> cases() {
    return cases(axes);
  }

  /** Every combination of {@code sweep} (this kernel's axes, possibly with fewer values), first axis slowest. */
  public List<KernelCase> cases(List<Axis> sweep) {
    List<Map<String, Long>> combos = new ArrayList<>();
    combos.add(new LinkedHashMap<>());
    for (Axis axis : sweep) {
      List<Map<String, Long>> next = new ArrayList<>();
      for (Map<String, Long> combo : combos) {
        for (long value : axis.values()) {
          Map<String, Long> extended = new LinkedHashMap<>(combo);
          extended.put(axis.name(), value);
          next.add(extended);
        }
      }
      combos = next;
    }
    return combos.stream().map(p -> new KernelCase(this, new TreeMap<>(p))).toList();
  }

  public boolean hasAxis(String axis) {
    return axes.stream().anyMatch(a -> a.name().equals(axis));
  }
}
