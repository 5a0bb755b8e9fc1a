package io.busload.agent.measure;

import io.busload.kernels.Catalog;
import io.busload.kernels.KernelCase;
import io.busload.kernels.SuiteOptions;
import java.util.List;

/**
 * A suite resolved for one device before anything runs: the cases in order and the output elements.
 * Unknown suites and bad options fail here, with the catalog's messages.
 */
public record Plan(String suite, List<KernelCase> cases, long elements) {
  public Plan {
    cases = List.copyOf(cases);
  }

  public static Plan resolve(String suite, SuiteOptions options, long deviceDefaultElements) {
    return new Plan(suite, Catalog.cases(suite), options.elementsOr(deviceDefaultElements));
  }
}
