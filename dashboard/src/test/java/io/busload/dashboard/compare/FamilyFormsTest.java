package io.busload.dashboard.compare;

import static io.busload.dashboard.Results.GPU;
import static org.assertj.core.api.Assertions.assertThat;

import io.busload.dashboard.Results;
import io.busload.protocol.KernelResult;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FamilyFormsTest {
  private static KernelResult r(String kernel, Map<String, Object> params, double bandwidth) {
    return Results.result("s", GPU, kernel, params, true, bandwidth, Instant.EPOCH);
  }

  @Test
  void family_kernelNames_groupedByFamilyMemcpyInNone() {
    assertThat(FamilyForms.family("stride-copy-fp32")).isEqualTo("stride-copy");
    assertThat(FamilyForms.family("transpose-tiled")).isEqualTo("transpose");
    assertThat(FamilyForms.family("matmul-row-per-thread")).isEqualTo("matmul");
    assertThat(FamilyForms.family("memcpy-d2d")).isNull();
  }

  @Test
  void pick_transpose_namedFormsAndBestLeavesTheCopyBoundOut() {
    List<KernelResult> transpose = List.of(r("transpose-naive", Map.of(), 1e11), r("transpose-tiled", Map.of(), 3e12),
        r("transpose-padded", Map.of(), 3.5e12), r("transpose-copy", Map.of(), 4e12));

    assertThat(FamilyForms.pick(FamilyForms.Form.NAIVE, transpose).orElseThrow().kernel()).isEqualTo("transpose-naive");
    assertThat(FamilyForms.pick(FamilyForms.Form.COALESCED, transpose).orElseThrow().kernel()).isEqualTo("transpose-tiled");
    assertThat(FamilyForms.pick(FamilyForms.Form.BEST, transpose).orElseThrow().kernel()).isEqualTo("transpose-padded");
  }

  @Test
  void pick_strideCopy_strideOneCoalescedSlowestOtherNaive() {
    List<KernelResult> strides = List.of(r("stride-copy-fp32", Map.of("stride", 1), 3e12),
        r("stride-copy-fp32", Map.of("stride", 2), 1.5e12), r("stride-copy-fp32", Map.of("stride", 32), 1e11));

    assertThat(FamilyForms.pick(FamilyForms.Form.COALESCED, strides).orElseThrow().params()).containsEntry("stride", 1);
    assertThat(FamilyForms.pick(FamilyForms.Form.NAIVE, strides).orElseThrow().params()).containsEntry("stride", 32);
  }

  @Test
  void publishedForm_seedFigures_mappedByVariantAndParameter() {
    var figures = PublishedFigures.load();
    var a100Stride32 = figures.stream().filter(f -> f.parameter().equals("stride=32") && f.device().startsWith("A100"))
        .findFirst().orElseThrow();

    assertThat(FamilyForms.publishedForm(a100Stride32)).isEqualTo(FamilyForms.Form.NAIVE);
    assertThat(a100Stride32.label()).startsWith("published: ").endsWith("(seed coalescing-patterns-a100.txt)");
    assertThat(figures).hasSize(27);
  }
}
