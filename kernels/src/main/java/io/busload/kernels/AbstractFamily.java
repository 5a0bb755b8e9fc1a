package io.busload.kernels;

import java.util.List;

/** A family whose name and catalog entries are fixed when it is made; subclasses only build programs. */
public abstract class AbstractFamily implements Family {
  private final String name;
  private final List<KernelSpec> kernels;

  protected AbstractFamily(String name, List<KernelSpec> kernels) {
    this.name = name;
    this.kernels = List.copyOf(kernels);
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final List<KernelSpec> kernels() {
    return kernels;
  }
}
