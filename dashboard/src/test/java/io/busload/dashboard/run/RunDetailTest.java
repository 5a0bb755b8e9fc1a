package io.busload.dashboard.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.dashboard.Results;
import io.busload.protocol.Counters;
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
    KernelResult r = KernelResult.builder().schemaVersion(base.schemaVersion()).id(base.id()).runId(base.runId())
        .sweepId(base.sweepId()).agentId(base.agentId()).agentVersion(base.agentVersion())
        .fatbinHash(base.fatbinHash()).device(base.device()).suite(base.suite()).kernel(base.kernel())
        .params(base.params()).valid(true).mismatches(List.of()).medianSeconds(b / 250e9).minSeconds(b / 1000e9)
        .maxSeconds(b / 100e9).relativeSpread(1)
        .samples(List.of(b / 250e9, b / 1000e9, b / 100e9, b / 500e9, b / 200e9)).launchesPerSample(1)
        .warmupLaunches(1).bytesRead(base.bytesRead()).bytesWritten(base.bytesWritten()).bytes(base.bytes())
        .bandwidth(250e9).method("m").measuredAt(Instant.EPOCH).build();

    assertThat(RunDetail.box(r)).containsExactly(100, 200, 250, 500, 1000);
  }

  @Test
  void option_invalidResult_leftOutOfTheBoxPlot() {
    KernelResult invalid = Results.result("s", Results.GPU, "offset-copy-fp32", Map.of("offset", 1), false, 1e12,
        Instant.EPOCH);

    assertThat(RunDetail.option("r", List.of(invalid)).at("/series/0/data")).isEmpty();
  }

  @Test
  void fingerprint_pushedOrFleetResult_saysWhereItCameFrom() {
    KernelResult fleet = Results.stride("s", Results.GPU, 1, 1e12, Instant.EPOCH);
    KernelResult pushed = fleet.withOrigin(new io.busload.protocol.Origin(io.busload.protocol.Origin.PUSHED, "p-1",
        "ci", "lab-gpu-7", "stride.json", "10.0.0.7", Instant.parse("2026-11-24T10:00:00Z")));

    assertThat(RunDetail.fingerprint(fleet)).containsEntry("origin", "fleet agent, over the event bus");
    assertThat(RunDetail.fingerprint(pushed)).containsEntry("origin",
        "pushed from lab-gpu-7 (stride.json) with token ci, at 2026-11-24T10:00:00Z (push p-1)");
  }

  @Test
  void timingClocksCache_timedOnAThrottlingGpuUnderL2_shownFromTheTypedFields() {
    KernelResult r = Results.stride("s", Results.GPU, 1, 1e12, Instant.EPOCH).withSampling(
        io.busload.protocol.ResultStatus.MEASURED, new io.busload.protocol.Sampling(7, 2, 1,
            io.busload.protocol.StopReason.TIME_CAP, new io.busload.protocol.Clocks(
                io.busload.protocol.Clocks.Reading.READ, "NVML", 1755, 1980, 2619, 2619, 0x44L, 3, true),
            io.busload.protocol.CacheResidency.of(8L << 20, 50L << 20, false)));

    assertThat(RunDetail.timing(r)).isEqualTo("warm-up " + r.warmupLaunches() + " launches; 10 samples x "
        + r.launchesPerSample() + " launches: 7 held, 2 unheld, 1 re-timed after a hold timed out; stopped: time cap");
    assertThat(RunDetail.clocks(r)).isEqualTo("TOO FEW CLEAN SAMPLES; sm 1755\u20131980 MHz, mem 2619 MHz; throttle"
        + " reasons 0x44 (sw power cap, hw thermal slowdown); 3 throttled samples dropped");
    assertThat(RunDetail.cache(r)).isEqualTo("CACHE-RESIDENT, under 4x L2 (8.0 MiB working set, L2 50.0 MiB)");
  }

  @Test
  void timingClocksCache_noNvmlOrNotReportedByAgent_saySoWithoutFigures() {
    KernelResult old = Results.stride("s", Results.GPU, 1, 1e12, Instant.EPOCH);
    KernelResult notRead = old.withSampling(io.busload.protocol.ResultStatus.MEASURED,
        new io.busload.protocol.Sampling(10, 0, 0, io.busload.protocol.StopReason.SPREAD_SETTLED,
            io.busload.protocol.Clocks.notRead("cannot load libnvidia-ml.so.1"),
            io.busload.protocol.CacheResidency.of(1L << 30, 50L << 20, false)));

    assertThat(RunDetail.timing(old)).isEqualTo("not recorded (its agent did not report it)");
    assertThat(RunDetail.clocks(old)).isEqualTo("not recorded (its agent did not report it)");
    assertThat(RunDetail.clocks(notRead)).isEqualTo("not read: cannot load libnvidia-ml.so.1");
    assertThat(RunDetail.cache(notRead)).startsWith("above 4x L2");
  }

  static final Counters LOADS_TWICE = new Counters(8.0, 4.0, 4.0, 4.0, 67.9e6, 67108864.0, 67.2e6, 67108864.0, true,
      List.of("loads: 8.00 sectors/request measured, 4.00 modelled"), List.of("busload_stride_copy_f32"), "ncu");

  @Test
  void counterRow_flaggedLoads_measuredBesideModelAndTheReason() {
    KernelResult r = Results.stride("s", Results.GPU, 1, 1e12, Instant.EPOCH).withCounters(LOADS_TWICE);

    RunDetail.CounterRow row = RunDetail.counterRow(r);

    assertThat(row.kernel()).isEqualTo("stride-copy-fp32 elements=16777216;stride=1");
    assertThat(row.loadSectors()).isEqualTo("8.00 / 4.00");
    assertThat(row.storeSectors()).isEqualTo("4.00 / 4.00");
    assertThat(row.dramRead()).isEqualTo("67.90 / 67.11\u201367.11");
    assertThat(row.flagged()).isTrue();
    assertThat(row.flag()).isEqualTo("FLAG, beyond 10%: loads: 8.00 sectors/request measured, 4.00 modelled");
  }

  @Test
  void counterRow_noStoresAndDramNotCounted_saysSoInsteadOfZero() {
    Counters loadsOnly = new Counters(4.0, 4.0, null, null, null, 1e6, null, null, false, List.of(), List.of(), "m");
    KernelResult base = Results.stride("s", Results.GPU, 1, 1e12, Instant.EPOCH);
    KernelResult r = KernelResult.builder().schemaVersion(base.schemaVersion()).id(base.id()).runId(base.runId())
        .sweepId(base.sweepId()).agentId(base.agentId()).agentVersion(base.agentVersion())
        .fatbinHash(base.fatbinHash()).device(base.device()).suite(base.suite()).kernel(base.kernel())
        .params(base.params()).valid(true).mismatches(List.of()).medianSeconds(1).minSeconds(1).maxSeconds(1)
        .relativeSpread(0).samples(List.of(1.0)).launchesPerSample(1).warmupLaunches(1).bytesRead(1_000_000)
        .bytesWritten(0).bytes(1_000_000).bandwidth(1e6).method("m").measuredAt(Instant.EPOCH).counters(loadsOnly)
        .build();

    RunDetail.CounterRow row = RunDetail.counterRow(r);

    assertThat(row.storeSectors()).isEqualTo("none");
    assertThat(row.dramRead()).as("not counted: a dash, not 0").isEqualTo("\u2013 / 1.00\u20131.00");
    assertThat(row.dramWritten()).isEqualTo("none");
    assertThat(row.flagged()).isFalse();
    assertThat(row.flag()).isEqualTo("within 10% of the model");
  }

  @Test
  void countersOption_onlyProfiledKernels_measuredAndModelBarsMissingFigureNotZero() {
    KernelResult profiled = Results.stride("s", Results.GPU, 1, 1e12, Instant.EPOCH).withCounters(LOADS_TWICE);
    KernelResult plain = Results.stride("s", Results.GPU, 2, 1e12, Instant.EPOCH.plusSeconds(1));
    KernelResult noStores = Results.stride("s", Results.GPU, 4, 1e12, Instant.EPOCH.plusSeconds(2))
        .withCounters(new Counters(16.0, 16.0, null, 4.0, null, null, null, null, false, List.of(), List.of(), "m"));

    var option = RunDetail.countersOption("r", List.of(noStores, plain, profiled));

    assertThat(option.at("/xAxis/data").toString()).isEqualTo("[\"FLAG stride-copy-fp32 elements=16777216;stride=1\","
        + "\"stride-copy-fp32 elements=16777216;stride=4\"]");
    assertThat(option.at("/series/0/data").toString()).isEqualTo("[8.0,16.0]");
    assertThat(option.at("/series/1/data").toString()).isEqualTo("[4.0,16.0]");
    assertThat(option.at("/series/2/data").toString()).isEqualTo("[4.0,\"-\"]");
    assertThat(option.at("/series/3/data").toString()).isEqualTo("[4.0,4.0]");
  }

  @Test
  void energy_readNotReadAndNotMeasured_derivedFiguresOrNotReadNeverZero() {
    KernelResult measured = Results.stride("s", Results.GPU, 1, 1e12, Instant.EPOCH);
    // 2000 launches of 2^27 bytes (268.4 GB) for 66.0 J: 0.246 J/GB; 1000 GB/s over 330 W: 3.03 GB/s per W.
    KernelResult read = measured.withEnergy(new io.busload.protocol.Energy(66.0, 330.0, 119.4, 0.2, 2000, 2));
    KernelResult invalid = Results.result("s", Results.GPU, "offset-copy-fp32", Map.of("offset", 1), false, 1e12,
        Instant.EPOCH);

    assertThat(RunDetail.energy(read)).startsWith("0.246 J/GB, " + String.format(java.util.Locale.ROOT, "%.2f",
        read.bandwidth() / 1e9 / 330.0) + " GB/s per W; 330.0 W average, idle 119.4 W; 0.20 s of 2000 launches");
    assertThat(RunDetail.energy(measured)).isEqualTo("not read");
    assertThat(RunDetail.energy(invalid)).isEmpty();
  }
}
