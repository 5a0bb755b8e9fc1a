package io.busload.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.report.RunHealth;
import io.busload.agent.report.TablePrinter;
import io.busload.protocol.Health;
import io.busload.protocol.HealthCounters;
import io.busload.protocol.KernelResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code ./busload run}'s table says of the device's health, from the results' NVML health. */
class RunHealthPrintTest {
  private static final HealthCounters CLEAN = new HealthCounters(0L, 0L, 0L, 0L, null, null, null, 0L, 0L, false,
      false, 5L);

  private static String table(List<KernelResult> results) {
    StringWriter text = new StringWriter();
    new TablePrinter().print(results, new PrintWriter(text));
    return text.toString();
  }

  private static List<KernelResult> withHealth(HealthCounters after, List<Long> xids) {
    List<KernelResult> results = new ArrayList<>();
    for (KernelResult r : Fixtures.results()) {
      results.add(r.withHealth(new Health(CLEAN, after, xids, "NVML, driver 580.82.07")));
    }
    return results;
  }

  @Test
  void table_resultsWithoutHealth_saysNotRead() {
    assertThat(table(Fixtures.results())).contains("health: not read (no NVML health counters on this device)\n");
  }

  @Test
  void table_pcieReplaysDuringRun_degradedWithTheReason() {
    HealthCounters after = new HealthCounters(0L, 0L, 0L, 0L, null, null, null, 0L, 0L, false, false, 9L);

    assertThat(table(withHealth(after, List.of()))).contains("health: DEGRADED: 4 PCIe replay(s) during the run\n");
  }

  @Test
  void table_xidDuringRun_failed() {
    assertThat(table(withHealth(CLEAN, List.of(79L))))
        .contains("health: FAILED: 1 XID critical error(s) during the run: XID 79\n");
  }

  @Test
  void of_cleanRunOnH100_healthyJudgedAgainstThePublishedFloor() {
    // The fixtures' memcpy: 2^27 bytes in 51 us = 2631.7 GB/s, 78.5% of the 3352 GB/s peak: above 77.9%.
    assertThat(RunHealth.of(withHealth(CLEAN, List.of())).orElseThrow().state().name()).isEqualTo("HEALTHY");
    assertThat(RunHealth.of(withHealth(CLEAN, List.of())).orElseThrow().notRead()).isEmpty();
  }
}
