package io.busload.kernels;

import java.util.List;

/**
 * One kernel family = one {@code src/main/cuda/<family>.cu} + one Java class implementing this, registered in
 * {@code META-INF/services/io.busload.kernels.Family} (docs/design/kernel-programs.md). The suite named after
 * the family runs its kernels; suite {@code coalescing} runs every family.
 */
public interface Family {
  /** Suite name and {@link KernelSpec#family()} of its kernels, lowercase ({@code transpose}). */
  String name();

  /**
   * Whether the {@code coalescing} suite (every measuring family) includes this family; false for families that
   * test the fleet rather than measure memory ({@code faults}), which run in their own suite only.
   */
  default boolean inCoalescingSuite() {
    return true;
  }

  /**
   * The cases one catalog case stands for on this device: itself, unless its parameters depend on the host (the
   * peer axis's "every other GPU" becomes one case per other GPU). Called before {@link #defaultSize}.
   */
  default List<KernelCase> casesOn(KernelCase kernelCase, DeviceLimits limits) {
    return List.of(kernelCase);
  }

  /** Its catalog entries, in the order a suite runs them. */
  List<KernelSpec> kernels();

  /**
   * The size a case runs at when the options do not say (meaning is the family's, documented on its class):
   * a working set well above L2 on GPUs and within {@link DeviceLimits#defaultBudgetBytes()}, seconds on CPUs.
   */
  long defaultSize(KernelCase kernelCase, DeviceLimits limits);

  /**
   * The program of one case at one size. Throws {@link IllegalArgumentException} whose message starts with
   * the offending field ({@code "size: ..."}, {@code "stride: ..."}) for an invalid combination.
   */
  Program program(KernelCase kernelCase, long size);
}
