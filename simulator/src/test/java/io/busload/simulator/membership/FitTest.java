package io.busload.simulator.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.busload.simulator.os.Sockets;
import java.util.List;
import org.junit.jupiter.api.Test;

class FitTest {
  private static SizeFigures size(int n, int connections, double cpu) {
    return new SizeFigures(n, connections, 0, cpu, 0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, 0, 20, 1, Sockets.SS);
  }

  @Test
  void of_fullMesh_exponentNearTwo() {
    // A full mesh: N(N-1)/2 connections.
    List<SizeFigures> sizes = List.of(10, 25, 50, 100).stream().map(n -> size(n, n * (n - 1) / 2, 0.01 * n)).toList();

    Fit connections = Fit.of("connections", "", sizes, SizeFigures::connections);
    Fit cpu = Fit.of("cpu", "", sizes, SizeFigures::cpuCores);

    assertThat(connections.b()).isCloseTo(2.0, within(0.06));
    assertThat(connections.at(1000)).isCloseTo(1000 * 999 / 2.0, within(0.15 * 1000 * 999 / 2.0));
    assertThat(cpu.b()).isCloseTo(1.0, within(1e-9));
    assertThat(cpu.at(1000)).isCloseTo(10.0, within(1e-6));
  }

  @Test
  void of_missingValues_skippedAndTooFewPointsGiveNaN() {
    List<SizeFigures> sizes = List.of(size(10, 45, Double.NaN), size(25, 300, 0));

    Fit cpu = Fit.of("cpu", "", sizes, SizeFigures::cpuCores);

    assertThat(cpu.points()).isZero();
    assertThat(cpu.b()).isNaN();
  }
}
