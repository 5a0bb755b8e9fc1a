package io.busload.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A result written as CSV cells reads back as the same result, and a bad cell names its column. */
class ResultCsvTest {
  private static final DeviceInfo GPU = new DeviceInfo("gpu1/cuda:0", DeviceInfo.CUDA, "NVIDIA H200",
      "GPU-1234", "9.0", 132, 60L << 20, 141L << 30, 3_201_000_000L, 6144, 4.8e12, "13.0");

  private static KernelResult profiled() {
    Counters counters = new Counters(4.0, 4.0, 4.0, 4.0, 1.0e6, 1.1e6, 2.0e6, 2.0e6, true,
        List.of("loads: 8 sectors per request, model 4"), List.of("stride_copy"), "ncu, one launch");
    return KernelResult.builder().id(UUID.randomUUID()).agentId("gpu1").agentVersion("0.1.0").fatbinHash("abc")
        .device(GPU).suite("stride").kernel("stride-copy-fp32")
        .params(Map.of("size", 16777216L, "stride", 4L, "layout", "aos", "flush", true)).valid(true)
        .mismatches(List.of()).medianSeconds(6.2e-5).minSeconds(6.0e-5).maxSeconds(6.4e-5).relativeSpread(0.0645)
        .samples(List.of(6.0e-5, 6.2e-5, 6.4e-5)).launchesPerSample(20).warmupLaunches(42).bytesRead(1L << 26)
        .bytesWritten(1L << 26).bytes(1L << 27).bandwidth((1L << 27) / 6.2e-5)
        .method("warm-up 42 launches; clocks 1980 MHz, \"quoted\"")
        .measuredAt(Instant.parse("2026-11-22T01:00:00.123456Z")).counters(counters).build();
  }

  private static Map<String, String> cells(KernelResult r, List<String> columns) {
    Map<String, String> cells = new HashMap<>();
    for (String column : columns) {
      Object value = ResultCsv.value(column, r);
      cells.put(column, value == null ? "" : value.toString());
    }
    return cells;
  }

  private static List<String> all() {
    List<String> columns = new java.util.ArrayList<>(ResultCsv.SUMMARY);
    columns.addAll(ResultCsv.METHOD);
    columns.addAll(ResultCsv.CARRIED);
    return columns;
  }

  @Test
  void read_cellsOfProfiledResult_sameResult() {
    KernelResult original = profiled();

    KernelResult back = ResultCsv.read(cells(original, all())::get);

    assertThat(back).isEqualTo(original);
  }

  @Test
  void read_invalidResultWithMismatches_sameResult() {
    KernelResult p = profiled();
    KernelResult invalid = KernelResult.builder().schemaVersion(p.schemaVersion()).id(p.id()).runId("run-1")
        .sweepId("sweep-1").agentId(p.agentId()).agentVersion(p.agentVersion()).fatbinHash(p.fatbinHash())
        .device(p.device()).suite(p.suite()).kernel(p.kernel()).params(p.params()).valid(false)
        .mismatches(List.of("out[7]: expected 1.5, got 0.25", "1 of 16777216 elements differ; \"x\""))
        .medianSeconds(0).minSeconds(0).maxSeconds(0).relativeSpread(0).samples(List.of()).launchesPerSample(0)
        .warmupLaunches(0).bytesRead(1).bytesWritten(1).bytes(2).method("no timing").measuredAt(p.measuredAt())
        .build();

    assertThat(ResultCsv.read(cells(invalid, all())::get)).isEqualTo(invalid);
  }

  @Test
  void read_withoutOptionalColumns_readsNoCounters() {
    List<String> columns = all();
    columns.removeAll(ResultCsv.OPTIONAL);

    KernelResult back = ResultCsv.read(cells(profiled(), columns)::get);

    assertThat(back.counters()).isNull();
    assertThat(back.samples()).hasSize(3);
  }

  /** Each row spoils one cell of a good row with every column, sampling's included (no cell: the column is absent). */
  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      medianSeconds     | fast         | medianSeconds: not a number: 'fast'
      valid             | yes          | valid: not true or false: 'yes'
      samples           | 4            | samples: says 4 samples but sampleSeconds holds 3
      sampleSeconds     | 1e-5;x       | sampleSeconds: sample 2 is not a number: 'x'
      deviceFingerprint | 0000         | deviceFingerprint: '0000' is not the fingerprint
      measuredAt        | yesterday    | measuredAt: not an ISO-8601 instant
      params            | size         | params: not name=value: 'size'
      mismatches        | out[7] wrong | mismatches: not a JSON array of texts
      deviceId          |              | deviceId: no such column in the file
      stopReason        | SOON         | stopReason: not one of [SPREAD_SETTLED, TIME_CAP, SAMPLE_CAP]: 'SOON'
      heldSamples       | many         | heldSamples: not a whole number
      throttleReasons   | lots         | throttleReasons: not a hexadecimal mask
      status            | SKIPPED      | status: SKIPPED with valid=true
      clocksReading     | NOT_READ     | clocksReading: clocks: figures given though reading is NOT_READ
      """)
  void read_badCell_namesItsColumn(String column, String cell, String message) {
    Map<String, String> cells = new HashMap<>(cells(timed(), withSampling()));
    cells.put(column, cell);
    assertThatThrownBy(() -> ResultCsv.read(cells::get)).isInstanceOf(ResultCsv.BadCell.class)
        .hasMessageStartingWith(message).extracting(e -> ((ResultCsv.BadCell) e).column()).isEqualTo(column);
  }

  private static List<String> withSampling() {
    List<String> columns = all();
    columns.addAll(ResultCsv.SAMPLING);
    return columns;
  }

  private static KernelResult timed() {
    Sampling s = SamplingTest.sampled();
    return profiled().withSampling(ResultStatus.MEASURED, new Sampling(s.heldSamples(), s.unheldSamples(),
        s.retimedSamples(), s.stopReason(), s.clocks(), CacheResidency.of(8L << 20, GPU.l2Bytes(), false),
        List.of("gpu1/cuda:1", "gpu1/cuda:2")));
  }

  @Test
  void read_cellsWithSampling_sameResult() {
    KernelResult timed = timed();
    KernelResult original = KernelResult.builder().schemaVersion(timed.schemaVersion()).id(timed.id())
        .agentId("gpu1").agentVersion("0.1.0").fatbinHash("abc").device(GPU).suite("stride")
        .kernel("stride-copy-fp32").params(Map.of("size", 1L)).valid(true).mismatches(List.of()).medianSeconds(1)
        .minSeconds(1).maxSeconds(1).relativeSpread(0).samples(List.of(1.0)).launchesPerSample(1).warmupLaunches(1)
        .bytesRead(1).bytesWritten(1).bytes(2).bandwidth(2.0).method("m")
        .measuredAt(Instant.parse("2026-11-22T01:00:00Z")).status(ResultStatus.MEASURED)
        .sampling(new Sampling(5, 0, 1, StopReason.TIME_CAP, Clocks.notRead("no NVML"), CacheResidency.of(8L << 20, GPU.l2Bytes(), true)))
        .build();

    KernelResult back = ResultCsv.read(cells(original, withSampling())::get);

    assertThat(back).isEqualTo(original);
    assertThat(ResultCsv.read(cells(timed, withSampling())::get)).isEqualTo(timed);
  }

  @Test
  void read_fileWithoutSamplingColumns_statusFromItsFieldsAndNoSampling() {
    KernelResult p = profiled();
    KernelResult skipped = KernelResult.builder().schemaVersion(p.schemaVersion()).id(p.id()).agentId(p.agentId())
        .agentVersion(p.agentVersion()).fatbinHash(p.fatbinHash()).device(p.device()).suite(p.suite())
        .kernel(p.kernel()).params(p.params()).valid(false).mismatches(List.of("skipped: size")).medianSeconds(0)
        .minSeconds(0).maxSeconds(0).relativeSpread(0).samples(List.of()).launchesPerSample(0).warmupLaunches(0)
        .bytesRead(0).bytesWritten(0).bytes(0).method("skipped: size: needs 9 GB, 8 GB free")
        .measuredAt(p.measuredAt()).build();

    assertThat(ResultCsv.read(cells(p, all())::get).sampling()).isNull();
    assertThat(ResultCsv.read(cells(skipped, all())::get).status()).isEqualTo(ResultStatus.SKIPPED);
  }

  @Test
  void column_ofRecordFields_isTheCsvColumnHoldingIt() {
    assertThat(ResultCsv.column("sampling.clocks.smMinMHz")).isEqualTo("smClockMinMHz");
    assertThat(ResultCsv.column("sampling.heldSamples")).isEqualTo("heldSamples");
    assertThat(ResultCsv.column("sampling.othersBusy[1]")).isEqualTo("othersBusy");
    assertThat(ResultCsv.column("status")).isEqualTo("status");
    assertThat(ResultCsv.column("device.name")).isEqualTo("deviceName");
    assertThat(ResultCsv.column("device.theoreticalPeakBytesPerSecond")).isEqualTo("deviceTheoreticalPeak");
    assertThat(ResultCsv.column("device.l2Bytes")).isEqualTo("deviceL2Bytes");
    assertThat(ResultCsv.column("device.driverVersion")).isEqualTo("deviceDriverVersion");
    assertThat(ResultCsv.column("params.stride")).isEqualTo("params");
    assertThat(ResultCsv.column("samples")).isEqualTo("sampleSeconds");
    assertThat(ResultCsv.column("medianSeconds")).isEqualTo("medianSeconds");
    for (String column : ResultCsv.required()) {
      assertThat(all()).contains(column);
    }
  }

  @Test
  void read_cellsOfResultWithEnergy_sameEnergyAndDerivedCells() {
    KernelResult original = profiled().withEnergy(new Energy(33.18, 316.2, 76.2, 1.049, 2000, 10));
    List<String> columns = all();
    columns.addAll(ResultCsv.ENERGY);
    Map<String, String> cells = cells(original, columns);

    KernelResult back = ResultCsv.read(cells::get);

    assertThat(back).isEqualTo(original);
    assertThat(cells.get("energy")).isEqualTo("read");
    // 2000 launches of 2^27 bytes: 268.4 GB for 33.18 J; 2.165 TB/s over 316.2 W.
    assertThat(Double.parseDouble(cells.get("joulesPerGigabyte"))).isCloseTo(33.18 / 268.435456,
        org.assertj.core.api.Assertions.within(1e-12));
    assertThat(Double.parseDouble(cells.get("gigabytesPerSecondPerWatt"))).isCloseTo(
        (1L << 27) / 6.2e-5 / 1e9 / 316.2, org.assertj.core.api.Assertions.within(1e-12));
  }

  @Test
  void value_resultWithoutEnergy_saysNotReadAndLeavesEveryFigureEmpty() {
    KernelResult r = profiled();

    assertThat(ResultCsv.value("energy", r)).isEqualTo("not read");
    for (String column : ResultCsv.ENERGY.subList(1, ResultCsv.ENERGY.size())) {
      assertThat(ResultCsv.value(column, r)).as(column).isNull();
    }
    List<String> columns = all();
    columns.addAll(ResultCsv.ENERGY);
    assertThat(ResultCsv.read(cells(r, columns)::get).energy()).isNull();
  }

  @Test
  void read_energyWithNegativeJoules_badCellNamingTheColumn() {
    List<String> columns = all();
    columns.addAll(ResultCsv.ENERGY);
    Map<String, String> cells = cells(profiled().withEnergy(new Energy(1, 1, null, 1, 1, 1)), columns);
    cells.put("energyJoules", "-3");

    assertThatThrownBy(() -> ResultCsv.read(cells::get)).isInstanceOf(ResultCsv.BadCell.class)
        .hasMessageStartingWith("energyJoules: energy: joules >= 0");
  }

  @Test
  void read_cellsOfResultWithHealth_sameHealthWithUnreadFieldsKeptNull() {
    HealthCounters start = new HealthCounters(0L, 0L, 10L, 0L, null, null, null, 0L, 0L, false, false, 5L);
    HealthCounters after = new HealthCounters(4L, 0L, 14L, 0L, null, null, null, 1L, 0L, true, false, 17L);
    KernelResult original = profiled().withHealth(new Health(start, after, List.of(79L), "NVML, driver 580.82.07"));
    List<String> columns = all();
    columns.addAll(ResultCsv.HEALTH);
    Map<String, String> cells = cells(original, columns);

    KernelResult back = ResultCsv.read(cells::get);

    assertThat(back).isEqualTo(original);
    assertThat(back.health().afterCase().retiredPagesPending()).isNull();
    assertThat(cells.get("health")).isEqualTo("read");
    assertThat(cells.get("xidEvents")).isEqualTo("[79]");
  }

  @Test
  void read_healthNotWatchingXidsOrNotRead_nullXidsAndNullHealth() {
    KernelResult unwatched = profiled().withHealth(new Health(HealthCounters.NONE, HealthCounters.NONE, null, "n"));
    List<String> columns = all();
    columns.addAll(ResultCsv.HEALTH);

    assertThat(ResultCsv.read(cells(unwatched, columns)::get).health().xids()).isNull();
    assertThat(ResultCsv.value("health", profiled())).isEqualTo("not read");
    assertThat(ResultCsv.read(cells(profiled(), columns)::get).health()).isNull();
  }

  @Test
  void read_healthCounterNegative_badCellNamingTheColumn() {
    List<String> columns = all();
    columns.addAll(ResultCsv.HEALTH);
    Map<String, String> cells = cells(profiled().withHealth(new Health(HealthCounters.NONE, HealthCounters.NONE,
        List.of(), "n")), columns);
    cells.put("healthAfterCase", "{\"pcieReplays\":-1}");

    assertThatThrownBy(() -> ResultCsv.read(cells::get)).isInstanceOf(ResultCsv.BadCell.class)
        .hasMessageStartingWith("healthAfterCase: not a JSON object of health counters");
  }
}
