package io.busload.kernels;

import java.util.List;

/**
 * A family whose kernels are the rows of one table, one {@link Kernel} each, sized by one number and swept over
 * no axes. The table is the family's catalog as data; this class turns it into {@link KernelSpec}s and turns a
 * case back into its row (every such family repeated this code).
 *
 * @param <V> the family's row type: a record when a row is only data, an enum when each row behaves differently
 * @param <C> the program of one row at one size
 */
public abstract class VariantFamily<V extends VariantFamily.Kernel, C extends Program> extends AbstractFamily {
  /** One kernel of a family: the name results carry and the {@code extern "C"} function it launches. */
  public interface Kernel {
    /** Catalog and result name ({@code conv2d-naive}). */
    String kernel();

    /** The function in the fatbin; null for a kernel that is a library call (cuBLAS). */
    String entryPoint();
  }

  private final List<V> variants;

  /** {@code variants} in the order a suite runs them; each is one kernel without axes. */
  protected VariantFamily(String name, List<V> variants) {
    this(name, variants, Suites.OWN_AND_COALESCING);
  }

  protected VariantFamily(String name, List<V> variants, Suites suites) {
    super(name, variants.stream().map(v -> new KernelSpec(v.kernel(), name, List.of())).toList(), suites);
    this.variants = List.copyOf(variants);
  }

  /** The table's rows, in suite order. */
  public final List<V> variants() {
    return variants;
  }

  @Override
  public final C program(KernelCase kernelCase, long size) {
    return program(variant(kernelCase), size);
  }

  /** The row whose kernel is the case's; {@code kernel: ... is not a kernel of ...} otherwise. */
  public final V variant(KernelCase kernelCase) {
    String kernel = kernelCase.spec().name();
    return variants.stream().filter(v -> v.kernel().equals(kernel)).findFirst().orElseThrow(() ->
        new IllegalArgumentException("kernel: '" + kernel + "' is not a kernel of " + name()));
  }

  /**
   * The program of one row at one size; throws {@link IllegalArgumentException} starting with {@code "size: "}
   * for a size the family refuses.
   */
  protected abstract C program(V variant, long size);
}
