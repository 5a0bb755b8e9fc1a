package io.busload.simulator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.kernels.Catalog;
import io.busload.kernels.KernelCase;
import io.busload.kernels.SuiteOptions;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.RunRequest;
import io.busload.protocol.StopReason;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VirtualAgentTest {
  @TempDir
  Path outboxes;

  @Test
  void result_filledAsTheAgentFillsIt_statusAndSamplingSurviveTheWire() {
    VirtualAgent agent = new VirtualAgent(7, 2, outboxes, () -> 1, new Tally(), v -> { throw new AssertionError("no link needed"); });
    String deviceId = agent.devices().get(1).id();
    RunRequest request = new RunRequest(Protocol.SCHEMA_VERSION, "run-1", "sweep-1", deviceId, "offset",
        Map.of("offset", "0"));
    List<KernelCase> cases = Catalog.cases("offset", SuiteOptions.parse(Map.of("offset", "0")));

    for (KernelCase kernelCase : cases) {
      KernelResult result = agent.result(request, kernelCase);

      assertThat(result.status()).isEqualTo(ResultStatus.MEASURED);
      assertThat(result.valid()).isTrue();
      assertThat(result.sampling()).isNotNull();
      assertThat(result.sampling().timedSamples()).isEqualTo(result.samples().size());
      assertThat(result.sampling().heldSamples()).isEqualTo(result.samples().size());
      assertThat(result.sampling().stopReason()).isEqualTo(StopReason.SPREAD_SETTLED);
      // No clocks are made up for a device that has none.
      assertThat(result.sampling().clocks().reading()).isEqualTo(Clocks.Reading.NOT_READ);
      assertThat(result.sampling().clocks().smMinMHz()).isNull();
      CacheResidency cache = result.sampling().cache();
      assertThat(cache.l2Bytes()).isEqualTo(result.device().l2Bytes());
      assertThat(cache.workingSetBytes()).isEqualTo(result.bytes());
      assertThat(cache.residency()).isEqualTo(result.bytes() >= CacheResidency.FACTOR * result.device().l2Bytes()
          ? CacheResidency.Residency.ABOVE_L2 : CacheResidency.Residency.CACHE_RESIDENT);

      KernelResult decoded = JsonCodec.fromJson(JsonCodec.toJson(result), KernelResult.class);
      assertThat(decoded.status()).isEqualTo(ResultStatus.MEASURED);
      assertThat(decoded.sampling()).isEqualTo(result.sampling());
    }
  }
}
