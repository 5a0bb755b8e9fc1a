package io.busload.coordinator;

import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Messages as an agent would send them, small but complete. */
public final class Fixtures {
  private Fixtures() {}

  public static DeviceInfo cpu(String host) {
    return new DeviceInfo(host + "/cpu", DeviceInfo.CPU, "Test CPU (CPU)", null, null, 4, 0, 8L << 30, 0, 0, 0,
        "Linux 6.1");
  }

  public static DeviceInfo gpu(String host, int index) {
    return new DeviceInfo(host + "/cuda:" + index, DeviceInfo.CUDA, "NVIDIA H100 80GB HBM3",
        "GPU-" + UUID.nameUUIDFromBytes((host + index).getBytes()), "9.0", 132, 50L << 20, 80L << 30,
        2_619_000_000L, 5120, 3.35e12, "13.0");
  }

  /**
   * A schedule as {@code POST /api/schedules} takes it: the stride suite on the hour (UTC) on every device of
   * {@code device}'s model.
   */
  public static String hourlySchedule(DeviceInfo device) {
    return "{\"name\":\"hourly\",\"cron\":\"0 * * * *\",\"timeZone\":\"UTC\",\"suite\":\"stride\","
        + "\"target\":{\"kind\":\"model\",\"value\":\"" + device.name() + "\"}}";
  }

  public static AgentHello hello(String agentId, DeviceInfo... devices) {
    return new AgentHello(Protocol.SCHEMA_VERSION, agentId, agentId + ".example", "0.1.0", "fatbin-abc",
        List.of(devices), Instant.now().truncatedTo(ChronoUnit.MILLIS));
  }

  public static Heartbeat heartbeat(String agentId, Heartbeat.DeviceState... states) {
    return new Heartbeat(Protocol.SCHEMA_VERSION, agentId, Instant.now(), List.of(states));
  }

  public static RunStatus status(String runId, String sweepId, String agentId, String deviceId, RunStatus.State state,
      int completed, int total) {
    return new RunStatus(Protocol.SCHEMA_VERSION, runId, sweepId, agentId, deviceId, state, completed, total,
        state == RunStatus.State.FAILED ? "kernel crashed" : null, Instant.now());
  }

  /** A measured result; {@code stride} varies the params, {@code valid} false makes it an invalid one. */
  public static KernelResult result(String sweepId, String runId, String agentId, DeviceInfo device, long stride,
      boolean valid, Instant measuredAt) {
    double median = 1.0e-4 * stride;
    long bytes = 8L << 20;
    return KernelResult.builder().id(UUID.randomUUID()).runId(runId).sweepId(sweepId).agentId(agentId)
        .agentVersion("0.1.0").fatbinHash("fatbin-abc").device(device).suite("stride")
        .kernel(stride == 0 ? "memcpy_d2d" : "stride_copy_fp32").params(Map.of("stride", stride, "elements", 1024))
        .valid(valid).mismatches(valid ? List.of() : List.of("index 7: expected 1.5, got 0.0"))
        .medianSeconds(median).minSeconds(median * 0.99).maxSeconds(median * 1.02).relativeSpread(0.03)
        .samples(List.of(median * 0.99, median, median * 1.02)).launchesPerSample(10).warmupLaunches(5)
        .bytesRead(bytes / 2).bytesWritten(bytes / 2).bytes(bytes).bandwidth(bytes / median)
        .method("10 launches per event pair, median of 3 samples")
        .measuredAt(measuredAt.truncatedTo(ChronoUnit.MICROS)).build();
  }

  /** {@code base} measured {@code factor} times as slow: a valid result, its median and bandwidth moved alike. */
  public static KernelResult slower(KernelResult base, double factor) {
    double median = base.medianSeconds() * factor;
    return base.toBuilder().valid(true).mismatches(List.of()).medianSeconds(median).bandwidth(base.bytes() / median)
        .build();
  }

  public static KernelResult withSchemaVersion(KernelResult r, int version) {
    return KernelResult.builder().schemaVersion(version).id(r.id()).runId(r.runId()).sweepId(r.sweepId())
        .agentId(r.agentId()).agentVersion(r.agentVersion()).fatbinHash(r.fatbinHash()).device(r.device())
        .suite(r.suite()).kernel(r.kernel()).params(r.params()).valid(r.valid()).mismatches(r.mismatches())
        .medianSeconds(r.medianSeconds()).minSeconds(r.minSeconds()).maxSeconds(r.maxSeconds())
        .relativeSpread(r.relativeSpread()).samples(r.samples()).launchesPerSample(r.launchesPerSample())
        .warmupLaunches(r.warmupLaunches()).bytesRead(r.bytesRead()).bytesWritten(r.bytesWritten()).bytes(r.bytes())
        .bandwidth(r.bandwidth()).method(r.method()).measuredAt(r.measuredAt()).build();
  }

  /** {@code result} as a sender whose clock said {@code measuredAt} would send it: the same id, another time. */
  public static KernelResult withMeasuredAt(KernelResult result, Instant measuredAt) {
    com.fasterxml.jackson.databind.node.ObjectNode tree = io.busload.protocol.JsonCodec.MAPPER.valueToTree(result);
    tree.put("measuredAt", measuredAt.toString());
    return io.busload.protocol.JsonCodec.MAPPER.convertValue(tree, KernelResult.class);
  }
}
