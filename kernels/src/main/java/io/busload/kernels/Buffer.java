package io.busload.kernels;

import java.util.Objects;

/**
 * One device buffer of a {@link Program}: allocated by the backend before the first step, freed after the case.
 *
 * @param name what the kernel calls it ({@code in}, {@code out}), for messages and mismatches
 * @param elements elements of {@code type}; bytes are {@code elements * type.bytes()}
 */
public record Buffer(String name, ElementType type, long elements, Role role) {

  /** What the backend does with a buffer before the checked launch. */
  public enum Role {
    /** Filled by {@link Program#fill} and uploaded; never poisoned. */
    INPUT,
    /** Poisoned (every byte 0xFF, see {@link Poison#BYTE}) before the checked launch, then checked. */
    OUTPUT,
    /**
     * Filled and uploaded like an input, never poisoned, and read back for the check like an output: for
     * kernels that update in place (the particle step). Found on an H200: as an INPUT its update was never
     * read back, so the check compared the host's own input with the reference and failed.
     */
    INOUT,
    /** Work space the steps use (partial sums, ...): neither filled nor poisoned. */
    SCRATCH
  }

  public Buffer {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(role, "role");
    if (elements <= 0) {
      throw new IllegalArgumentException(name + ": a buffer needs at least one element, got " + elements);
    }
    Math.multiplyExact(elements, (long) type.bytes()); // overflow is a caller's bug, not a size
  }

  public long bytes() {
    return elements * type.bytes();
  }
}
