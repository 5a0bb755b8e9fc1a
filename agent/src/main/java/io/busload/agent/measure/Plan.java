package io.busload.agent.measure;

import io.busload.kernels.Catalog;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.KernelCase;
import io.busload.kernels.Program;
import io.busload.kernels.Sizes;
import io.busload.kernels.SuiteOptions;
import io.busload.protocol.CacheResidency;
import java.util.ArrayList;
import java.util.List;

/**
 * A suite resolved for one device before anything is allocated: every case with its size and program, or the
 * reason it is skipped. Unknown suites, bad options, out-of-range parameters and an explicit size that does not
 * fit the device's free memory fail here, with a message starting with the field.
 */
public record Plan(String suite, List<Planned> cases) {
  public Plan {
    cases = List.copyOf(cases);
  }

  /**
   * One case: its program at its size, or why it is skipped (a default size that does not fit this device).
   *
   * @param program null when skipped
   * @param skipReason null when it runs
   * @param cache the case's working set against the device's L2; null when skipped
   */
  public record Planned(KernelCase kernelCase, long size, Program program, String skipReason, CacheResidency cache) {}

  /** The cases from {@code first} on (0-based), as a fresh process continues a run after a lost device. */
  public Plan from(int first) {
    if (first < 0 || first > cases.size()) {
      throw new IllegalArgumentException("from-case: must be 0.." + cases.size() + ", got " + first);
    }
    return new Plan(suite, cases.subList(first, cases.size()));
  }

  public static Plan resolve(String suite, SuiteOptions options, DeviceLimits limits, String deviceId) {
    List<Planned> planned = new ArrayList<>();
    // A case may stand for several on this host (the peer axis's "every other GPU").
    List<KernelCase> cases = Catalog.cases(suite, options).stream()
        .flatMap(c -> Catalog.familyOf(c).casesOn(c, limits).stream()).toList();
    // One explicit size means something different in each family (elements, side, particles): in a suite of
    // several families a size one family cannot take skips that family's cases with the reason
    // ("invalid combinations are skipped with a reason, not failed"); in a one-family suite it is an error.
    boolean severalFamilies = cases.stream().map(c -> Catalog.familyOf(c).name()).distinct().count() > 2;
    for (KernelCase kernelCase : cases) {
      var family = Catalog.familyOf(kernelCase);
      long size = options.size().orElseGet(() -> family.defaultSize(kernelCase, limits));
      Program program;
      try {
        program = family.program(kernelCase, size);
      } catch (IllegalArgumentException e) {
        if (!severalFamilies || options.size().isEmpty()) {
          throw e;
        }
        planned.add(new Planned(kernelCase, size, null, e.getMessage() + " (the size applies to every family of suite "
            + suite + ")", null));
        continue;
      }
      var skip = program.skipReason(limits);
      if (skip.isPresent() && options.size().isPresent() && program.deviceBytes() > limits.freeBytes()
          && !severalFamilies) {
        throw new IllegalArgumentException(SuiteOptions.SIZE + ": " + kernelCase + " at size " + size + " needs "
            + Sizes.bytes(program.deviceBytes()) + ", only " + Sizes.bytes(limits.freeBytes()) + " free on " + deviceId);
      }
      // Every buffer is what L2 could hold between launches; under four L2s the bandwidth may be the
      // cache's, so the result is flagged (or labelled a study when the user asked for one), never silently reported.
      planned.add(skip.isPresent() ? new Planned(kernelCase, size, null, skip.get(), null)
          : new Planned(kernelCase, size, program, null,
              CacheResidency.of(program.deviceBytes(), limits.l2Bytes(), options.cacheStudy())));
    }
    return new Plan(suite, planned);
  }
}
