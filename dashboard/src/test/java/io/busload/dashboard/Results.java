package io.busload.dashboard;

import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Kernel results as the coordinator stores and publishes them, for tests. */
public final class Results {
  public static final DeviceInfo CPU = new DeviceInfo("host-a/cpu", DeviceInfo.CPU, "CPU: Test (2 threads)", null,
      null, 2, 0, 1L << 30, 0, 0, 0, "6.1");
  public static final DeviceInfo GPU = new DeviceInfo("host-b/cuda:0", DeviceInfo.CUDA, "NVIDIA H200", "GPU-1",
      "9.0", 132, 60L << 20, 141L << 30, 3_201_000_000L, 6144, 4.9e12, "13.0");

  private Results() {}

  /** A valid stride result; {@code bandwidth} in bytes/s. */
  public static KernelResult stride(String sweepId, DeviceInfo device, int stride, double bandwidth, Instant at) {
    return result(sweepId, device, "stride-copy-fp32", Map.of("stride", stride, "elements", 1L << 24), true,
        bandwidth, at);
  }

  public static KernelResult result(String sweepId, DeviceInfo device, String kernel, Map<String, Object> params,
      boolean valid, double bandwidth, Instant at) {
    long bytes = 2L * 4 * (1L << 24);
    return KernelResult.builder().id(UUID.randomUUID()).runId("run-" + device.id()).sweepId(sweepId)
        .agentId("agent-a").agentVersion("0.1.0").fatbinHash("fatbin").device(device).suite("stride").kernel(kernel)
        .params(params).valid(valid).mismatches(valid ? List.of() : List.of("out[3]: expected 1.0, got 2.0"))
        .medianSeconds(bytes / bandwidth).minSeconds(bytes / bandwidth).maxSeconds(bytes / bandwidth)
        .relativeSpread(0.001).samples(List.of(bytes / bandwidth)).launchesPerSample(10).warmupLaunches(3)
        .bytesRead(bytes / 2).bytesWritten(bytes / 2).bytes(bytes).bandwidth(bandwidth).method("median of 1 sample")
        .measuredAt(at).build();
  }
}
