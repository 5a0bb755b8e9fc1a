package io.busload.kernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class CatalogTest {

  @Test
  void suiteNames_now_isStride() {
    assertThat(Catalog.suiteNames()).containsExactly("stride");
  }

  @Test
  void strideSuite_contents_ceilingThenCopyAtSixStrides() {
    List<KernelCase> cases = Catalog.cases("stride");

    assertThat(Catalog.suite("stride")).extracting(KernelSpec::name).containsExactly("memcpy-d2d", "stride-copy-fp32");
    assertThat(cases).hasSize(7);
    assertThat(cases.get(0).params()).isEmpty();
    assertThat(cases.subList(1, 7)).extracting(c -> c.param("stride")).containsExactly(1L, 2L, 4L, 8L, 16L, 32L);
    assertThat(Catalog.STRIDE_COPY_FP32.entryPoint()).isEqualTo("busload_stride_copy_f32");
    assertThat(Catalog.MEMCPY_D2D.kind()).isEqualTo(KernelSpec.Kind.MEMCPY);
  }

  @Test
  void suite_unknownName_namesItAndTheKnownOnes() {
    assertThatThrownBy(() -> Catalog.suite("x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown suite 'x'; known: stride");
  }

  @Test
  void launch_strideCopy_fourElementsPerThreadRoundedUp() {
    assertThat(Catalog.STRIDE_COPY_FP32.launch(1000)).contains(new Launch(1, 256));
    assertThat(Catalog.STRIDE_COPY_FP32.launch(1025)).contains(new Launch(2, 256));
    assertThat(Catalog.STRIDE_COPY_FP32.launch(1L << 24)).contains(new Launch(16384, 256));
    assertThat(Catalog.MEMCPY_D2D.launch(1000)).isEmpty();
  }

  @Test
  void cudaSource_entryPointOfEveryKernel_isDeclaredExternC() throws Exception {
    String source = java.nio.file.Files.readString(java.nio.file.Path.of("src/main/cuda/stride.cu"));
    assertThat(source).contains("extern \"C\" __global__ void " + Catalog.STRIDE_COPY_FP32.entryPoint() + "(");
  }

  @Test
  void cudaSource_elementsPerThread_matchesCatalogGeometry() throws Exception {
    String source = java.nio.file.Files.readString(java.nio.file.Path.of("src/main/cuda/stride.cu"));
    assertThat(source).contains("#define BUSLOAD_STRIDE_PER_THREAD " + Catalog.STRIDE_COPY_FP32.elementsPerThread() + "\n");
  }
}
