package io.busload.kernels;

import java.util.List;

/** A family whose name, catalog entries and suites are fixed when it is made; subclasses only build programs. */
public abstract class AbstractFamily implements Family {
  /**
   * Which suites run a family: its own, and {@code coalescing} too unless it tests the fleet or the checks rather
   * than measures memory.
   */
  protected enum Suites {
    OWN_AND_COALESCING,
    OWN_ONLY
  }

  private final String name;
  private final List<KernelSpec> kernels;
  private final Suites suites;

  protected AbstractFamily(String name, List<KernelSpec> kernels) {
    this(name, kernels, Suites.OWN_AND_COALESCING);
  }

  protected AbstractFamily(String name, List<KernelSpec> kernels, Suites suites) {
    this.name = name;
    this.kernels = List.copyOf(kernels);
    this.suites = suites;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final List<KernelSpec> kernels() {
    return kernels;
  }

  @Override
  public final boolean inCoalescingSuite() {
    return suites == Suites.OWN_AND_COALESCING;
  }
}
