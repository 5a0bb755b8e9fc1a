package io.busload.agent.crosscheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Against ncu's documented --csv "details" layout: one quoted record per (launch, metric) after its messages. */
class NcuCsvTest {
  static final String SAMPLE = """
      ==PROF== Connected to process 4242 (/tmp/busload/crosscheck)
      once,stride-copy-fp32,size=1048576;stride=1,0.00001
      ==PROF== Profiling "busload_stride_copy_f32": 0%....50%....100% - 3 passes
      "ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
      "0","4242","crosscheck","127.0.0.1","busload_stride_copy_f32","1","7","(256, 1, 1)","(1024, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","byte","4,194,304"
      "0","4242","crosscheck","127.0.0.1","busload_stride_copy_f32","1","7","(256, 1, 1)","(1024, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_write.sum","Mbyte","4.19"
      "0","4242","crosscheck","127.0.0.1","busload_stride_copy_f32","1","7","(256, 1, 1)","(1024, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","","32,768"
      "0","4242","crosscheck","127.0.0.1","busload_stride_copy_f32","1","7","(256, 1, 1)","(1024, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","131,072"
      "1","4242","crosscheck","127.0.0.1","busload_gather_gather_f32","1","7","(256, 1, 1)","(1024, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","KiB","2"
      "1","4242","crosscheck","127.0.0.1","busload_gather_gather_f32","1","7","(256, 1, 1)","(1024, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum","sector","n/a"
      ==PROF== Disconnected from process 4242
      """;

  @Test
  void parse_detailsPageWithMessages_oneLaunchPerIdInOrder() {
    List<NcuCsv.Launch> launches = NcuCsv.parse(SAMPLE);

    assertThat(launches).extracting(NcuCsv.Launch::id).containsExactly(0, 1);
    assertThat(launches).extracting(NcuCsv.Launch::kernelName)
        .containsExactly("busload_stride_copy_f32", "busload_gather_gather_f32");
  }

  @Test
  void parse_thousandsSeparatorsAndScaledUnits_valuesInBaseUnits() {
    NcuCsv.Launch first = NcuCsv.parse(SAMPLE).getFirst();

    assertThat(first.metric(ProfileReport.DRAM_READ)).isEqualTo(4_194_304.0);
    assertThat(first.metric(ProfileReport.DRAM_WRITE)).isCloseTo(4.19e6, org.assertj.core.api.Assertions.within(1e-3));
    assertThat(first.metric(ProfileReport.LD_REQUESTS)).isEqualTo(32_768.0);
    assertThat(first.metric(ProfileReport.LD_SECTORS)).isEqualTo(131_072.0);
  }

  @Test
  void parse_binaryPrefixAndNa_scaledAndNaN() {
    NcuCsv.Launch second = NcuCsv.parse(SAMPLE).get(1);

    assertThat(second.metric(ProfileReport.DRAM_READ)).isEqualTo(2048.0);
    assertThat(second.metric(ProfileReport.ST_SECTORS)).isNaN();
    assertThat(second.metric(ProfileReport.ST_REQUESTS)).as("not reported").isNaN();
  }

  @Test
  void parse_noHeader_failsSayingSo() {
    assertThatThrownBy(() -> NcuCsv.parse("==PROF== No kernels were profiled.\n"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no header line");
  }
}
