package io.busload.dashboard.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.dashboard.Results;
import io.busload.protocol.KernelResult;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunDetailTest {

  @Test
  void box_fiveSamples_minQuartilesMedianMaxInGigabytesPerSecond() {
    KernelResult base = Results.stride("s", Results.GPU, 1, 1e12, Instant.EPOCH);
    // bytes = 2^27: samples chosen so bandwidths are 1000, 500, 250, 200, 100 GB/s (bytes / seconds)
    double b = base.bytes();
    KernelResult r = new KernelResult(base.schemaVersion(), base.id(), base.runId(), base.sweepId(), base.agentId(),
        base.agentVersion(), base.fatbinHash(), base.device(), base.suite(), base.kernel(), base.params(), true,
        List.of(), b / 250e9, b / 1000e9, b / 100e9, 1, List.of(b / 250e9, b / 1000e9, b / 100e9, b / 500e9, b / 200e9),
        1, 1, base.bytesRead(), base.bytesWritten(), base.bytes(), 250e9, "m", Instant.EPOCH);

    assertThat(RunDetail.box(r)).containsExactly(100, 200, 250, 500, 1000);
  }

  @Test
  void option_invalidResult_leftOutOfTheBoxPlot() {
    KernelResult invalid = Results.result("s", Results.GPU, "offset-copy-fp32", Map.of("offset", 1), false, 1e12,
        Instant.EPOCH);

    assertThat(RunDetail.option("r", List.of(invalid)).at("/series/0/data")).isEmpty();
  }
}
