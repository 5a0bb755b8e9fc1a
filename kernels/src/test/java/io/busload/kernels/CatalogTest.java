package io.busload.kernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CatalogTest {

  @Test
  void suiteNames_copyFamiliesRegistered_coalescingAndOnePerFamily() {
    assertThat(Catalog.suiteNames()).startsWith(Catalog.COALESCING)
        .contains("stride", "offset", "types", "vector");
  }

  @Test
  void strideSuite_contents_ceilingThenCopyAtEightStrides() {
    List<KernelCase> cases = Catalog.cases("stride");

    assertThat(Catalog.suite("stride")).extracting(KernelSpec::name).containsExactly("memcpy-d2d", "stride-copy-fp32");
    assertThat(cases).hasSize(9);
    assertThat(cases.get(0).params()).isEmpty();
    assertThat(cases.subList(1, 9)).extracting(c -> c.param("stride")).containsExactly(1L, 2L, 3L, 4L, 5L, 8L, 16L, 32L);
  }

  @Test
  void coalescingSuite_everyFamily_ceilingFirstAndEveryCopyKernel() {
    List<String> names = Catalog.suite(Catalog.COALESCING).stream().map(KernelSpec::name).toList();
    assertThat(names.getFirst()).isEqualTo("memcpy-d2d");
    assertThat(names).contains("stride-copy-fp32", "offset-copy-fp32", "typed-copy-int8", "typed-copy-float4",
        "vector-copy-float", "vector-copy-float2", "vector-copy-float4");
    assertThat(names).doesNotHaveDuplicates();
  }

  @Test
  void typesSuite_sixTypesSixStrides_thirtySixCasesAndTheCeiling() {
    assertThat(Catalog.cases("types")).hasSize(37);
  }

  @Test
  void suite_unknownName_namesItAndTheKnownOnes() {
    assertThatThrownBy(() -> Catalog.suite("x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown suite 'x'; known: coalescing, stride");
  }

  @Test
  void family_unknownName_messageStartsWithFamily() {
    assertThatThrownBy(() -> Catalog.family("nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("family: unknown family 'nope'; known: stride, offset, types, vector");
  }

  @Test
  void cases_strideOption_replacesTheAxisValues() {
    SuiteOptions options = SuiteOptions.parse(Map.of("stride", "3,5"));
    assertThat(Catalog.cases("stride", options)).extracting(KernelCase::toString)
        .containsExactly("memcpy-d2d{}", "stride-copy-fp32{stride=3}", "stride-copy-fp32{stride=5}");
  }

  @Test
  void cases_axisNoKernelHas_messageStartsWithTheAxis() {
    assertThatThrownBy(() -> Catalog.cases("vector", SuiteOptions.parse(Map.of("offset", "1"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("offset: no kernel of suite 'vector' has this axis");
  }

  @Test
  void cudaSources_everyEntryPointOfTheCopyFamilies_isDeclaredExternC() throws Exception {
    String stride = Files.readString(Path.of("src/main/cuda/stride.cu"));
    String copy = Files.readString(Path.of("src/main/cuda/copy.cu"));
    assertThat(stride).contains("extern \"C\" __global__ void " + StridedCopy.ENTRY_POINT + "(");
    assertThat(copy).contains("extern \"C\" __global__ void " + OffsetCopy.ENTRY_POINT + "(");
    for (String suffix : TypedCopy.SUFFIX.values()) {
      assertThat(copy).contains("BUSLOAD_TYPED_COPY(" + suffix + ",");
    }
    assertThat(copy).contains("BUSLOAD_VECTOR_COPY(f32,", "BUSLOAD_VECTOR_COPY(f32x2,", "BUSLOAD_VECTOR_COPY(f32x4,");
  }

  @Test
  void cudaSources_elementsPerThread_matchCopyProgramGeometry() throws Exception {
    assertThat(Files.readString(Path.of("src/main/cuda/stride.cu")))
        .contains("#define BUSLOAD_STRIDE_PER_THREAD " + CopyProgram.PER_THREAD + "\n");
    assertThat(Files.readString(Path.of("src/main/cuda/copy.cu")))
        .contains("#define BUSLOAD_COPY_PER_THREAD " + CopyProgram.PER_THREAD + "\n");
  }
}
