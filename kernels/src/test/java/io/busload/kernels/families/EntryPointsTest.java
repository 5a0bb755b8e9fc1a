package io.busload.kernels.families;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.kernels.Family;
import io.busload.kernels.Fatbin;
import io.busload.kernels.KernelCase;
import io.busload.kernels.KernelSpec;
import io.busload.kernels.Step;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EntryPointsTest {
  static final List<Family> FAMILIES = List.of(new Transpose(), new Particles(), new Conv2d(), new Gather(), new Reduction());

  /** A size every family accepts: a multiple of 32, at least 64. */
  private static final long SIZE = 64;

  @Test
  void everyStep_entryPoint_isDeclaredExternCGlobalInItsFamilySource() throws IOException {
    int seen = 0;
    for (Family family : FAMILIES) {
      String source = Files.readString(Path.of("src/main/cuda", family.name() + ".cu"));
      for (KernelSpec spec : family.kernels()) {
        assertThat(spec.family()).isEqualTo(family.name());
        for (Step step : family.program(new KernelCase(spec, Map.of()), SIZE).steps()) {
          String entryPoint = ((Step.Kernel) step).entryPoint();
          assertThat(entryPoint).startsWith("busload_" + family.name() + "_").doesNotContain("-");
          assertThat(source).as(spec.name()).contains("extern \"C\" __global__ void " + entryPoint + "(");
          seen++;
        }
      }
    }
    assertThat(seen).isEqualTo(4 + 3 + 2 + 4 + 8);
  }

  @Test
  void everyStep_entryPoint_isInTheBuiltFatbin() {
    String fatbin = new String(Fatbin.bytes(), StandardCharsets.ISO_8859_1);
    for (Family family : FAMILIES) {
      for (KernelSpec spec : family.kernels()) {
        for (Step step : family.program(new KernelCase(spec, Map.of()), SIZE).steps()) {
          assertThat(fatbin).contains(((Step.Kernel) step).entryPoint());
        }
      }
    }
  }

  @Test
  void kernelNames_allFamilies_uniqueAndPrefixedByFamily() {
    List<String> names = FAMILIES.stream().flatMap(f -> f.kernels().stream()).map(KernelSpec::name).toList();
    assertThat(names).doesNotHaveDuplicates().hasSize(17);
    assertThat(names).allMatch(n -> n.matches("[a-z0-9]+(-[a-z0-9]+)+"));
  }

  @Test
  void program_sizeNotAllowed_messageStartsWithSize() {
    for (Family family : FAMILIES) {
      KernelCase first = new KernelCase(family.kernels().getFirst(), Map.of());
      org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
          .isThrownBy(() -> family.program(first, 0)).withMessageStartingWith("size: ");
    }
  }
}
