package io.busload.dashboard.links;

import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Topology;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Interconnect results as test data (never measurements), for LinksTest and the browser test. */
public final class LinkResults {
  private LinkResults() {}

  /**
   * Test data, not measurements: three GPUs of one host, 0 and 1 joined, 2 without peer access. Their model is one
   * no other browser-test device has, so that a test matching devices by model (Schedules) sees none of these.
   */
  public static DeviceInfo gpu(String host, int ordinal) {
    Topology topology = new Topology(5, 16, 1, 16, ordinal < 2 ? 0 : 1, List.of(), "test data");
    return new DeviceInfo(host + "/cuda:" + ordinal, DeviceInfo.CUDA, "NVIDIA GH200 144GB HBM3e", "GPU-" + ordinal,
        "9.0", 132, 60L << 20, 141L << 30, 3_201_000_000L, 6144, 4.9e12, "580.65", topology);
  }

  public static KernelResult link(DeviceInfo device, String kernel, Map<String, Object> params, Double bandwidth,
      String skipped) {
    boolean valid = skipped == null;
    long bytes = ((Number) params.get("bytes")).longValue();
    double median = valid ? bytes / bandwidth : 0;
    return KernelResult.builder().id(UUID.randomUUID()).runId("run-" + device.id()).sweepId("sweep-1")
        .agentId("agent-m").agentVersion("0.1.0").fatbinHash("fatbin-1").device(device).suite(Links.SUITE)
        .kernel(kernel).params(params).valid(valid).mismatches(valid ? List.of() : List.of(skipped))
        .medianSeconds(median).minSeconds(median).maxSeconds(median).relativeSpread(0)
        .samples(valid ? List.of(median) : List.of()).launchesPerSample(1).warmupLaunches(1).bytesRead(bytes)
        .bytesWritten(0).bytes(bytes).bandwidth(valid ? bandwidth : null).method(valid ? "median" : skipped)
        .measuredAt(Instant.parse("2026-11-24T12:00:00Z")).build();
  }

  public static List<KernelResult> matrix(String host) {
    List<KernelResult> results = new ArrayList<>();
    for (int row = 0; row < 3; row++) {
      for (int column = 0; column < 3; column++) {
        if (row == column) {
          continue;
        }
        Map<String, Object> params = Map.of("bytes", 268435456, "peer", column, "size", 268435456);
        boolean access = row < 2 && column < 2;
        results.add(link(gpu(host, row), "p2p-ce-write", params, access ? 120e9 + row * 1e9 : null,
            access ? null : "unavailable: no peer access between cuda:" + row + " and cuda:" + column));
      }
    }
    return results;
  }

}
