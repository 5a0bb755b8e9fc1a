package io.busload.agent;

import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Energy;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.Sampling;
import io.busload.protocol.StopReason;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Fixed results for golden files: every field known, nothing measured. */
final class Fixtures {
  static final DeviceInfo H100 = new DeviceInfo("gpu1/cuda:0", "cuda", "NVIDIA H100 80GB HBM3",
      "GPU-12345678-9abc-def0-1234-56789abcdef0", "9.0", 132, 52428800, 85520809984L, 2619000000L, 5120,
      3.35232e12, "13.0");

  private Fixtures() {}

  static List<KernelResult> results() {
    return List.of(
        result("00000000-0000-0000-0000-000000000001", "memcpy-d2d", Map.of("size", 16777216L), true,
            List.of(), List.of(5.0e-5, 5.1e-5, 5.2e-5)).withSampling(ResultStatus.MEASURED, new Sampling(2, 0, 1,
                StopReason.SPREAD_SETTLED, new Clocks(Clocks.Reading.READ, "NVML, driver 580.82.07", 1980, 1980, 2619,
                    2619, 0x4L, 1, false), CacheResidency.of(134217728, H100.l2Bytes(), false)))
            .withEnergy(new Energy(33.18, 316.2, 76.2, 1.049, 2000, 10)),
        result("00000000-0000-0000-0000-000000000002", "stride-copy-fp32", Map.of("size", 16777216L, "stride", 1L),
            true, List.of(), List.of(6.0e-5, 6.2e-5, 6.4e-5)),
        result("00000000-0000-0000-0000-000000000003", "stride-copy-fp32", Map.of("size", 16777216L, "stride", 2L),
            false, List.of("out[7]: expected 1.5, got 0.25", "1 of 16777216 elements differ"), List.of()));
  }

  static KernelResult result(String id, String kernel, Map<String, Object> params, boolean valid,
      List<String> mismatches, List<Double> samples) {
    double median = samples.isEmpty() ? 0 : samples.get(1);
    return KernelResult.builder().id(UUID.fromString(id)).runId("run-1").sweepId("sweep-1").agentId("gpu1")
        .agentVersion("0.1.0").fatbinHash("abc123").device(H100).suite("stride").kernel(kernel).params(params)
        .valid(valid).mismatches(mismatches).medianSeconds(median)
        .minSeconds(samples.isEmpty() ? 0 : samples.get(0)).maxSeconds(samples.isEmpty() ? 0 : samples.get(2))
        .relativeSpread(samples.isEmpty() ? 0 : (samples.get(2) - samples.get(0)) / median).samples(samples)
        .launchesPerSample(samples.isEmpty() ? 0 : 20).warmupLaunches(samples.isEmpty() ? 0 : 42)
        .bytesRead(67108864).bytesWritten(67108864).bytes(134217728).bandwidth(valid ? 134217728 / median : null)
        .method(valid ? "warm-up 42 launches; 3 samples of 20 launches between one CUDA event pair; median, \"quoted\"" : "no timing: the output check or a device call failed")
        .measuredAt(Instant.parse("2026-11-22T01:00:00Z")).build();
  }
}
