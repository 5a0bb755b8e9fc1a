package io.busload.agent.crosscheck;

import io.busload.agent.measure.Plan;
import io.busload.kernels.Coalescing;
import io.busload.kernels.Program;
import io.busload.kernels.Step;
import java.util.ArrayList;
import java.util.List;

/**
 * One kernel launch of a plan with the counters ncu would read if the coalescing model were exact: one request per
 * warp of the case's {@code n} elements, and the model's mean sectors per load and per store request. The profile
 * tests write their ncu input from these, then bend some of them.
 */
record ModelledLaunch(Plan.Planned planned, Step.Kernel kernel, double requests, double loadSectors,
    double storeSectors) {

  /** Every kernel step of every case the plan runs, in order; a skipped case launches nothing. */
  static List<ModelledLaunch> of(Plan plan, long n) {
    List<ModelledLaunch> launches = new ArrayList<>();
    for (Plan.Planned planned : plan.cases()) {
      Program program = planned.program();
      if (program == null) {
        continue;
      }
      List<Coalescing> model = program.coalescing();
      double ld = model.stream().filter(c -> !c.store()).mapToInt(Coalescing::sectorsPerRequest).average().orElse(0);
      double st = model.stream().filter(Coalescing::store).mapToInt(Coalescing::sectorsPerRequest).average().orElse(0);
      double requests = n / 32.0;
      for (Step step : program.steps()) {
        if (step instanceof Step.Kernel k) {
          launches.add(new ModelledLaunch(planned, k, requests, requests * ld, requests * st));
        }
      }
    }
    return launches;
  }

  Program program() {
    return planned.program();
  }
}
