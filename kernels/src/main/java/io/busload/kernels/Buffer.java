package io.busload.kernels;

import java.util.Objects;

/**
 * One device buffer of a {@link Program}: allocated by the backend before the first step, freed after the case.
 *
 * @param name what the kernel calls it ({@code in}, {@code out}), for messages and mismatches
 * @param elements elements of {@code type}; bytes are {@code elements * type.bytes()}
 * @param memory where it lives: device memory unless a link is what is measured (the interconnect suite)
 */
public record Buffer(String name, ElementType type, long elements, Role role, Memory memory) {

  /**
   * Where a buffer lives. The interconnect suite moves bytes between host and device and between GPUs, so
   * its buffers sit on either side of the link; every other family keeps everything in {@link #DEVICE} memory.
   * A CPU device has one kind of memory and keeps every buffer off-heap.
   */
  public enum Memory {
    /** Memory of the device that runs the program ({@code cuMemAlloc}). */
    DEVICE,
    /** Memory of the other GPU of a pair, {@link Program#peerDevice()}, reached through peer access. */
    PEER,
    /** Page-locked host memory ({@code cuMemHostAlloc}), which the copy engines reach directly. */
    PINNED,
    /** Page-locked host memory mapped into the device's address space: kernels load and store it (zero-copy). */
    MAPPED,
    /** Ordinary host memory: the driver stages each copy through its own pinned buffers. */
    PAGEABLE;

    /** Whether the host holds it (so the host reads and writes it in place, without a copy). */
    public boolean onHost() {
      return this == PINNED || this == MAPPED || this == PAGEABLE;
    }
  }

  /** A buffer in the device's own memory, as every family but the interconnect suite's uses. */
  public Buffer(String name, ElementType type, long elements, Role role) {
    this(name, type, elements, role, Memory.DEVICE);
  }

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
    Objects.requireNonNull(memory, "memory");
    if (elements <= 0) {
      throw new IllegalArgumentException(name + ": a buffer needs at least one element, got " + elements);
    }
    Math.multiplyExact(elements, (long) type.bytes()); // overflow is a caller's bug, not a size
  }

  public long bytes() {
    return elements * type.bytes();
  }
}
