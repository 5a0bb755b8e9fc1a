package io.busload.dashboard.echarts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** The server-side copy of the option, which redraws a re-attached chart, follows appended points. */
class EChartsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ECharts chartWithOneSeries() throws Exception {
    ECharts chart = new ECharts();
    chart.setOption((ObjectNode) JSON.readTree("""
        {"series":[{"id":"a","type":"line","data":[[1.0,10.0],[4.0,40.0]]}]}"""));
    return chart;
  }

  @Test
  void appendPoint_betweenExistingStrides_keepsTheSeriesOrderedByX() throws Exception {
    ECharts chart = chartWithOneSeries();

    chart.appendPoint("a", 2, 20);

    assertThat(chart.option().at("/series/0/data").toString()).isEqualTo("[[1.0,10.0],[2.0,20.0],[4.0,40.0]]");
  }

  @Test
  void appendPoint_existingX_replacesThePoint() throws Exception {
    ECharts chart = chartWithOneSeries();

    chart.appendPoint("a", 4, 44);

    assertThat(chart.option().at("/series/0/data").toString()).isEqualTo("[[1.0,10.0],[4.0,44.0]]");
  }

  @Test
  void appendPoint_unknownSeries_isRefusedWithTheId() throws Exception {
    ECharts chart = chartWithOneSeries();

    assertThatThrownBy(() -> chart.appendPoint("b", 1, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'b'");
  }
}
