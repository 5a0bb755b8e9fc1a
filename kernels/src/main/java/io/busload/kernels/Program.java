package io.busload.kernels;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;

/**
 * Everything needed to run, model and check one {@link KernelCase} at one size: built by
 * {@link Family#program} before anything is allocated, so a bad size or parameter fails with a message naming
 * the field and a plan can be checked against free memory. Backends are generic over it
 * (docs/design/kernel-programs.md).
 */
public interface Program {
  /** Every device buffer, indexed by position; {@link Arg.Buf} and {@link Step} refer to these indexes. */
  List<Buffer> buffers();

  /**
   * Fills elements {@code [first, first + chunk.byteSize() / type.bytes())} of INPUT buffer {@code buffer} into
   * {@code chunk} (native byte order, element 0 of the chunk is element {@code first}). Must be a pure function
   * of (seed, buffer, index): backends fill in chunks, in parallel, in any order. Seeded random, never zeros.
   */
  void fill(int buffer, long first, MemorySegment chunk);

  /**
   * How a GPU may fill INPUT buffer {@code buffer} itself instead of {@link #fill} on the host: the same values,
   * made by the fatbin's {@link DeviceFill#ENTRY_POINT}. Empty (the default) where only the host fills it.
   */
  default java.util.Optional<DeviceFill> deviceFill(int buffer) {
    return java.util.Optional.empty();
  }

  /** What one timed launch does, in order; usually one {@link Step.Kernel}. */
  List<Step> steps();

  /** Useful bytes read and written (and FLOPs) by one launch (all steps). */
  Traffic traffic();

  /**
   * Bytes the method itself must move besides {@link #traffic()}, for example a reduction's partial sums
   * written by its first kernel and read by its second. Bandwidth figures leave them out (they are the method's
   * cost, not the job); the counter pass adds them to what DRAM is expected to move. None by default.
   */
  default Traffic overhead() {
    return new Traffic(0, 0, 0);
  }

  /** Expected sectors per request of each global load and store, from {@link WarpSimulator}; empty if not ours. */
  List<Coalescing> coalescing();

  /**
   * The CPU reference: {@code host.get(i)} holds buffer {@code i} after one launch (inputs as filled, outputs
   * and scratch as the device left them; outputs were poisoned before). Tolerance fit for the type.
   */
  Check check(List<MemorySegment> host);

  /**
   * The check again after {@code launches} launches in all (the checked one, warm-up, calibration and the timed
   * samples): a kernel right on its first launch and wrong later (state left by a launch, a race that shows under
   * load) fails here. The same as {@link #check} for programs whose output depends only on their
   * inputs; a program that updates in place says what {@code launches} launches leave.
   */
  default Check checkAfter(List<MemorySegment> host, long launches) {
    return check(host);
  }

  /** One launch in Java on host buffers (same indexes as {@link #buffers()}), for the CPU backend. */
  void runOnCpu(List<MemorySegment> buffers, Parallel parallel);

  /**
   * What a native harness that does not run {@link #fill} must put in INPUT buffer {@code buffer} so the steps
   * stay in bounds (deploy/gpu/crosscheck.cu): {@code random} (any valid values of the type, the default),
   * {@code iota} (element i holds i) or {@code permutation} (a random permutation of 0..elements-1).
   */
  default String fillHint(int buffer) {
    return "random";
  }

  /**
   * The host's device index ({@code cuda:N}) of the other GPU that {@link Buffer.Memory#PEER} buffers live on;
   * -1 when the program uses none (every family but the interconnect suite's peer cases).
   */
  default int peerDevice() {
    return -1;
  }

  /**
   * How many directions of a link the counted bytes cross at once: 2 for a copy both ways, whose bandwidth is set
   * against both directions' rate; 1 otherwise.
   */
  default int linkDirections() {
    return 1;
  }

  /**
   * How the bytes of {@link #traffic()} are counted, for the result's method: useful bytes read plus written by
   * default; a link counts the bytes that cross it.
   */
  default String bytesCounted() {
    return "useful read + written";
  }

  /** Bytes of every buffer together: what the device must have free. */
  default long deviceBytes() {
    return buffers().stream().mapToLong(Buffer::bytes).sum();
  }

  /**
   * Why this case cannot run on this device though its inputs are valid (a skip, never a failure), for
   * example not enough free memory for a default size. Empty when it can run.
   */
  default Optional<String> skipReason(DeviceLimits limits) {
    long needed = deviceBytes();
    if (needed > limits.freeBytes()) {
      return Optional.of("size: needs " + Sizes.bytes(needed) + ", " + Sizes.bytes(limits.freeBytes()) + " free");
    }
    return Optional.empty();
  }
}
