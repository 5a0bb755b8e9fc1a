package io.busload.kernels;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One entry of the catalog: everything a backend needs to run a kernel and everything a reader needs to
 * judge its numbers.
 *
 * @param name stable kernel name, as results and the dashboard name it ({@code stride-copy-fp32})
 * @param family the {@code src/main/cuda/<family>.cu} it lives in, or {@code memcpy} for the ceiling
 * @param kind a fatbin kernel or the driver's device-to-device copy
 * @param entryPoint the {@code extern "C"} function in the fatbin; null for {@link Kind#MEMCPY}
 * @param axes parameter axes swept in order; every combination is one measured result
 * @param args the CUDA entry point's arguments, in order
 * @param blockSize threads per block
 * @param elementsPerThread output elements each thread moves (must match the CUDA source)
 * @param pattern sizes, traffic, coalescing and reference
 */
public record KernelSpec(
    String name, String family, Kind kind, String entryPoint, List<Axis> axes, List<Arg> args, int blockSize,
    int elementsPerThread, Pattern pattern) {

  public enum Kind { KERNEL, MEMCPY, PROGRAM }

  /** An argument of a CUDA entry point. */
  public record Arg(ArgKind kind, String param) {
    public static final Arg INPUT = new Arg(ArgKind.INPUT, null);
    public static final Arg OUTPUT = new Arg(ArgKind.OUTPUT, null);
    /** Output elements, as a 64-bit unsigned integer. */
    public static final Arg ELEMENTS = new Arg(ArgKind.ELEMENTS, null);

    /** A parameter axis value, as a 64-bit unsigned integer. */
    public static Arg param(String name) {
      return new Arg(ArgKind.PARAM, name);
    }
  }

  public enum ArgKind { INPUT, OUTPUT, ELEMENTS, PARAM }

  /** A kernel of a {@link Family}: everything else (geometry, traffic, reference) is in its {@link Program}. */
  public KernelSpec(String name, String family, List<Axis> axes) {
    this(name, family, Kind.PROGRAM, null, axes, List.of(), 0, 0, null);
  }

  public KernelSpec {
    Objects.requireNonNull(name, "name");
    axes = List.copyOf(axes);
    args = List.copyOf(args);
    if (kind == Kind.KERNEL && entryPoint == null) {
      throw new IllegalArgumentException(name + ": a kernel needs an entry point");
    }
  }

  /** Every combination of the axes, first axis slowest; one empty combination when there are none. */
  public List<KernelCase> cases() {
    List<Map<String, Long>> combos = new ArrayList<>();
    combos.add(new LinkedHashMap<>());
    for (Axis axis : axes) {
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

  /** Geometry of one launch over {@code outputElements}; empty for the driver's copy. */
  public Optional<Launch> launch(long outputElements) {
    return kind == Kind.MEMCPY ? Optional.empty() : Optional.of(Launch.forElements(outputElements, blockSize, elementsPerThread));
  }
}
